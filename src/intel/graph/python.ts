/**
 * Python module resolution: relative imports climb one folder per dot past the first; absolute
 * imports are looked up from the importer's package root (the folder above its outermost
 * `__init__.py`), the importer's own folder, every root and its `src/`, and any other folder that
 * holds a top-level package of that name. A module is `name.py`/`.pyi` or a package's
 * `__init__.py`; folders without one are namespace packages. `from pkg import sub` also depends on
 * the submodule `pkg/sub.py` when it exists. A root that is itself a package (`__init__.py` at the
 * root) is imported by the root folder's name, and packages a project declares in pyproject.toml or
 * setup.cfg are looked up where it puts them, before any other folder of the same name.
 */
import path from "node:path";
import type { ImportFact } from "../facts/types.ts";
import { type LanguageResolver, type ResolveContext, unresolved } from "./context.ts";
import { type PythonLayout, pyprojectLayout, setupCfgLayout } from "./python-layout.ts";
import type { GraphFile, Resolution } from "./types.ts";

/** Top-level modules of the standard library (CPython 3.12), for the builtin flag on externals. */
const STDLIB = new Set(
  (
    "__future__ _thread abc aifc argparse array ast asynchat asyncio asyncore atexit audioop base64 bdb binascii bisect builtins bz2 " +
    "calendar cgi cgitb chunk cmath cmd code codecs codeop collections colorsys compileall concurrent configparser contextlib contextvars copy " +
    "copyreg cProfile crypt csv ctypes curses dataclasses datetime dbm decimal difflib dis doctest email encodings ensurepip enum errno " +
    "faulthandler fcntl filecmp fileinput fnmatch fractions ftplib functools gc getopt getpass gettext glob graphlib grp gzip hashlib heapq " +
    "hmac html http idlelib imaplib imghdr importlib inspect io ipaddress itertools json keyword lib2to3 linecache locale logging lzma " +
    "mailbox mailcap marshal math mimetypes mmap modulefinder msvcrt multiprocessing netrc nis nntplib numbers operator optparse os " +
    "ossaudiodev pathlib pdb pickle pickletools pipes pkgutil platform plistlib poplib posix pprint profile pstats pty pwd py_compile " +
    "pyclbr pydoc queue quopri random re readline reprlib resource rlcompleter runpy sched secrets select selectors shelve shlex shutil " +
    "signal site smtplib sndhdr socket socketserver spwd sqlite3 ssl stat statistics string stringprep struct subprocess sunau symtable sys " +
    "sysconfig syslog tabnanny tarfile telnetlib tempfile termios textwrap threading time timeit tkinter token tokenize tomllib trace " +
    "traceback tracemalloc tty turtle types typing unicodedata unittest urllib uu uuid venv warnings wave weakref webbrowser winreg " +
    "winsound wsgiref xdrlib xml xmlrpc zipapp zipfile zipimport zlib zoneinfo typing_extensions"
  ).split(" "),
);

interface PythonSpecifier {
  level: number;
  module: string[];
}

function parsePythonSpecifier(specifier: string): PythonSpecifier {
  const dots = /^\.*/.exec(specifier)?.[0].length ?? 0;
  return { level: dots, module: specifier.slice(dots).split(".").map((part) => part.trim()).filter((part) => part.length > 0) };
}

/** Names of `from X import a, b` that may be submodules; `import a.b` binds no submodule name. */
function importedNames(fact: ImportFact, parsed: PythonSpecifier): string[] {
  const dotted = parsed.module.join(".");
  return fact.names
    .map((name) => name.imported)
    .filter((name) => name !== "*" && name.length > 0 && !name.includes(".") && (parsed.level > 0 || name !== dotted));
}

export class PythonResolver implements LanguageResolver {
  readonly #context: ResolveContext;
  #topLevel: Map<string, string[]> | undefined;
  #layout: Promise<PythonLayout> | undefined;

  constructor(context: ResolveContext) {
    this.#context = context;
  }

  /** The module file for a dotted path below `base`, if indexed. */
  moduleFile(base: string, parts: readonly string[]): string | undefined {
    const location = parts.length === 0 ? base : path.join(base, ...parts);
    const candidates = parts.length === 0 ? [] : [`${location}.py`, `${location}.pyi`];
    candidates.push(path.join(location, "__init__.py"), path.join(location, "__init__.pyi"));
    return this.#context.table.first(candidates);
  }

  #isPackage(directory: string): boolean {
    return this.moduleFile(directory, []) !== undefined;
  }

  /** The folder above the outermost package containing `directory` (the folder itself when it is no package). */
  packageRoot(directory: string, root: string): string {
    let current = directory;
    while (this.#isPackage(current) && current !== root && current.length > root.length) current = path.dirname(current);
    return current;
  }

  /** Top-level package name → folders it sits in. */
  #topLevelPackages(): Map<string, string[]> {
    if (this.#topLevel) return this.#topLevel;
    const map = new Map<string, string[]>();
    for (const file of this.#context.table.byReal.values()) {
      if (!/^__init__\.pyi?$/.test(path.basename(file.real))) continue;
      const packageDirectory = path.dirname(file.real);
      const parent = path.dirname(packageDirectory);
      if (this.#isPackage(parent) || packageDirectory === file.rootReal) continue;
      const name = path.basename(packageDirectory);
      const list = map.get(name) ?? [];
      if (!list.includes(parent)) list.push(parent);
      map.set(name, list);
    }
    this.#topLevel = map;
    return map;
  }

  #targetsFrom(base: string, parsed: PythonSpecifier, names: string[]): string[] {
    return this.#targetsAt(base, parsed.module, names);
  }

  #targetsAt(base: string, parts: readonly string[], names: string[]): string[] {
    const targets: string[] = [];
    const module = this.moduleFile(base, parts);
    if (module) targets.push(module);
    const location = parts.length === 0 ? base : path.join(base, ...parts);
    // A namespace package (no __init__) still holds submodules.
    if (module || this.#context.table.isDirectory(location)) {
      for (const name of names) {
        const submodule = this.moduleFile(base, [...parts, name]);
        if (submodule && !targets.includes(submodule)) targets.push(submodule);
      }
    }
    return targets;
  }

  /** Read once per graph build, before the first import resolves, so the order of files does not matter. */
  async prepare(): Promise<void> {
    await (this.#layout ??= this.#loadLayout());
  }

  /**
   * Declared layouts of every project the index shows (a folder holding pyproject.toml, setup.cfg or
   * setup.py, and each root), in path order, plus the roots that are packages themselves.
   */
  async #loadLayout(): Promise<PythonLayout> {
    const layout: PythonLayout = { bases: [], anchors: [] };
    const projects = new Set<string>(this.#context.configs.workspace.roots.map((root) => root.real));
    for (const real of this.#context.table.byReal.keys()) {
      if (/^(?:pyproject\.toml|setup\.cfg|setup\.py)$/.test(path.basename(real))) projects.add(path.dirname(real));
    }
    for (const directory of [...projects].sort()) {
      for (const [name, parse] of [["pyproject.toml", pyprojectLayout], ["setup.cfg", setupCfgLayout]] as const) {
        const read = await this.#context.configs.read(path.join(directory, name));
        if (read.status !== "ok") continue;
        const declared = parse(path.dirname(read.real), read.text);
        // A declared folder outside the roots is never looked into.
        layout.bases.push(...declared.bases.filter((base) => this.#context.configs.inside(base.directory)));
        layout.anchors.push(...declared.anchors.filter((anchor) => this.#context.configs.inside(anchor.directory)));
      }
    }
    for (const root of this.#context.configs.workspace.roots) {
      if (!this.#isPackage(root.real)) continue;
      // Imported by the folder's name: the one the user gave, and the real one when a link renames it.
      for (const name of new Set([path.basename(root.path), path.basename(root.real)])) layout.anchors.push({ name: [name], directory: root.real });
    }
    // The longest name first (a named package before a folder of packages), sorted here once: the sort is stable, so each
    // import's matching anchors keep this order and the order they were declared in.
    layout.anchors.sort((a, b) => b.name.length - a.name.length);
    return layout;
  }

  async resolve(file: GraphFile, fact: ImportFact): Promise<Resolution> {
    const layout = await (this.#layout ??= this.#loadLayout());
    const parsed = parsePythonSpecifier(fact.specifier);
    const names = importedNames(fact, parsed);
    const directory = path.dirname(file.real);
    if (parsed.level > 0) {
      let base = directory;
      for (let up = 1; up < parsed.level; up++) base = path.dirname(base);
      if (!this.#context.configs.inside(base)) return unresolved("outside_roots", `${fact.specifier} climbs outside the roots`);
      const targets = this.#targetsFrom(base, parsed, names);
      if (targets.length > 0) return { kind: "file", targets, via: "python_relative" };
      const location = parsed.module.length === 0 ? base : path.join(base, ...parsed.module);
      if (await this.#context.configs.denied(location)) return unresolved("denied", `${fact.specifier} names a module a policy rule hides`);
      return unresolved("not_found", `no module for ${fact.specifier}`);
    }
    const top = parsed.module[0];
    if (top === undefined) return unresolved("unsupported", "empty module name");
    const tried = new Set<string>();
    const tryBase = (base: string): string[] => {
      if (tried.has(base)) return [];
      tried.add(base);
      return this.#targetsFrom(base, parsed, names);
    };
    for (const base of [this.packageRoot(directory, file.rootReal), directory]) {
      const targets = tryBase(base);
      if (targets.length > 0) return { kind: "file", targets, via: "python_absolute" };
    }
    // Declared and root packages, the longest name first (sorted with the layout).
    for (const anchor of layout.anchors) {
      if (anchor.name.length > parsed.module.length || !anchor.name.every((part, at) => parsed.module[at] === part)) continue;
      const targets = this.#targetsAt(anchor.directory, parsed.module.slice(anchor.name.length), names);
      if (targets.length > 0) return { kind: "file", targets, via: "python_absolute" };
    }
    for (const base of layout.bases) {
      if (base.names && !base.names.has(top)) continue;
      const targets = tryBase(base.directory);
      if (targets.length > 0) return { kind: "file", targets, via: "python_absolute" };
    }
    for (const root of this.#context.configs.workspace.roots) {
      for (const base of [root.real, path.join(root.real, "src")]) {
        const targets = tryBase(base);
        if (targets.length > 0) return { kind: "file", targets, via: "python_absolute" };
      }
    }
    // Other folders holding a top-level package of this name; more than one is ambiguous.
    const matches: string[][] = [];
    for (const base of this.#topLevelPackages().get(top) ?? []) {
      if (tried.has(base)) continue;
      const targets = this.#targetsFrom(base, parsed, names);
      if (targets.length > 0) matches.push(targets);
    }
    if (matches.length === 1) return { kind: "file", targets: matches[0]!, via: "python_absolute" };
    if (matches.length > 1) return unresolved("ambiguous", `${matches.length} top-level packages are named ${top}`, matches.map((targets) => targets[0]!));
    return { kind: "external", package: top, builtin: STDLIB.has(top) };
  }
}
