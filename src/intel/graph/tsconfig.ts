/**
 * The tsconfig settings that steer module resolution (`baseUrl`, `paths`), with `extends` chains
 * followed the way TypeScript does: relative, absolute and package-name bases, strings or arrays
 * (later entries win), compilerOptions merged key by key with the child winning. `baseUrl` is
 * relative to the file that sets it; `paths` to the effective baseUrl, or else to the file that
 * sets them. Every file of the chain is read through ConfigFiles, so a base outside the roots is
 * reported and never touched.
 */
import path from "node:path";
import { LIMITS } from "../../core/limits.ts";
import { type ConfigFiles, parseJsoncObject } from "./config-files.ts";

export interface PathMapping {
  /** The pattern as written, e.g. "@app/*". */
  pattern: string;
  prefix: string;
  /** Undefined for exact patterns (no "*"). */
  suffix: string | undefined;
  /** Target patterns as written. */
  targets: string[];
}

export interface TsConfigProblem {
  config: string;
  reason: "outside_roots" | "denied" | "not_found" | "unreadable" | "cycle" | "too_deep";
  message: string;
}

export interface TsResolutionSettings {
  /** The tsconfig (or jsconfig) file that applies. */
  file: string;
  baseUrl: string | undefined;
  paths: PathMapping[];
  /** The folder path targets are relative to. */
  pathsBase: string | undefined;
  problems: TsConfigProblem[];
}

interface Layer {
  file: string;
  baseUrl?: string;
  paths?: { mapping: Record<string, unknown>; declaredIn: string };
}

function pathMappings(mapping: Record<string, unknown>): PathMapping[] {
  const result: PathMapping[] = [];
  for (const [pattern, value] of Object.entries(mapping)) {
    const targets = Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
    if (targets.length === 0) continue;
    const star = pattern.indexOf("*");
    // TypeScript allows at most one "*" per pattern.
    if (star !== pattern.lastIndexOf("*")) continue;
    result.push(star === -1 ? { pattern, prefix: pattern, suffix: undefined, targets } : { pattern, prefix: pattern.slice(0, star), suffix: pattern.slice(star + 1), targets });
  }
  return result;
}

/** Candidate files for an `extends` value, in the order TypeScript tries them. */
function extendsCandidates(value: string, fromDirectory: string, root: string | undefined): string[] {
  if (value.startsWith("./") || value.startsWith("../") || path.isAbsolute(value) || value === "." || value === "..") {
    const base = path.resolve(fromDirectory, value);
    return base.endsWith(".json") ? [base] : [base, `${base}.json`];
  }
  // A package name: node_modules folders from here up to the root.
  const candidates: string[] = [];
  let directory = fromDirectory;
  for (;;) {
    const base = path.join(directory, "node_modules", value);
    if (value.endsWith(".json")) candidates.push(base);
    else candidates.push(`${base}.json`, path.join(base, "tsconfig.json"));
    if (root === undefined || directory === root || directory.length <= root.length) break;
    const parent = path.dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  return candidates;
}

export class TsConfigLoader {
  readonly #configs: ConfigFiles;
  readonly #settings = new Map<string, Promise<TsResolutionSettings>>();

  constructor(configs: ConfigFiles) {
    this.#configs = configs;
  }

  /** Settings of one tsconfig file (real path), extends chain applied. */
  load(file: string, root: string | undefined): Promise<TsResolutionSettings> {
    let pending = this.#settings.get(file);
    if (!pending) {
      pending = this.#build(file, root);
      this.#settings.set(file, pending);
    }
    return pending;
  }

  async #build(file: string, root: string | undefined): Promise<TsResolutionSettings> {
    const problems: TsConfigProblem[] = [];
    const layers = await this.#layers(file, root, problems, new Set(), 0);
    let baseUrl: string | undefined;
    let paths: Layer["paths"];
    // Parents first, so a child's setting replaces its parent's.
    for (const layer of layers) {
      if (layer.baseUrl !== undefined) baseUrl = layer.baseUrl;
      if (layer.paths !== undefined) paths = layer.paths;
    }
    const mappings = paths ? pathMappings(paths.mapping) : [];
    const pathsBase = paths ? (baseUrl ?? path.dirname(paths.declaredIn)) : undefined;
    return { file, baseUrl, paths: mappings, pathsBase, problems };
  }

  /** The chain from the furthest base to `file`, each layer's own settings made absolute. */
  async #layers(file: string, root: string | undefined, problems: TsConfigProblem[], seen: Set<string>, depth: number): Promise<Layer[]> {
    if (seen.has(file)) {
      problems.push({ config: file, reason: "cycle", message: `extends chain loops back to ${file}` });
      return [];
    }
    if (depth > LIMITS.intel.graph.maxExtendsDepth) {
      problems.push({ config: file, reason: "too_deep", message: `extends chain deeper than ${LIMITS.intel.graph.maxExtendsDepth}` });
      return [];
    }
    seen.add(file);
    const read = await this.#configs.read(file);
    if (read.status !== "ok") return [];
    const json = parseJsoncObject(read.text);
    if (!json) {
      problems.push({ config: read.display, reason: "unreadable", message: `${read.display} is not a JSON object` });
      return [];
    }
    const directory = path.dirname(read.real);
    const layers: Layer[] = [];
    const bases = typeof json.extends === "string" ? [json.extends] : Array.isArray(json.extends) ? json.extends.filter((item): item is string => typeof item === "string") : [];
    for (const base of bases) {
      const found = await this.#findBase(base, directory, root, read.display, problems);
      if (found) layers.push(...(await this.#layers(found, root, problems, seen, depth + 1)));
    }
    const options = json.compilerOptions;
    const own: Layer = { file: read.real };
    if (options !== null && typeof options === "object" && !Array.isArray(options)) {
      const record = options as Record<string, unknown>;
      if (typeof record.baseUrl === "string") own.baseUrl = path.resolve(directory, record.baseUrl);
      if (record.paths !== null && typeof record.paths === "object" && !Array.isArray(record.paths)) {
        own.paths = { mapping: record.paths as Record<string, unknown>, declaredIn: read.real };
      }
    }
    layers.push(own);
    return layers;
  }

  async #findBase(value: string, directory: string, root: string | undefined, from: string, problems: TsConfigProblem[]): Promise<string | undefined> {
    let outside = false;
    let denied: string | undefined;
    for (const candidate of extendsCandidates(value, directory, root)) {
      const read = await this.#configs.read(candidate);
      if (read.status === "ok") return read.real;
      if (read.status === "outside_roots") outside = true;
      if (read.status === "denied") denied = read.detail;
    }
    if (outside) problems.push({ config: from, reason: "outside_roots", message: `extends ${JSON.stringify(value)} points outside the roots; it was not read` });
    else if (denied !== undefined) problems.push({ config: from, reason: "denied", message: `extends ${JSON.stringify(value)}: ${denied}` });
    else problems.push({ config: from, reason: "not_found", message: `extends ${JSON.stringify(value)} was not found` });
    return undefined;
  }
}

/** Which mapping applies to a specifier: an exact pattern, else the longest prefix; with the "*" text. */
export function matchPaths(mappings: readonly PathMapping[], specifier: string): { mapping: PathMapping; star: string } | undefined {
  const exact = mappings.find((mapping) => mapping.suffix === undefined && mapping.prefix === specifier);
  if (exact) return { mapping: exact, star: "" };
  let best: { mapping: PathMapping; star: string } | undefined;
  for (const mapping of mappings) {
    if (mapping.suffix === undefined) continue;
    if (!specifier.startsWith(mapping.prefix) || !specifier.endsWith(mapping.suffix)) continue;
    if (specifier.length < mapping.prefix.length + mapping.suffix.length) continue;
    if (best && best.mapping.prefix.length >= mapping.prefix.length) continue;
    best = { mapping, star: specifier.slice(mapping.prefix.length, specifier.length - mapping.suffix.length) };
  }
  return best;
}
