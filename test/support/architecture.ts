/**
 * The architecture checker: finds every import of a source file (static, `import type`, re-export,
 * dynamic `import()`, `typeof import()`, `createRequire(…)(…)`), the files it opens for reading,
 * the modules that load napi and the declarations of line starts, and reports what breaks the
 * rules in `test/layers.ts`. Pure: it takes file texts, so a test can feed it synthetic sources.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { BUILD_ARTIFACTS, FACADES, LAYERS, LINE_STARTS_LAYER, NAPI_LAYER, PICTURE, READS_ALLOWED, type Layer } from "../layers.ts";

export type ImportKind = "static" | "type" | "re-export" | "dynamic" | "require";

export interface ImportEdge {
  kind: ImportKind;
  specifier: string;
  /** Repository-relative target for a relative specifier; the specifier itself for a package. */
  target: string;
  line: number;
}

export interface Violation {
  /** Stable (no line numbers): the form `PENDING` entries use. */
  key: string;
  where: string;
}

/** The rules, so a test can check a variant; defaults are `test/layers.ts`. */
export interface Rules {
  layers: readonly Layer[];
  facades: typeof FACADES;
  napiLayer: string;
  lineStartsLayer: string;
  readsAllowed: readonly { where: string }[];
  artifacts: Readonly<Record<string, string>>;
}

export const RULES: Rules = {
  layers: LAYERS,
  facades: FACADES,
  napiLayer: NAPI_LAYER,
  lineStartsLayer: LINE_STARTS_LAYER,
  readsAllowed: READS_ALLOWED,
  artifacts: BUILD_ARTIFACTS,
};

const ROOT = path.join(import.meta.dir, "..", "..");

/** Every `.ts` file under `src/`, repository-relative, with its text. */
export function sourceFiles(root = ROOT): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(relative);
      else if (entry.name.endsWith(".ts")) files.set(relative, readFileSync(path.join(root, relative), "utf8"));
    }
  };
  walk("src");
  return files;
}

const parsed = new Map<string, { text: string; source: ts.SourceFile }>();

/** One parse per file text, shared by the three scans. */
function parse(file: string, text: string): ts.SourceFile {
  const known = parsed.get(file);
  if (known?.text === text) return known.source;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  parsed.set(file, { text, source });
  return source;
}

function lineOf(source: ts.SourceFile, node: ts.Node): number {
  return source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
}

function stringArgument(call: ts.CallExpression): string | undefined {
  const first = call.arguments[0];
  return first !== undefined && ts.isStringLiteralLike(first) ? first.text : undefined;
}

/** A call to `createRequire(…)`, directly or through a name bound to its result. */
function isCreateRequire(node: ts.Expression): boolean {
  return ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "createRequire";
}

function resolveTarget(file: string, specifier: string): string {
  if (!specifier.startsWith(".")) return specifier;
  return path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
}

/** Every import of one file, in every form the runtime or the compiler follows. */
export function importsOf(file: string, text: string): ImportEdge[] {
  const source = parse(file, text);
  const edges: ImportEdge[] = [];
  const add = (kind: ImportKind, specifier: string, node: ts.Node) => edges.push({ kind, specifier, target: resolveTarget(file, specifier), line: lineOf(source, node) });
  // Names bound to createRequire(…): `const require = createRequire(import.meta.url)`.
  const requires = new Set<string>();
  const collect = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer !== undefined && isCreateRequire(node.initializer)) requires.add(node.name.text);
    ts.forEachChild(node, collect);
  };
  collect(source);
  const isRequire = (callee: ts.Expression) => isCreateRequire(callee) || (ts.isIdentifier(callee) && requires.has(callee.text));
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteralLike(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly = clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      add(typeOnly ? "type" : "static", node.moduleSpecifier.text, node);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteralLike(node.moduleSpecifier)) {
      add(node.isTypeOnly ? "type" : "re-export", node.moduleSpecifier.text, node);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteralLike(node.moduleReference.expression)) {
      add(node.isTypeOnly ? "type" : "require", node.moduleReference.expression.text, node);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteralLike(node.argument.literal)) {
      add("type", node.argument.literal.text, node);
    } else if (ts.isCallExpression(node)) {
      const specifier = stringArgument(node);
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword) add("dynamic", specifier ?? "<computed>", node);
      else if (isRequire(node.expression)) add("require", specifier ?? "<computed>", node);
      // require.resolve("x") finds a package's files without loading it: not an import.
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

const FS_MODULES = new Set(["fs", "node:fs", "fs/promises", "node:fs/promises"]);
const IO_MODULES = new Set([
  ...FS_MODULES,
  "child_process",
  "node:child_process",
  "net",
  "node:net",
  "http",
  "node:http",
  "https",
  "node:https",
  "dgram",
  "node:dgram",
  "worker_threads",
  "node:worker_threads",
]);
const READ_CALLS = new Set(["open", "openSync", "readFile", "readFileSync", "createReadStream", "openAsBlob"]);

/** An open whose flags say write-only or directory: not a read of a file's contents. */
function opensForWriteOrDirectory(call: ts.CallExpression, name: string): boolean {
  if (name !== "open" && name !== "openSync") return false;
  const flags = call.arguments[1];
  if (flags === undefined) return false;
  if (ts.isStringLiteralLike(flags)) return !flags.text.includes("r") && !flags.text.includes("+");
  const written = flags.getText();
  return /O_WRONLY|O_DIRECTORY/.test(written);
}

/** The calls of one file that open a file for reading: through `node:fs` (named, namespace or `promises` bindings) or the TypeScript compiler's `sys`. */
export function fileReadsOf(file: string, text: string): { call: string; line: number }[] {
  const source = parse(file, text);
  const direct = new Set<string>(); // readFileSync, open, … imported by name
  const namespaces = new Set<string>(); // fs, fsp, promises as fs, …
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteralLike(statement.moduleSpecifier) || !FS_MODULES.has(statement.moduleSpecifier.text)) continue;
    const clause = statement.importClause;
    if (clause === undefined || clause.isTypeOnly) continue;
    if (clause.name !== undefined) namespaces.add(clause.name.text);
    const bindings = clause.namedBindings;
    if (bindings !== undefined && ts.isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
    if (bindings !== undefined && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) {
        const imported = (element.propertyName ?? element.name).text;
        if (imported === "promises") namespaces.add(element.name.text);
        else if (READ_CALLS.has(imported)) direct.add(element.name.text);
      }
    }
  }
  const reads: { call: string; line: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      let name: string | undefined;
      if (ts.isIdentifier(callee) && direct.has(callee.text)) name = callee.text;
      else if (ts.isPropertyAccessExpression(callee) && READ_CALLS.has(callee.name.text)) {
        const owner = callee.expression;
        const base = ts.isPropertyAccessExpression(owner) && owner.name.text === "promises" ? owner.expression : owner;
        if (ts.isIdentifier(base) && namespaces.has(base.text)) name = callee.name.text;
      }
      // The compiler's own file system (`ts.sys.readFile`) reads too.
      if (
        name === undefined && ts.isPropertyAccessExpression(callee) && callee.name.text === "readFile" && ts.isPropertyAccessExpression(callee.expression) &&
        callee.expression.name.text === "sys"
      ) name = "sys.readFile";
      if (name !== undefined && !opensForWriteOrDirectory(node, name)) reads.push({ call: name, line: lineOf(source, node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return reads;
}

const LINE_STARTS_NAME = /^(compute|build|get)?line(Start|Offset)s(Of|For)?$/i;

function functionName(node: ts.FunctionLikeDeclaration): string {
  if (node.name !== undefined) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText();
  return "<anonymous>";
}

function isExported(node: ts.Node): boolean {
  const statement = ts.isVariableDeclaration(node.parent) ? node.parent.parent.parent : node;
  return ts.canHaveModifiers(statement) && (ts.getModifiers(statement) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
}

/** A line-feed test: the string "\n", or 0x0a / 10 compared with a char code. */
function isLineFeed(node: ts.Node): boolean {
  if (ts.isStringLiteralLike(node)) return node.text === "\n";
  if (!ts.isNumericLiteral(node) || (node.text !== "10" && node.getText() !== "0x0a" && node.getText() !== "0x0A")) return false;
  return ts.isBinaryExpression(node.parent) && /charCodeAt|code/i.test(node.parent.getText());
}

/**
 * Functions of one file that compute where lines start: named so (`lineStarts`, `lineOffsets`,
 * `lineStartsOf`, …), or doing it under another name (a body that tests for a line feed and pushes
 * `index + 1`: the mechanism, whatever it is called).
 */
export function lineStartsDeclarationsOf(file: string, text: string): { name: string; exported: boolean }[] {
  const source = parse(file, text);
  const found: { name: string; exported: boolean }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const declaration = node as ts.FunctionLikeDeclaration;
      const name = functionName(declaration);
      let pushesNext = false;
      let testsLineFeed = false;
      const inner = (child: ts.Node) => {
        if (child !== declaration.body && ts.isFunctionLike(child)) return; // nested functions are visited on their own
        if (ts.isCallExpression(child) && ts.isPropertyAccessExpression(child.expression) && child.expression.name.text === "push" && child.arguments.length === 1) {
          const argument = child.arguments[0]!;
          if (ts.isBinaryExpression(argument) && argument.operatorToken.kind === ts.SyntaxKind.PlusToken && argument.right.getText() === "1") pushesNext = true;
        }
        if (isLineFeed(child)) testsLineFeed = true;
        ts.forEachChild(child, inner);
      };
      inner(declaration.body!);
      if (LINE_STARTS_NAME.test(name) || (pushesNext && testsLineFeed)) found.push({ name, exported: isExported(declaration) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The layer a repository-relative path belongs to (the longest matching prefix), if any. */
export function layerOf(file: string, layers: readonly Layer[] = LAYERS): Layer | undefined {
  let best: { layer: Layer; length: number } | undefined;
  for (const layer of layers) {
    for (const prefix of layer.paths) {
      const matches = prefix.endsWith("/") ? file.startsWith(prefix) : file === prefix;
      if (matches && (best === undefined || prefix.length > best.length)) best = { layer, length: prefix.length };
    }
  }
  return best?.layer;
}

function isNapi(specifier: string): boolean {
  return specifier === "@ast-grep/napi" || specifier.startsWith("@ast-grep/napi/") || specifier.startsWith("@ast-grep/lang-");
}

function under(file: string, where: string): boolean {
  return where.endsWith("/") ? file.startsWith(where) : file === where;
}

/** Everything in these files that breaks the rules, sorted by key. */
export function checkArchitecture(files: ReadonlyMap<string, string>, rules: Rules = RULES): Violation[] {
  const violations = new Map<string, Violation>();
  const napiLoaders: string[] = [];
  const lineStartsHomes: string[] = [];
  const lineStartCopies: { file: string; name: string }[] = [];
  const report = (key: string, where: string) => {
    if (!violations.has(key)) violations.set(key, { key, where });
  };
  for (const [file, text] of files) {
    const from = layerOf(file, rules.layers);
    if (from === undefined) {
      report(`unplaced: ${file} belongs to no layer`, file);
      continue;
    }
    for (const edge of importsOf(file, text)) {
      const where = `${file}:${edge.line}`;
      if (edge.specifier === "<computed>") {
        report(`computed: ${file} ${edge.kind}s a computed specifier`, where);
        continue;
      }
      if (from.pure && edge.kind !== "type" && IO_MODULES.has(edge.specifier)) report(`pure: ${file} imports ${edge.specifier}`, where);
      if (isNapi(edge.specifier) && edge.kind !== "type") {
        if (from.name !== rules.napiLayer) report(`napi: ${file} loads @ast-grep/napi`, where);
        else if (!napiLoaders.includes(file)) napiLoaders.push(file);
      }
      if (!edge.specifier.startsWith(".")) continue;
      let target = edge.target;
      const built = rules.artifacts[target];
      if (built !== undefined) target = built;
      else if (!target.startsWith("src/") && target !== "package.json") {
        report(`outside: ${file} -> ${target}`, where);
        continue;
      } else if (target.startsWith("src/") && !files.has(target)) {
        // Not a source file here: a file moved away, or something built that BUILD_ARTIFACTS must name.
        report(`missing: ${file} -> ${target}`, where);
      }
      if (target === "package.json" && from.name !== "core") report(`package: ${file} imports package.json`, where);
      const to = layerOf(target, rules.layers);
      if (to === undefined) {
        report(`unplaced: ${target} (imported by ${file}) belongs to no layer`, where);
        continue;
      }
      if (to !== from && !from.may.includes(to.name)) report(`layer: ${file} -> ${target}`, where);
      for (const facade of rules.facades) {
        if (target.startsWith(facade.folder) && !file.startsWith(facade.folder) && facade.for.includes(from.name) && target !== facade.entry) {
          report(`facade: ${file} -> ${target}`, where);
        }
      }
    }
    if (!rules.readsAllowed.some((allowed) => under(file, allowed.where))) {
      for (const read of fileReadsOf(file, text)) report(`reader: ${file} opens files (${read.call})`, `${file}:${read.line}`);
    }
    const computations = lineStartsDeclarationsOf(file, text);
    if (from.name === rules.lineStartsLayer && computations.some((declaration) => declaration.name === "lineStarts" && declaration.exported)) lineStartsHomes.push(file);
    else for (const declaration of computations) lineStartCopies.push({ file, name: declaration.name });
  }
  if (napiLoaders.length > 1) report(`napi: more than one loader in ${rules.napiLayer}/ (${napiLoaders.sort().join(", ")})`, napiLoaders[0]!);
  if (lineStartsHomes.length === 0) report(`lineStarts: ${rules.lineStartsLayer}/ exports no lineStarts`, `src/${rules.lineStartsLayer}/`);
  if (lineStartsHomes.length > 1) report(`lineStarts: more than one lineStarts in ${rules.lineStartsLayer}/ (${lineStartsHomes.sort().join(", ")})`, lineStartsHomes[0]!);
  for (const copy of lineStartCopies) report(`lineStarts: ${copy.file} computes line starts in ${copy.name}`, copy.file);
  return [...violations.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Layers whose `may` lists form a cycle, or that may import a layer drawn above them. */
export function tableProblems(layers: readonly Layer[] = LAYERS, picture: readonly (readonly string[])[] = PICTURE): string[] {
  const problems: string[] = [];
  const row = new Map<string, number>();
  picture.forEach((names, index) => {
    for (const name of names) row.set(name, index);
  });
  for (const layer of layers) {
    const own = row.get(layer.name);
    if (own === undefined) problems.push(`${layer.name} is not in the picture`);
    for (const other of layer.may) {
      const theirs = row.get(other);
      if (theirs === undefined) problems.push(`${layer.name} may import ${other}, which is no layer`);
      else if (own !== undefined && theirs <= own) problems.push(`${layer.name} may import ${other}, which is not below it`);
    }
  }
  return problems;
}

const BEGIN = "<!-- layers:begin (generated from test/layers.ts: npx bun scripts/gen-architecture.ts) -->";
const END = "<!-- layers:end -->";

/** The layer table of ARCHITECTURE.md and the reads allowed beside the reader: "never" names the forbidden layers below or beside (every layer above is forbidden anyway). */
export function renderLayerTable(
  layers: readonly Layer[] = LAYERS,
  picture: readonly (readonly string[])[] = PICTURE,
  reads: readonly { where: string; why: string }[] = READS_ALLOWED,
): string {
  const code = (items: readonly string[]) => (items.length === 0 ? "—" : items.map((item) => `\`${item}\``).join(", "));
  const row = (name: string) => picture.findIndex((names) => names.includes(name));
  const lines = ["| layer | paths | room | may import | never (besides every layer above) |", "|---|---|---|---|---|"];
  layers.forEach((layer) => {
    const never = layers.map((other) => other.name).filter((name) => name !== layer.name && row(name) >= row(layer.name) && !layer.may.includes(name));
    lines.push(`| **${layer.name}** | ${code(layer.paths)} | ${layer.room}${layer.pure ? "; no file system, process or network" : ""} | ${code(layer.may)} | ${code(never)} |`);
  });
  lines.push("", "Files are opened for reading only here (`READS_ALLOWED`):");
  for (const allowed of reads) lines.push(`- \`${allowed.where}\`: ${allowed.why}`);
  return lines.join("\n");
}

/** The document with its generated block replaced (undefined when the markers are missing). */
export function withLayerTable(document: string, table = renderLayerTable()): string | undefined {
  const begin = document.indexOf(BEGIN);
  const end = document.indexOf(END);
  if (begin === -1 || end < begin) return undefined;
  return `${document.slice(0, begin + BEGIN.length)}\n${table}\n${document.slice(end)}`;
}

/**
 * Top-level mutable state of one source file: every `let`, and every lower-case name bound to a new
 * Map, Set, WeakMap, WeakSet or LruMap (upper-case sets are constant tables by this project's naming).
 */
export function moduleStateOf(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/^(?:export )?(?:let ([A-Za-z_$][\w$]*)|const ([a-z_$][\w$]*)(?::[^=\n]+)? = new (?:Map|Set|WeakMap|WeakSet|LruMap)\b)/gm)) {
    names.push((match[1] ?? match[2])!);
  }
  return names;
}
