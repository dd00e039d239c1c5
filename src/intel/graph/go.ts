/**
 * Go import resolution: the module path comes from the nearest go.mod (and go.work `use`
 * folders); an import path below a known module path names a folder, and the package is every
 * non-test .go file in it. `replace` directives with a local folder map another module path onto
 * that folder (outside the roots: reported, not read). Paths whose first element has no dot are
 * the standard library: external, except inside the Go source tree itself, whose `src/go.mod` says
 * `module std` and whose packages are imported without a module prefix (`net/http` is the folder
 * `src/net/http`). Its sibling `module cmd` needs nothing special: its paths start with `cmd/`.
 * A `module std` serves only the files of its tree (the folder above `src/`, so GOROOT/test too; a
 * go.mod elsewhere, such as a testdata folder's, its own folder), the innermost when trees nest: a
 * fake standard library in a testdata folder never takes the workspace's dotless imports over.
 */
import path from "node:path";
import { relativeInside } from "../../helpers/path-text.ts";
import type { ImportFact } from "../facts/types.ts";
import { type LanguageResolver, NearestFile, type ResolveContext, unresolved } from "./context.ts";
import type { GraphFile, Resolution } from "./types.ts";

interface GoModule {
  path: string;
  directory: string;
}

/** A `module std` go.mod: its folder holds the packages, `tree` is the folder whose files import them. */
interface StandardLibrary {
  directory: string;
  tree: string;
}

interface GoModFile {
  module: string | undefined;
  /** Module path → local folder text (relative to go.mod). */
  replaces: Array<{ from: string; to: string }>;
}

function parseGoMod(text: string): GoModFile {
  const withoutComments = text.replace(/\/\/.*$/gm, "");
  const module = /^\s*module\s+("?)([^\s"]+)\1\s*$/m.exec(withoutComments)?.[2];
  const replaces: Array<{ from: string; to: string }> = [];
  const addReplace = (line: string) => {
    const match = /^\s*(\S+)(?:\s+\S+)?\s*=>\s*(\S+)(?:\s+\S+)?\s*$/.exec(line);
    if (match && (match[2]!.startsWith("./") || match[2]!.startsWith("../") || path.isAbsolute(match[2]!))) replaces.push({ from: match[1]!, to: match[2]! });
  };
  for (const block of withoutComments.matchAll(/^\s*replace\s*\(([\s\S]*?)\)/gm)) for (const line of block[1]!.split("\n")) addReplace(line);
  for (const single of withoutComments.matchAll(/^\s*replace\s+([^(\n].*)$/gm)) addReplace(single[1]!);
  return { module, replaces };
}

function goWorkUses(text: string): string[] {
  const withoutComments = text.replace(/\/\/.*$/gm, "");
  const uses: string[] = [];
  for (const block of withoutComments.matchAll(/^\s*use\s*\(([\s\S]*?)\)/gm)) {
    for (const line of block[1]!.split("\n")) if (line.trim().length > 0) uses.push(line.trim());
  }
  for (const single of withoutComments.matchAll(/^\s*use\s+([^(\s]\S*)\s*$/gm)) uses.push(single[1]!);
  return uses;
}

/** The module path of the Go source tree's standard library (GOROOT/src/go.mod). */
const STANDARD_LIBRARY = "std";

/** "github.com/owner/repo/sub" → "github.com/owner/repo"; short paths stay whole. */
function externalModuleName(importPath: string): string {
  return importPath.split("/").slice(0, 3).join("/");
}

export class GoResolver implements LanguageResolver {
  readonly #context: ResolveContext;
  readonly #nearestGoMod: NearestFile;
  readonly #modules = new Map<string, GoModule>();
  /** Module paths replaced by a folder outside the roots. */
  readonly #outsideReplacements = new Set<string>();
  #workspaceLoaded: Promise<void> | undefined;
  readonly #loadedGoMods = new Set<string>();
  readonly #parsedGoMods = new Map<string, GoModFile>();
  readonly #standardLibraries: StandardLibrary[] = [];
  /** Package folder → its files: every importer of a package shares one list (the table is fixed for this resolver's life). */
  readonly #packages = new Map<string, readonly string[]>();

  constructor(context: ResolveContext) {
    this.#context = context;
    this.#nearestGoMod = new NearestFile(context.configs, ["go.mod"]);
  }

  /** A go.mod parsed once, whoever asks first (the workspace's look for the standard library, or a file's module). */
  #parse(real: string, text: string): GoModFile {
    let parsed = this.#parsedGoMods.get(real);
    if (parsed === undefined) {
      parsed = parseGoMod(text);
      this.#parsedGoMods.set(real, parsed);
    }
    return parsed;
  }

  async #loadGoMod(real: string, text: string): Promise<void> {
    if (this.#loadedGoMods.has(real)) return;
    this.#loadedGoMods.add(real);
    const parsed = this.#parse(real, text);
    const directory = path.dirname(real);
    if (parsed.module === STANDARD_LIBRARY) {
      this.#standardLibraries.push({ directory, tree: path.basename(directory) === "src" ? path.dirname(directory) : directory });
    } else if (parsed.module) this.#modules.set(parsed.module, { path: parsed.module, directory });
    // src/cmd imports the standard library of the folder above it; load it even when no file of it is prepared.
    if (parsed.module === "cmd") {
      const parent = await this.#context.configs.read(path.join(path.dirname(directory), "go.mod"));
      if (parent.status === "ok") await this.#loadGoMod(parent.real, parent.text);
    }
    for (const replace of parsed.replaces) {
      const target = path.resolve(directory, replace.to);
      if (!this.#context.configs.inside(target)) {
        this.#outsideReplacements.add(replace.from);
        continue;
      }
      if (!this.#modules.has(replace.from)) this.#modules.set(replace.from, { path: replace.from, directory: target });
    }
  }

  async #loadWorkspace(): Promise<void> {
    for (const root of this.#context.configs.workspace.roots) {
      // A root at the top of a Go source tree: src/go.mod is the standard library every file of the tree imports.
      for (const candidate of [path.join(root.real, "go.mod"), path.join(root.real, "src", "go.mod")]) {
        const goMod = await this.#context.configs.read(candidate);
        if (goMod.status === "ok" && this.#parse(goMod.real, goMod.text).module === STANDARD_LIBRARY) await this.#loadGoMod(goMod.real, goMod.text);
      }
      const work = await this.#context.configs.read(path.join(root.real, "go.work"));
      if (work.status !== "ok") continue;
      for (const use of goWorkUses(work.text)) {
        const goMod = await this.#context.configs.read(path.join(path.dirname(work.real), use, "go.mod"));
        if (goMod.status === "ok") await this.#loadGoMod(goMod.real, goMod.text);
      }
    }
  }

  /** Every module of the workspace must be known before the first import resolves, or the order of files would matter. */
  async prepare(files: readonly GraphFile[]): Promise<void> {
    this.#workspaceLoaded ??= this.#loadWorkspace();
    await this.#workspaceLoaded;
    const directories = new Map<string, string>();
    for (const file of files) directories.set(path.dirname(file.real), file.rootReal);
    for (const [directory, root] of directories) {
      const goMod = await this.#nearestGoMod.find(directory, root);
      if (goMod) await this.#loadGoMod(goMod.real, goMod.text);
    }
  }

  /** The standard library whose tree holds the file (the innermost), if any. */
  #standardLibraryOf(real: string): StandardLibrary | undefined {
    let found: StandardLibrary | undefined;
    for (const library of this.#standardLibraries) {
      if (relativeInside(library.tree, real, path.sep) !== undefined && (found === undefined || library.tree.length > found.tree.length)) found = library;
    }
    return found;
  }

  /** A package is every non-test .go file of its folder. */
  #packageFiles(directory: string): readonly string[] {
    let files = this.#packages.get(directory);
    if (!files) {
      files = this.#context.table
        .filesIn(directory)
        .filter((candidate) => candidate.real.endsWith(".go") && !candidate.real.endsWith("_test.go"))
        .map((candidate) => candidate.real)
        .sort();
      this.#packages.set(directory, files);
    }
    return files;
  }

  async resolve(file: GraphFile, fact: ImportFact): Promise<Resolution> {
    await this.prepare([file]);
    const importPath = fact.specifier.replace(/^"|"$/g, "");
    if (importPath === "C") return { kind: "external", package: "C", builtin: true };
    let best: GoModule | undefined;
    for (const module of this.#modules.values()) {
      if ((importPath === module.path || importPath.startsWith(`${module.path}/`)) && (!best || module.path.length > best.path.length)) best = module;
    }
    if (best) {
      const rest = importPath.slice(best.path.length).replace(/^\//, "");
      const directory = rest.length === 0 ? best.directory : path.join(best.directory, ...rest.split("/"));
      if (!this.#context.configs.inside(directory)) return unresolved("outside_roots", `${importPath} maps outside the roots`);
      const targets = this.#packageFiles(directory);
      return targets.length > 0 ? { kind: "file", targets, via: "go_module" } : unresolved("not_found", `no Go files for package ${importPath}`);
    }
    if ([...this.#outsideReplacements].some((replaced) => importPath === replaced || importPath.startsWith(`${replaced}/`))) {
      return unresolved("outside_roots", `go.mod replaces ${importPath} with a folder outside the roots`);
    }
    const first = importPath.split("/")[0] ?? importPath;
    if (!first.includes(".")) {
      const std = this.#standardLibraryOf(file.real);
      if (std) {
        const directory = path.join(std.directory, ...importPath.split("/"));
        // "a/../../x" must not climb out of the standard library's folder to another one of the roots.
        // (Strictly below it: relativeInside gives "" for the folder itself, which is no package.)
        const targets = relativeInside(std.directory, directory, path.sep) ? this.#packageFiles(directory) : [];
        if (targets.length > 0) return { kind: "file", targets, via: "go_module" };
        // Inside the tree every standard package is a folder of it; elsewhere the toolchain's own copy is meant.
        if (relativeInside(std.directory, file.real, path.sep) !== undefined) {
          return unresolved("not_found", `no Go files for standard package ${importPath} in ${STANDARD_LIBRARY}`);
        }
      }
      return { kind: "external", package: importPath, builtin: true };
    }
    return { kind: "external", package: externalModuleName(importPath), builtin: false };
  }
}
