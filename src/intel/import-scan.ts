/**
 * Which JS/TS and Python files import a given file: the reference check file_delete runs until a
 * full import graph exists. Directories are walked only through the workspace (so the policy sees
 * every path), vendor and build folders are skipped, and a file is parsed only when it mentions
 * the target's name at all.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { SgNode } from "@ast-grep/napi";
import { isToolError, ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { log } from "../core/log.ts";
import { looksBinary } from "../helpers/encoding.ts";
import { languageFromPath } from "../helpers/language.ts";
import type { DirectoryEntry, ResolvedPath, Workspace } from "../policy/workspace.ts";
import { parseTree } from "./languages.ts";

export interface ImportScanOptions {
  signal?: AbortSignal;
  /** Files (of any kind) looked at before the scan gives up with too_many_items. */
  maxFiles?: number;
}

/** Dependency, build-output, cache and VCS folders: never the source of a relative import that matters. */
const SKIPPED_DIRECTORIES = new Set([
  "node_modules", "bower_components", "jspm_packages", "vendor",
  ".git", ".hg", ".svn",
  "dist", "build", "coverage", "target",
  ".next", ".nuxt", ".svelte-kit", ".turbo", ".parcel-cache", ".cache",
  "__pycache__", ".venv", "venv", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", "site-packages",
]);

type Family = "script" | "python";

const SCRIPT_EXTENSIONS = new Set([".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"]);
const PYTHON_EXTENSIONS = new Set([".py", ".pyi"]);

/** Extensions TypeScript and Node try for an extensionless relative specifier, in order. */
const RESOLVED_EXTENSIONS = [".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".json"];
/** NodeNext: a specifier names the emitted file; the source has the TypeScript extension. */
const SOURCE_FOR_EMITTED: Readonly<Record<string, string[]>> = {
  ".js": [".ts", ".tsx", ".d.ts"],
  ".jsx": [".tsx"],
  ".mjs": [".mts", ".d.mts"],
  ".cjs": [".cts", ".d.cts"],
};

function familyOf(name: string): Family | undefined {
  const extension = path.extname(name).toLowerCase();
  if (SCRIPT_EXTENSIONS.has(extension)) return "script";
  if (PYTHON_EXTENSIONS.has(extension)) return "python";
  return undefined;
}

interface Candidate {
  entry: DirectoryEntry;
  family: Family;
}

interface WalkResult {
  candidates: Candidate[];
  /** Real paths of every file seen: what a specifier can resolve to. */
  files: Set<string>;
}

function tooManyFiles(limit: number): ToolError {
  return new ToolError("too_many_items", `The importer scan stopped after ${limit} files without covering the workspace.`, {
    hint: "Narrow the workspace roots, or skip the reference check where the tool allows it (file_delete: force: true).",
    details: { maxFiles: limit },
  });
}

async function walk(workspace: Workspace, maxFiles: number, signal: AbortSignal | undefined): Promise<WalkResult> {
  const candidates: Candidate[] = [];
  const files = new Set<string>();
  const visited = new Set<string>();
  const queue = workspace.roots.map((root) => root.real);
  let seen = 0;
  while (queue.length > 0) {
    signal?.throwIfAborted();
    const directory = queue.shift()!;
    if (visited.has(directory)) continue;
    visited.add(directory);
    let entries: DirectoryEntry[];
    try {
      entries = (await workspace.listDirectory(directory)).entries;
    } catch (error) {
      // A folder that vanished or cannot be read holds no importer we could see.
      if (!isToolError(error)) throw error;
      log.debug("importer scan skipped a directory", { directory, code: error.code });
      continue;
    }
    for (const entry of entries) {
      if (entry.kind === "directory") {
        if (!SKIPPED_DIRECTORIES.has(entry.name) && !visited.has(entry.real)) queue.push(entry.real);
        continue;
      }
      if (entry.kind !== "file") continue;
      seen += 1;
      if (seen > maxFiles) throw tooManyFiles(maxFiles);
      files.add(entry.real);
      const family = familyOf(entry.name);
      if (family) candidates.push({ entry, family });
    }
  }
  return { candidates, files };
}

// ---------------------------------------------------------------- the target

interface TargetFacts {
  real: string;
  isPython: boolean;
  /** Literal strings one of which any importer's text must contain. */
  needles: string[];
}

function targetFacts(target: ResolvedPath): TargetFacts {
  const name = path.basename(target.real);
  const directoryName = path.basename(path.dirname(target.real));
  const extension = path.extname(name);
  const stem = name.split(".")[0] || name.slice(0, name.length - extension.length) || name;
  const needles = [stem];
  const isIndex = /^index\.[^.]+$/i.test(name) || /^index\.d\.[^.]+$/i.test(name);
  const isPackageInit = /^__init__\.pyi?$/.test(name);
  // Index files and package inits are named by their folder, or by "." / ".." without any name.
  if (isIndex) needles.push(directoryName, "'.'", '"."', "'..'", '".."', "'./'", '"./"', "'../'", '"../"', "`.`", "`..`");
  if (isPackageInit) needles.push(directoryName, "from .");
  return { real: target.real, isPython: PYTHON_EXTENSIONS.has(extension.toLowerCase()), needles: needles.filter((needle) => needle.length > 0) };
}

// ---------------------------------------------------------------- JS / TS

function scriptRule(language: string) {
  const importCall = {
    kind: "call_expression",
    has: { field: "function", any: [{ kind: "import" }, { kind: "identifier", regex: "^require$" }] },
  };
  const inCall = { kind: "arguments", inside: importCall };
  const any: object[] = [
    { kind: "string", inside: { kind: "import_statement" } },
    { kind: "string", inside: { kind: "export_statement", field: "source" } },
    { kind: "string", inside: inCall },
    { kind: "template_string", inside: inCall },
  ];
  // `import x = require("./y")` exists only in the TypeScript grammars.
  if (language !== "javascript") any.push({ kind: "string", inside: { kind: "import_require_clause" } });
  return { rule: { any } };
}

function specifiersOf(root: SgNode, language: string): string[] {
  const specifiers: string[] = [];
  for (const node of root.findAll(scriptRule(language))) {
    const text = node.text();
    if (text.length < 2 || text.includes("${")) continue;
    specifiers.push(text.slice(1, -1));
  }
  return specifiers;
}

function resolveScriptSpecifier(fromDirectory: string, specifier: string, files: Set<string>): string | undefined {
  const relative = specifier === "." || specifier === ".." || specifier.startsWith("./") || specifier.startsWith("../");
  if (!relative) return undefined;
  // Bundler queries and fragments ("./icon.svg?raw") are not part of the file name.
  const base = path.resolve(fromDirectory, specifier.replace(/[?#].*$/, ""));
  const candidates = [base];
  const extension = path.extname(base);
  for (const source of SOURCE_FOR_EMITTED[extension] ?? []) candidates.push(base.slice(0, -extension.length) + source);
  for (const added of RESOLVED_EXTENSIONS) candidates.push(base + added);
  for (const added of RESOLVED_EXTENSIONS) candidates.push(path.join(base, `index${added}`));
  return candidates.find((candidate) => files.has(candidate));
}

// ---------------------------------------------------------------- Python

interface PythonReference {
  /** Directories the dotted module path is looked up from. */
  bases: string[];
  module: string[];
  /** Names imported from the module, each possibly a submodule. */
  names: string[];
}

function dottedParts(node: SgNode | null): string[] {
  if (!node) return [];
  const dotted = node.kind() === "aliased_import" ? node.field("name") : node;
  return dotted ? String(dotted.text()).split(".").map((part) => part.trim()).filter((part) => part.length > 0) : [];
}

function pythonReferences(root: SgNode, fromDirectory: string, absoluteBases: string[]): PythonReference[] {
  const references: PythonReference[] = [];
  const bases = [fromDirectory, ...absoluteBases];
  for (const statement of root.findAll({ rule: { any: [{ kind: "import_statement" }, { kind: "import_from_statement" }] } })) {
    if (statement.kind() === "import_statement") {
      for (const name of statement.fieldChildren("name")) references.push({ bases, module: dottedParts(name), names: [] });
      continue;
    }
    const moduleNode = statement.field("module_name");
    const names = (statement.fieldChildren("name")).map((name) => dottedParts(name).join(".")).filter((name) => name.length > 0);
    if (!moduleNode) continue;
    if (moduleNode.kind() === "relative_import") {
      const prefix = moduleNode.children().find((child) => child.kind() === "import_prefix");
      const level = prefix ? prefix.text().length : 1;
      let base = fromDirectory;
      for (let up = 1; up < level; up++) base = path.dirname(base);
      const dotted = moduleNode.children().find((child) => child.kind() === "dotted_name") ?? null;
      references.push({ bases: [base], module: dottedParts(dotted), names });
    } else {
      references.push({ bases, module: dottedParts(moduleNode), names });
    }
  }
  return references;
}

function pythonModuleFiles(base: string, parts: string[]): string[] {
  const location = path.join(base, ...parts);
  const files = [path.join(location, "__init__.py"), path.join(location, "__init__.pyi")];
  if (parts.length > 0) files.push(`${location}.py`, `${location}.pyi`);
  return files;
}

function pythonReferencesTarget(reference: PythonReference, target: string): boolean {
  for (const base of reference.bases) {
    if (pythonModuleFiles(base, reference.module).includes(target)) return true;
    for (const name of reference.names) {
      if (pythonModuleFiles(base, [...reference.module, ...name.split(".")]).includes(target)) return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------- the scan

async function readForScan(real: string): Promise<string | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(real);
  } catch (error) {
    log.debug("importer scan could not read a file", { path: real, error });
    return undefined;
  }
  if (bytes.length > LIMITS.intel.importScanMaxFileBytes || looksBinary(bytes, LIMITS.read.binarySniffBytes)) return undefined;
  return bytes.toString("utf8");
}

function importsTarget(candidate: Candidate, text: string, target: TargetFacts, files: Set<string>, absoluteBases: string[]): boolean {
  const language = languageFromPath(candidate.entry.name);
  if (language === null) return false;
  const tree = parseTree(language, text);
  if (!tree) return false;
  const fromDirectory = path.dirname(candidate.entry.real);
  if (candidate.family === "script") {
    return specifiersOf(tree.root(), language).some((specifier) => resolveScriptSpecifier(fromDirectory, specifier, files) === target.real);
  }
  return pythonReferences(tree.root(), fromDirectory, absoluteBases).some((reference) => pythonReferencesTarget(reference, target.real));
}

/**
 * Display paths of the JS/TS and Python files under the workspace roots that import `target`:
 * relative import/export-from/require/import() specifiers (with TypeScript's extension and index
 * resolution, NodeNext ".js" → ".ts"), Python relative imports, and absolute Python imports
 * resolved from the importer's folder, each root and each root's src/. Throws too_many_items when
 * the workspace has more than maxFiles files, so a partial scan never passes for a complete one.
 */
export async function findImporters(target: ResolvedPath, workspace: Workspace, options: ImportScanOptions = {}): Promise<string[]> {
  if (target.kind !== "file") return [];
  const { signal } = options;
  const maxFiles = options.maxFiles ?? LIMITS.intel.importScanMaxFiles;
  const facts = targetFacts(target);
  const { candidates, files } = await walk(workspace, maxFiles, signal);
  // The target may sit in a skipped folder; specifiers still resolve to it.
  files.add(facts.real);
  const absoluteBases = workspace.roots.flatMap((root) => [root.real, path.join(root.real, "src")]);
  const relevant = candidates.filter((candidate) => candidate.entry.real !== facts.real && (candidate.family === "script" || facts.isPython));

  const importers: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < relevant.length) {
      signal?.throwIfAborted();
      const candidate = relevant[next++]!;
      const text = await readForScan(candidate.entry.real);
      if (text === undefined || !facts.needles.some((needle) => text.includes(needle))) continue;
      if (importsTarget(candidate, text, facts, files, absoluteBases)) importers.push(candidate.entry.display);
    }
  };
  await Promise.all(Array.from({ length: Math.min(LIMITS.intel.importScanConcurrency, relevant.length) }, worker));
  signal?.throwIfAborted();
  return [...new Set(importers)].sort();
}
