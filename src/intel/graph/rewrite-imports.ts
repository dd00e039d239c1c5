/**
 * Rewriting import specifiers after a file moves (file_rename updateImports). Pure: given the
 * importer, the specifier as written, where it pointed and where that file goes, it computes the
 * new specifier in the original style (relative "./" prefix or not, extension kept, dropped or
 * emitted-style ".js", folder imports of index files kept as folders, query suffixes kept; Python
 * relative dots or absolute dotted paths), and replaces it on its line, keeping the quotes.
 * Specifiers it cannot rewrite faithfully (tsconfig paths, packages, `import a.b` used as
 * `a.b.x`) are reported instead of guessed.
 */
import path from "node:path";
import { lineStarts } from "../../text/index.ts";
import { escapeRegExp } from "../../syntax/index.ts";

export type SpecifierRewrite =
  | { ok: true; specifier: string }
  | { ok: false; reason: string };

const SCRIPT_SOURCE_EXTENSIONS = /\.(d\.)?[cm]?[jt]sx?$/;
const EMITTED: Readonly<Record<string, string>> = { ".ts": ".js", ".tsx": ".js", ".mts": ".mjs", ".cts": ".cjs", ".js": ".js", ".jsx": ".jsx", ".mjs": ".mjs", ".cjs": ".cjs" };

function posix(relative: string): string {
  return relative.split(path.sep).join("/");
}

function withDotPrefix(relative: string): string {
  return relative.startsWith("../") || relative === ".." ? relative : `./${relative}`;
}

function extensionOf(file: string): string {
  const declaration = /\.d\.[cm]?ts$/.exec(file);
  return declaration ? declaration[0] : path.extname(file);
}

/**
 * The new relative specifier to `newTarget`, in the style `oldSpecifier` used (from `importer`) for
 * `oldTarget`; written from `newImporter` when the importer moves too.
 */
export function rewriteScriptSpecifier(importer: string, oldSpecifier: string, oldTarget: string, newTarget: string, newImporter: string = importer): SpecifierRewrite {
  const query = /[?#].*$/.exec(oldSpecifier)?.[0] ?? "";
  const bare = oldSpecifier.slice(0, oldSpecifier.length - query.length);
  const relative = bare === "." || bare === ".." || bare.startsWith("./") || bare.startsWith("../");
  if (!relative) return { ok: false, reason: `${oldSpecifier} is not a relative specifier (tsconfig paths, package names and aliases are left as they are)` };
  const directory = path.dirname(importer);
  const oldBase = path.basename(oldTarget);
  const oldExtension = extensionOf(oldTarget);
  const newExtension = extensionOf(newTarget);
  const written = path.resolve(directory, bare);
  let style: "exact" | "emitted" | "extensionless" | "folder";
  if (written === oldTarget) style = "exact";
  else if (written === path.dirname(oldTarget) && /^index\./.test(oldBase)) style = "folder";
  else if (written === oldTarget.slice(0, oldTarget.length - oldExtension.length)) style = "extensionless";
  else if (
    SCRIPT_SOURCE_EXTENSIONS.test(written) && written.slice(0, written.length - path.extname(written).length) === oldTarget.slice(0, oldTarget.length - oldExtension.length)
  ) style = "emitted";
  else return { ok: false, reason: `${oldSpecifier} does not name ${oldBase} in a way that can be carried over` };

  const newStem = newTarget.slice(0, newTarget.length - newExtension.length);
  let target: string;
  switch (style) {
    case "exact":
      target = newTarget;
      break;
    case "folder":
      target = /^index\./.test(path.basename(newTarget)) ? path.dirname(newTarget) : newStem;
      break;
    case "extensionless":
      target = newStem;
      break;
    case "emitted": {
      const writtenExtension = path.extname(written);
      const emitted = EMITTED[newExtension] ?? newExtension;
      // "./x.js" for x.ts stays emitted-style; an unusual pairing keeps the written extension.
      target = newStem + (EMITTED[oldExtension] === writtenExtension ? emitted : writtenExtension);
      break;
    }
  }
  let result = posix(path.relative(path.dirname(newImporter), target));
  if (result === "") result = ".";
  result = result === "." || result === ".." ? (bare.endsWith("/") ? `${result}/` : result) : withDotPrefix(result);
  if (result === "." && bare.startsWith("./")) result = "./";
  return { ok: true, specifier: result + query };
}

/** A Python module file as a dotted path below `base` ("a/b/c.py" → "a.b.c", "a/b/__init__.py" → "a.b"). */
function dottedBelow(base: string, file: string): string | undefined {
  const relative = path.relative(base, file);
  if (relative.startsWith("..") || path.isAbsolute(relative)) return undefined;
  const parts = relative.split(path.sep);
  const last = parts.pop()!;
  if (!/^__init__\.pyi?$/.test(last)) parts.push(last.replace(/\.pyi?$/, ""));
  if (parts.length === 0 || parts.some((part) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(part))) return undefined;
  return parts.join(".");
}

/** The new Python module specifier (relative dots or absolute dotted path, as before), from `newImporter` when the importer moves too. */
export function rewritePythonSpecifier(importer: string, oldSpecifier: string, oldTarget: string, newTarget: string, newImporter: string = importer): SpecifierRewrite {
  const dots = /^\.*/.exec(oldSpecifier)![0].length;
  const module = oldSpecifier.slice(dots);
  const oldParts = module.length === 0 ? [] : module.split(".");
  // The folder the old specifier was resolved from: strip its parts off the old target.
  let base = /^__init__\.pyi?$/.test(path.basename(oldTarget)) ? path.dirname(oldTarget) : oldTarget.replace(/\.pyi?$/, "");
  for (let index = 0; index < oldParts.length; index++) base = path.dirname(base);
  if (dots === 0) {
    const dotted = dottedBelow(base, newTarget);
    return dotted ? { ok: true, specifier: dotted } : { ok: false, reason: `${path.basename(newTarget)} would leave the import root of ${oldSpecifier}` };
  }
  // Relative: dots count folders up from the importer's package.
  let from = path.dirname(newImporter);
  let up = 1;
  const newModuleFolder = path.dirname(newTarget);
  while (!(newModuleFolder === from || newModuleFolder.startsWith(from + path.sep))) {
    const parent = path.dirname(from);
    if (parent === from) return { ok: false, reason: "no common folder" };
    from = parent;
    up++;
  }
  const dotted = /^__init__\.pyi?$/.test(path.basename(newTarget)) && path.dirname(newTarget) === from ? "" : dottedBelow(from, newTarget);
  if (dotted === undefined) return { ok: false, reason: `${path.basename(newTarget)} is not importable as a module path` };
  return { ok: true, specifier: ".".repeat(up) + dotted };
}

/**
 * Replaces one specifier on a 1-based line of `text`: the quoted literal for scripts (any quote),
 * the module after `from` / `import … as` for Python. Undefined when it is not on that line.
 */
export function replaceSpecifier(text: string, line: number, family: "script" | "python", oldSpecifier: string, newSpecifier: string): string | undefined {
  const starts = lineStarts(text, 0, line + 1);
  const start = starts[line - 1];
  if (start === undefined) return undefined;
  const end = starts[line] ?? text.length;
  const current = text.slice(start, end);
  let replaced: string | undefined;
  if (family === "script") {
    const pattern = new RegExp(`(["'\`])${escapeRegExp(oldSpecifier)}\\1`);
    const match = pattern.exec(current);
    if (match) replaced = current.slice(0, match.index) + match[1] + newSpecifier + match[1] + current.slice(match.index + match[0].length);
  } else {
    const from = new RegExp(`(\\bfrom\\s+)${escapeRegExp(oldSpecifier)}(\\s+import\\b)`);
    const aliased = new RegExp(`(\\bimport\\s+(?:[\\w.]+(?:\\s+as\\s+\\w+)?\\s*,\\s*)*)${escapeRegExp(oldSpecifier)}(\\s+as\\s+\\w+)`);
    const match = from.exec(current) ?? aliased.exec(current);
    if (match) replaced = current.slice(0, match.index) + match[1] + newSpecifier + match[2] + current.slice(match.index + match[0].length);
  }
  return replaced === undefined ? undefined : text.slice(0, start) + replaced + text.slice(end);
}
