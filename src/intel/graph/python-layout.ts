/**
 * Where a Python project says its packages live: `pyproject.toml` (setuptools `packages`,
 * `package-dir`, `packages.find.where`; poetry `packages = [{ include, from }]`; hatch's wheel
 * `packages`) and `setup.cfg` (`[options] packages`, `package_dir`, `packages = find:` with
 * `[options.packages.find] where`). Pure parsing: the caller reads the files through ConfigFiles.
 */
import path from "node:path";
import { parse as parseToml } from "smol-toml";

/** A folder top-level packages sit in (the folder a project puts on the import path); `names` limits which. */
interface PythonBase {
  directory: string;
  names?: ReadonlySet<string>;
}

/** A dotted package name placed in a folder of another name (`package-dir = {"acme" = "lib/impl"}`, a root that is a package). */
interface PythonAnchor {
  name: readonly string[];
  directory: string;
}

export interface PythonLayout {
  bases: PythonBase[];
  anchors: PythonAnchor[];
}

type Table = Record<string, unknown>;

function table(value: unknown): Table | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Table) : undefined;
}

function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** The top-level names of dotted package names ("acme.sub" → "acme"). */
function topNames(packages: readonly string[]): Set<string> {
  return new Set(packages.map((name) => name.split(".")[0]!.trim()).filter((name) => name.length > 0));
}

/** Shared by both files: a package-dir mapping, and either a package list or find's `where` folders. */
function setuptoolsLayout(projectDirectory: string, packageDir: Map<string, string>, packages: string[] | undefined, where: string[] | undefined): PythonLayout {
  const layout: PythonLayout = { bases: [], anchors: [] };
  const at = (relative: string) => path.resolve(projectDirectory, relative);
  for (const [name, directory] of packageDir) {
    if (name === "") layout.bases.push({ directory: at(directory) });
    else layout.anchors.push({ name: name.split("."), directory: at(directory) });
  }
  for (const directory of where ?? []) layout.bases.push({ directory: at(directory) });
  // Listed packages without a "" mapping sit beside the manifest.
  if (packages && packages.length > 0 && !packageDir.has("")) layout.bases.push({ directory: projectDirectory, names: topNames(packages) });
  return layout;
}

export function pyprojectLayout(projectDirectory: string, text: string): PythonLayout {
  let document: Table;
  try {
    document = parseToml(text) as Table;
  } catch {
    return { bases: [], anchors: [] };
  }
  const tool = table(document.tool);
  const setuptools = table(tool?.setuptools);
  const packageDir = new Map<string, string>();
  for (const [name, directory] of Object.entries(table(setuptools?.["package-dir"]) ?? {})) if (typeof directory === "string") packageDir.set(name, directory);
  const packagesValue = setuptools?.packages;
  const find = table(table(packagesValue)?.find);
  const layout = setuptoolsLayout(
    projectDirectory,
    packageDir,
    Array.isArray(packagesValue) ? strings(packagesValue) : undefined,
    find ? (find.where === undefined ? ["."] : strings(find.where)) : undefined,
  );

  const poetry = table(tool?.poetry);
  for (const entry of Array.isArray(poetry?.packages) ? poetry.packages : []) {
    const include = table(entry)?.include;
    if (typeof include !== "string") continue;
    // "pkg", "pkg/**/*.py" or "module.py": the first segment names the top-level package or module.
    const name = include.split("/")[0]!.replace(/\.py$/, "");
    if (!/^[A-Za-z_]\w*$/.test(name)) continue;
    const from = table(entry)?.from;
    layout.bases.push({ directory: path.resolve(projectDirectory, typeof from === "string" ? from : "."), names: new Set([name]) });
  }

  const wheel = table(table(table(table(tool?.hatch)?.build)?.targets)?.wheel);
  for (const packagePath of strings(wheel?.packages)) {
    const normalized = packagePath.replace(/\/+$/, "");
    const name = path.posix.basename(normalized);
    if (!/^[A-Za-z_]\w*$/.test(name)) continue;
    layout.bases.push({ directory: path.resolve(projectDirectory, path.posix.dirname(normalized)), names: new Set([name]) });
  }
  return layout;
}

/** INI sections → key → value, with indented continuation lines joined by newlines (configparser's rules, enough for setup.cfg). */
function parseIni(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let section: Map<string, string> | undefined;
  let key: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    if (/^\s*[#;]/.test(raw)) continue;
    if (raw.trim().length === 0) {
      key = undefined;
      continue;
    }
    const header = /^\[([^\]]+)\]\s*$/.exec(raw);
    if (header) {
      section = new Map();
      sections.set(header[1]!.trim(), section);
      key = undefined;
      continue;
    }
    if (/^\s/.test(raw) && key !== undefined && section) {
      section.set(key, `${section.get(key)}\n${raw.trim()}`);
      continue;
    }
    const assignment = /^([^=:]+?)\s*[=:]\s*(.*)$/.exec(raw);
    if (assignment && section) {
      key = assignment[1]!.trim();
      section.set(key, assignment[2]!.trim());
    }
  }
  return sections;
}

/** A setup.cfg list: one item a line, or comma-separated. */
function iniList(value: string | undefined): string[] {
  return (value ?? "").split(/[\n,]/).map((item) => item.trim()).filter((item) => item.length > 0);
}

export function setupCfgLayout(projectDirectory: string, text: string): PythonLayout {
  const sections = parseIni(text);
  const options = sections.get("options");
  const packageDir = new Map<string, string>();
  // Dict items are `name = folder` ("= src" for the root package), a line or a comma apart.
  for (const item of iniList(options?.get("package_dir"))) {
    const split = item.indexOf("=");
    if (split === -1) continue;
    packageDir.set(item.slice(0, split).trim(), item.slice(split + 1).trim());
  }
  const packages = options?.get("packages")?.trim();
  const finds = packages === "find:" || packages === "find_namespace:";
  const where = finds ? iniList(sections.get("options.packages.find")?.get("where")) : undefined;
  // find: without where searches the package_dir "" folder, else the project folder.
  const searched = where && where.length === 0 ? (packageDir.has("") ? [] : ["."]) : where;
  return setuptoolsLayout(projectDirectory, packageDir, finds ? undefined : iniList(packages), searched);
}
