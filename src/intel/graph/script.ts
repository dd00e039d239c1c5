/**
 * TypeScript / JavaScript module resolution: relative specifiers with TypeScript's extension and
 * index probing (NodeNext: ".js" names the emitted file, the source is ".ts"), tsconfig `paths`
 * and `baseUrl` (extends chains applied), package.json `imports` ("#x") and `exports`
 * (conditions import, require, node, types, default), and workspace packages declared by npm/yarn
 * `workspaces` or pnpm-workspace.yaml. A package's built output ("dist/x.js", "dist/x.d.ts") is
 * mapped back to its source when only the source is indexed.
 */
import { builtinModules } from "node:module";
import path from "node:path";
import picomatch from "picomatch";
import { parse as parseYaml } from "yaml";
import { LIMITS } from "../../core/limits.ts";
import { log } from "../../core/log.ts";
import type { ImportFact } from "../facts/types.ts";
import { parseJsoncObject } from "./config-files.ts";
import { type LanguageResolver, NearestFile, type ResolveContext, unresolved } from "./context.ts";
import { resolvePackageExports, resolvePackageImports, splitPackageSpecifier } from "./package-json.ts";
import { matchPaths, TsConfigLoader, type TsConfigProblem } from "./tsconfig.ts";
import type { GraphFile, Resolution, ResolutionVia } from "./types.ts";

/** Extensions TypeScript and Node try for an extensionless specifier, in order. */
const PROBED_EXTENSIONS = [".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.mts", ".d.cts", ".json"];
/** A specifier names the emitted file; the source has the TypeScript extension. */
const SOURCE_FOR_EMITTED: Readonly<Record<string, string[]>> = {
  ".js": [".ts", ".tsx", ".d.ts"],
  ".jsx": [".tsx"],
  ".mjs": [".mts", ".d.mts"],
  ".cjs": [".cts", ".d.cts"],
};
const DECLARATION = /\.d\.(?:ts|mts|cts)$/;
/** Build-output folders a package's entry points usually live in, mapped back to src/. */
const OUTPUT_FOLDERS = new Set(["dist", "build", "lib", "out", "esm", "cjs", "es", "types"]);
const BUILTINS = new Set(builtinModules);
const BUILTIN_SCHEMES = ["node:", "bun:", "deno:"];

export interface WorkspacePackage {
  name: string;
  directory: string;
  manifest: Record<string, unknown>;
}

function isRelative(specifier: string): boolean {
  return specifier === "." || specifier === ".." || specifier.startsWith("./") || specifier.startsWith("../");
}

function conditionsFor(fact: ImportFact): ReadonlySet<string> {
  return new Set(["types", "node", fact.kind === "require" ? "require" : "import"]);
}

export class ScriptResolver implements LanguageResolver {
  readonly #context: ResolveContext;
  readonly #tsconfigs: TsConfigLoader;
  readonly #nearestTsconfig: NearestFile;
  readonly #nearestManifest: NearestFile;
  #packages: Promise<Map<string, WorkspacePackage>> | undefined;
  /** Problems met in tsconfig chains, by config display path. */
  readonly problems = new Map<string, TsConfigProblem>();

  constructor(context: ResolveContext) {
    this.#context = context;
    this.#tsconfigs = new TsConfigLoader(context.configs);
    this.#nearestTsconfig = new NearestFile(context.configs, ["tsconfig.json", "jsconfig.json"]);
    this.#nearestManifest = new NearestFile(context.configs, ["package.json"]);
  }

  async resolve(file: GraphFile, fact: ImportFact): Promise<Resolution> {
    // Bundler queries and fragments ("./icon.svg?raw") are not part of the file name.
    const specifier = fact.specifier.startsWith("#") ? fact.specifier : fact.specifier.replace(/[?#].*$/, "");
    if (specifier.length === 0 || specifier.includes("${")) return unresolved("unsupported", "computed specifier");
    const directory = path.dirname(file.real);
    if (isRelative(specifier) || path.isAbsolute(specifier)) {
      const base = path.resolve(directory, specifier);
      if (!this.#context.configs.inside(base)) return unresolved("outside_roots", `${specifier} points outside the roots`);
      const found = this.lookup(base);
      if (found) return { kind: "file", targets: [found], via: "relative" };
      if (await this.#context.configs.denied(base)) return unresolved("denied", `${specifier} names a path a policy rule hides`);
      return unresolved("not_found", `no file for ${specifier}`);
    }
    if (specifier.startsWith("#")) {
      const { found, outside } = await this.#tsconfigStep(file, specifier);
      if (found) return found;
      const mapped = await this.#packageImport(file, specifier, fact);
      return mapped.kind === "unresolved" && mapped.reason === "not_found" && outside !== undefined ? unresolved("outside_roots", outside) : mapped;
    }
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(specifier)) return unresolved("unsupported", "URL specifiers are not followed");
    return this.#bare(file, specifier, fact);
  }

  /** The first indexed file a module path names (exact, emitted → source, extensions, index files). */
  lookup(base: string): string | undefined {
    const table = this.#context.table;
    if (table.has(base)) return base;
    const extension = path.extname(base);
    const stem = base.slice(0, base.length - extension.length);
    for (const source of SOURCE_FOR_EMITTED[extension] ?? []) if (table.has(stem + source)) return stem + source;
    if (DECLARATION.test(base)) {
      const source = base.replace(/\.d\.(ts|mts|cts)$/, ".$1");
      if (table.has(source)) return source;
    }
    for (const added of PROBED_EXTENSIONS) if (table.has(base + added)) return base + added;
    // Only a folder holding indexed files can have an index file.
    if (!table.isDirectory(base)) return undefined;
    const index = base + path.sep + "index";
    for (const added of PROBED_EXTENSIONS) if (table.has(index + added)) return index + added;
    return undefined;
  }

  /** Like lookup, then with a build-output folder of the package mapped back to src/. */
  #lookupInPackage(packageDirectory: string, relative: string): string | undefined {
    const direct = this.lookup(path.resolve(packageDirectory, relative));
    if (direct) return direct;
    const segments = relative.replace(/^\.\//, "").split("/");
    const variants: string[][] = [];
    if (segments.length > 1 && OUTPUT_FOLDERS.has(segments[0]!)) variants.push(["src", ...segments.slice(1)], segments.slice(1));
    else variants.push(["src", ...segments]);
    for (const variant of variants) {
      const base = path.join(packageDirectory, ...variant).replace(DECLARATION, "");
      const found = this.lookup(base) ?? this.lookup(base.replace(/\.(?:c|m)?jsx?$/, ""));
      if (found) return found;
    }
    return undefined;
  }

  /** tsconfig `paths`, then `baseUrl`; a mapping into a folder outside the roots is remembered, not probed. */
  async #tsconfigStep(file: GraphFile, specifier: string): Promise<{ found?: Resolution; outside?: string }> {
    const tsconfig = await this.#nearestTsconfig.find(path.dirname(file.real), file.rootReal);
    if (!tsconfig) return {};
    const settings = await this.#tsconfigs.load(tsconfig.real, file.rootReal);
    for (const problem of settings.problems) this.problems.set(`${problem.config}\0${problem.message}`, problem);
    let outside: string | undefined;
    const match = settings.pathsBase !== undefined ? matchPaths(settings.paths, specifier) : undefined;
    if (match && settings.pathsBase !== undefined) {
      for (const target of match.mapping.targets) {
        const base = path.resolve(settings.pathsBase, target.split("*").join(match.star));
        if (!this.#context.configs.inside(base)) {
          outside = `tsconfig paths map ${specifier} to ${target}, outside the roots`;
          continue;
        }
        const found = this.lookup(base);
        if (found) return { found: { kind: "file", targets: [found], via: "tsconfig_paths" } };
      }
    }
    if (settings.baseUrl !== undefined && !specifier.startsWith("#")) {
      const base = path.resolve(settings.baseUrl, specifier);
      if (this.#context.configs.inside(base)) {
        const found = this.lookup(base);
        if (found) return { found: { kind: "file", targets: [found], via: "base_url" } };
      }
    }
    return outside === undefined ? {} : { outside };
  }

  async #bare(file: GraphFile, specifier: string, fact: ImportFact): Promise<Resolution> {
    const { found, outside } = await this.#tsconfigStep(file, specifier);
    if (found) return found;
    const split = splitPackageSpecifier(specifier);
    if (split) {
      const packages = await this.workspacePackages();
      const local = packages.get(split.name);
      if (local) return this.#packageEntry(local, split.subpath, fact, specifier);
    }
    if (outside !== undefined) return unresolved("outside_roots", outside);
    const scheme = BUILTIN_SCHEMES.find((prefix) => specifier.startsWith(prefix));
    if (scheme) return { kind: "external", package: specifier.split("/")[0]!, builtin: true };
    if (!split) return unresolved("unsupported", `${specifier} is not a package specifier`);
    if (BUILTINS.has(split.name)) return { kind: "external", package: `node:${split.name}`, builtin: true };
    return { kind: "external", package: split.name, builtin: false };
  }

  #packageEntry(pkg: WorkspacePackage, subpath: string, fact: ImportFact, specifier: string): Resolution {
    const conditions = conditionsFor(fact);
    const mapped = resolvePackageExports(pkg.manifest.exports, subpath, conditions);
    if (mapped.kind === "targets") {
      let outside = false;
      for (const target of mapped.targets) {
        const base = path.resolve(pkg.directory, target);
        if (!this.#context.configs.inside(base)) {
          outside = true;
          continue;
        }
        const found = this.#lookupInPackage(pkg.directory, target);
        if (found) return { kind: "file", targets: [found], via: "package_exports" };
      }
      if (outside) return unresolved("outside_roots", `${pkg.name} exports ${subpath} to a path outside the roots`);
      return unresolved("not_found", `${pkg.name} exports ${subpath} as ${mapped.targets.join(", ")}, which is not indexed`);
    }
    if (mapped.kind === "not_exported") return unresolved("not_found", `${pkg.name} does not export ${subpath} (${[...conditions].join(", ")})`);
    const via: ResolutionVia = "workspace_package";
    if (subpath !== ".") {
      const found = this.#lookupInPackage(pkg.directory, subpath);
      return found ? { kind: "file", targets: [found], via } : unresolved("not_found", `no file for ${specifier} in ${pkg.name}`);
    }
    for (const field of ["source", "types", "typings", "module", "main"]) {
      const value = pkg.manifest[field];
      if (typeof value !== "string" || !this.#context.configs.inside(path.resolve(pkg.directory, value))) continue;
      const found = this.#lookupInPackage(pkg.directory, value);
      if (found) return { kind: "file", targets: [found], via };
    }
    const index = this.lookup(pkg.directory) ?? this.lookup(path.join(pkg.directory, "src"));
    return index ? { kind: "file", targets: [index], via } : unresolved("not_found", `${pkg.name} has no indexed entry point`);
  }

  async #packageImport(file: GraphFile, specifier: string, fact: ImportFact): Promise<Resolution> {
    const manifest = await this.#nearestManifest.find(path.dirname(file.real), file.rootReal);
    if (!manifest) return unresolved("not_found", `no package.json declares ${specifier}`);
    const json = parseJsoncObject(manifest.text);
    const mapped = resolvePackageImports(json?.imports, specifier, conditionsFor(fact));
    if (mapped.kind !== "targets") return unresolved("not_found", `${manifest.display} does not map ${specifier}`);
    const directory = path.dirname(manifest.real);
    let outside = false;
    for (const target of mapped.targets) {
      if (!isRelative(target)) {
        // "#x": "some-package" re-targets to a bare specifier.
        if (path.isAbsolute(target)) {
          outside = outside || !this.#context.configs.inside(target);
          continue;
        }
        return this.#bare(file, target, fact);
      }
      const base = path.resolve(directory, target);
      if (!this.#context.configs.inside(base)) {
        outside = true;
        continue;
      }
      const found = this.#lookupInPackage(directory, target);
      if (found) return { kind: "file", targets: [found], via: "package_imports" };
    }
    if (outside) return unresolved("outside_roots", `${manifest.display} maps ${specifier} outside the roots`);
    return unresolved("not_found", `${manifest.display} maps ${specifier} to ${mapped.targets.join(", ")}, which is not indexed`);
  }

  /** Packages declared by each root's package.json `workspaces` or pnpm-workspace.yaml, plus each root package itself. */
  workspacePackages(): Promise<Map<string, WorkspacePackage>> {
    this.#packages ??= this.#discoverPackages();
    return this.#packages;
  }

  async #discoverPackages(): Promise<Map<string, WorkspacePackage>> {
    const packages = new Map<string, WorkspacePackage>();
    const configs = this.#context.configs;
    const add = async (directory: string) => {
      if (packages.size >= LIMITS.intel.graph.maxWorkspacePackages) return;
      const read = await configs.read(path.join(directory, "package.json"));
      if (read.status !== "ok") return;
      const manifest = parseJsoncObject(read.text);
      if (!manifest || typeof manifest.name !== "string" || manifest.name.length === 0) return;
      if (!packages.has(manifest.name)) packages.set(manifest.name, { name: manifest.name, directory: path.dirname(read.real), manifest });
    };
    for (const root of configs.workspace.roots) {
      const patterns: string[] = [];
      const rootManifest = await configs.read(path.join(root.real, "package.json"));
      if (rootManifest.status === "ok") {
        const json = parseJsoncObject(rootManifest.text);
        const declared = json?.workspaces;
        const list = Array.isArray(declared) ? declared : declared && typeof declared === "object" ? (declared as Record<string, unknown>).packages : undefined;
        if (Array.isArray(list)) patterns.push(...list.filter((item): item is string => typeof item === "string"));
      }
      const pnpm = await configs.read(path.join(root.real, "pnpm-workspace.yaml"));
      if (pnpm.status === "ok") {
        try {
          const yaml = parseYaml(pnpm.text, { maxAliasCount: LIMITS.document.maxYamlAliasCount }) as { packages?: unknown } | null;
          if (Array.isArray(yaml?.packages)) patterns.push(...yaml.packages.filter((item): item is string => typeof item === "string"));
        } catch (error) {
          log.debug("pnpm-workspace.yaml does not parse", { error });
        }
      }
      await add(root.real);
      if (patterns.length === 0) continue;
      const include = patterns.filter((pattern) => !pattern.startsWith("!")).map((pattern) => pattern.replace(/^\.\//, "").replace(/\/+$/, ""));
      const exclude = patterns.filter((pattern) => pattern.startsWith("!")).map((pattern) => pattern.slice(1).replace(/^\.\//, "").replace(/\/+$/, ""));
      const included = picomatch(include, { dot: false });
      const excluded = exclude.length > 0 ? picomatch(exclude, { dot: false }) : () => false;
      const directories = [...this.#context.table.directories]
        .filter((directory) => directory.startsWith(root.real + path.sep))
        .map((directory) => ({ directory, relative: path.relative(root.real, directory).split(path.sep).join("/") }))
        .filter(({ relative }) => !relative.split("/").includes("node_modules") && included(relative) && !excluded(relative))
        .sort((a, b) => (a.relative < b.relative ? -1 : 1));
      for (const { directory } of directories) await add(directory);
    }
    return packages;
  }
}
