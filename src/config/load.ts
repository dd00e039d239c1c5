/**
 * Builds the effective configuration from five layers, highest first:
 * CLI flags > AST_MCP_* environment > project file (untrusted, filtered) > user file > defaults.
 * Never throws for bad input: everything wrong becomes a problem or a warning on the snapshot.
 */
import { promises as fs } from "node:fs";
import type { Stats } from "node:fs";
import os from "node:os";
import path from "node:path";
import { LIMITS } from "../core/limits.ts";
import { CONFIG_PATH_ENV, TOKEN_ENV, readEnvLayer } from "./env.ts";
import { readConfigFile } from "./file.ts";
import { httpAuthProblems, oauthEnabled } from "./http-auth.ts";
import { type FileFingerprint, fingerprintFile, fingerprintOf, statIfExists } from "./fingerprint.ts";
import { CONFIG_LEAVES, leafValue, PATH_KEYS, setLeafValue } from "./keys.ts";
import type { ConfigLeaf } from "./keys.ts";
import { DEFAULT_CONFIG, DEFAULT_RULES } from "./schema.ts";
import type { ConfigFile, EffectiveConfig, PathRule } from "./schema.ts";
import { userDirectory } from "./state-dir.ts";
import { filterProjectFile, PROJECT_PERMISSIONS } from "./trust.ts";
import type { ConfigProblem, ConfigSnapshot, ValueSource } from "./types.ts";

export const CONFIG_FILE_NAME = "ast-mcp.toml";

export interface CliOverrides {
  host: string;
  port: number;
  json_response: boolean;
}

export interface LoadConfigOptions {
  cwd: string;
  cliRoots?: string[];
  cliOverrides?: Partial<CliOverrides>;
  env?: NodeJS.ProcessEnv;
  homeDir?: string;
  /** Decides the user-file location and whether file modes mean anything; defaults to process.platform. */
  platform?: NodeJS.Platform;
}

/** The flag each CLI override comes from, for the sources table. */
export const CLI_FLAGS: Readonly<Record<keyof CliOverrides, string>> = {
  host: "--host",
  port: "--port",
  json_response: "--json-response",
};
export const CLI_ROOTS_SOURCE = "cli:ROOT" satisfies ValueSource;

/** Where the user configuration file lives, and whether AST_MCP_CONFIG chose it. */
export function userConfigLocation(env: NodeJS.ProcessEnv, homeDir: string, platform: NodeJS.Platform, cwd: string): { path: string; explicit: boolean } {
  const location = userDirectory("config", env, { homeDir, platform, cwd });
  return location.explicit ? location : { path: (platform === "win32" ? path.win32 : path.posix).join(location.path, CONFIG_FILE_NAME), explicit: false };
}

async function realOrResolved(target: string): Promise<string> {
  try {
    return await fs.realpath(target);
  } catch {
    return path.resolve(target);
  }
}

/** The file-system root and the home directory are far too broad to serve as an implicit workspace. */
async function implicitRootRefusal(cwd: string, homeDir: string): Promise<string | undefined> {
  const real = await realOrResolved(cwd);
  if (path.parse(real).root === real || path.parse(cwd).root === cwd) return "the file-system root";
  if (real === (await realOrResolved(homeDir)) || cwd === path.resolve(homeDir)) return "your home directory";
  return undefined;
}

interface LayerValue {
  value: unknown;
  source: ValueSource;
}

/** One layer's settings: dotted key → value with its source. */
type Layer = Map<string, LayerValue>;

function fileLayer(data: ConfigFile, source: ValueSource, baseDir: string): Layer {
  const layer: Layer = new Map();
  for (const leaf of CONFIG_LEAVES) {
    const value = leafValue(data, leaf);
    if (value === undefined) continue;
    layer.set(leaf.dotted, { value: resolvePathValue(leaf, value, baseDir), source });
  }
  return layer;
}

function resolvePathValue(leaf: ConfigLeaf, value: unknown, baseDir: string): unknown {
  if (!PATH_KEYS.has(leaf.dotted)) return value;
  if (typeof value === "string") return path.resolve(baseDir, value);
  if (Array.isArray(value)) return value.map((item) => (typeof item === "string" ? path.resolve(baseDir, item) : item));
  return value;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Reads the token file: only when it is private to its owner (the file holds a secret). */
async function readTokenFile(
  tokenFile: string,
  platform: NodeJS.Platform,
): Promise<{ token: string | undefined; problem: string | undefined; fingerprint: FileFingerprint }> {
  let stats: Stats | undefined;
  try {
    stats = await statIfExists(tokenFile);
  } catch (error) {
    return { token: undefined, problem: `cannot read the token file: ${(error as Error).message}`, fingerprint: await fingerprintFile(tokenFile) };
  }
  const fingerprint = fingerprintOf(tokenFile, stats);
  const fail = (problem: string) => ({ token: undefined, problem, fingerprint });
  if (!stats) return fail(`token file ${tokenFile} does not exist`);
  if (!stats.isFile()) return fail(`token file ${tokenFile} is not a regular file`);
  // Windows has no POSIX mode bits; there the file's ACL is the user's business.
  if (platform !== "win32" && (stats.mode & 0o077) !== 0) {
    const mode = (stats.mode & 0o777).toString(8).padStart(4, "0");
    return fail(`token file ${tokenFile} must not be readable by others (mode ${mode}); run: chmod 600 ${tokenFile}`);
  }
  if (stats.size > LIMITS.config.maxFileBytes) return fail(`token file ${tokenFile} is larger than ${LIMITS.config.maxFileBytes} bytes`);
  let text: string;
  try {
    text = await fs.readFile(tokenFile, "utf8");
  } catch (error) {
    return fail(`cannot read the token file: ${(error as Error).message}`);
  }
  const token = text.trim();
  if (token === "") return fail(`token file ${tokenFile} is empty`);
  return { token, problem: undefined, fingerprint };
}

export interface LoadResult {
  snapshot: ConfigSnapshot;
  /** The files this snapshot depends on, as stat'ed before they were read. */
  fingerprints: FileFingerprint[];
}

/** loadConfig plus the file fingerprints ConfigStore uses to decide whether to re-read. */
export async function loadConfigDetailed(options: LoadConfigOptions, generation = 1): Promise<LoadResult> {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const cwd = path.resolve(options.cwd);
  const envHome = platform === "win32" ? env.USERPROFILE : env.HOME;
  const homeDir = options.homeDir ?? (envHome !== undefined && envHome !== "" ? envHome : os.homedir());
  const problems: ConfigProblem[] = [];
  const warnings: string[] = [];
  const fingerprints: FileFingerprint[] = [];

  // User file (trusted).
  const userLocation = userConfigLocation(env, homeDir, platform, cwd);
  const userFile = await readConfigFile(userLocation.path);
  fingerprints.push(userFile.fingerprint);
  problems.push(...userFile.problems);
  if (userLocation.explicit && !userFile.exists) {
    problems.push({ file: userFile.path, keyPath: "", message: `${CONFIG_PATH_ENV} names a file that does not exist` });
  }
  const userSource: ValueSource = `user:${userFile.path}`;
  const userLayer = fileLayer(userFile.data, userSource, path.dirname(userFile.path));

  // Environment.
  const envRead = readEnvLayer(env);
  problems.push(...envRead.problems);
  warnings.push(...envRead.warnings);
  const envLayer: Layer = new Map();
  for (const setting of envRead.settings) {
    envLayer.set(setting.leaf.dotted, { value: resolvePathValue(setting.leaf, setting.value, cwd), source: `env:${setting.variable}` });
  }

  // CLI flags, checked against the same schema as the files.
  const cliLayer: Layer = new Map();
  for (const [key, value] of Object.entries(options.cliOverrides ?? {}) as Array<[keyof CliOverrides, unknown]>) {
    if (value === undefined) continue;
    const leaf = CONFIG_LEAVES.find((candidate) => candidate.dotted === `http.${key}`);
    if (!leaf) continue;
    const checked = leaf.schema.safeParse(value);
    const flag = CLI_FLAGS[key];
    if (!checked.success) {
      problems.push({ file: `cli:${flag}`, keyPath: leaf.dotted, message: checked.error.issues.map((issue) => issue.message).join("; ") });
      continue;
    }
    cliLayer.set(leaf.dotted, { value: checked.data, source: `cli:${flag}` });
  }
  const cliRoots = (options.cliRoots ?? []).filter((root) => root !== "");
  if (cliRoots.length > 0) cliLayer.set("workspace.roots", { value: cliRoots.map((root) => path.resolve(cwd, root)), source: CLI_ROOTS_SOURCE });

  // Roots decide where the project file is, so they come only from trusted layers.
  const explicitRoots = cliLayer.get("workspace.roots") ?? envLayer.get("workspace.roots") ?? userLayer.get("workspace.roots");
  let roots: string[];
  let rootsSource: ValueSource = "default";
  if (explicitRoots) {
    roots = [...new Set(explicitRoots.value as string[])];
    rootsSource = explicitRoots.source;
  } else {
    const refusal = await implicitRootRefusal(cwd, homeDir);
    if (refusal) {
      roots = [];
      warnings.push(
        `no workspace root: the current directory ${cwd} is ${refusal}, which is never used as a root implicitly; ` +
          `pass a root (\`ast-mcp mcp /path/to/repo\`), set AST_MCP_WORKSPACE_ROOTS, or set [workspace].roots in ${userFile.path}`,
      );
    } else {
      roots = [cwd];
    }
  }

  // Project file (untrusted) at the first root.
  const firstRoot = roots[0];
  let projectPath: string | undefined = firstRoot === undefined ? undefined : path.join(firstRoot, CONFIG_FILE_NAME);
  if (projectPath !== undefined && path.resolve(projectPath) === path.resolve(userFile.path)) {
    // The user file already applies with full trust; reading it again as untrusted would only add noise.
    projectPath = undefined;
  }
  let projectExists = false;
  let projectLayer: Layer = new Map();
  let projectRules: PathRule[] = [];
  if (projectPath !== undefined) {
    const projectFile = await readConfigFile(projectPath);
    fingerprints.push(projectFile.fingerprint);
    problems.push(...projectFile.problems);
    projectExists = projectFile.exists;
    const { kept, warnings: trustWarnings } = filterProjectFile(projectFile.data, `project file ${projectFile.path}`);
    warnings.push(...trustWarnings);
    const projectSource: ValueSource = `project:${projectFile.path}`;
    projectLayer = fileLayer(kept, projectSource, path.dirname(projectFile.path));
    projectRules = (kept.paths ?? []).map((rule) => ({ ...rule, source: projectSource }));
  }

  // Layer everything, lowest first.
  const config = structuredClone({ ...DEFAULT_CONFIG, paths: [] as PathRule[], formatters: [] }) as EffectiveConfig;
  const sources: Record<string, ValueSource> = {};
  for (const leaf of CONFIG_LEAVES) sources[leaf.dotted] = "default";
  const addOnly = (leaf: ConfigLeaf) => PROJECT_PERMISSIONS[leaf.dotted]?.kind === "add";
  for (const layer of [userLayer, projectLayer, envLayer, cliLayer]) {
    for (const leaf of CONFIG_LEAVES) {
      const setting = layer.get(leaf.dotted);
      if (!setting || (layer === projectLayer && addOnly(leaf))) continue;
      setLeafValue(config, leaf, setting.value);
      sources[leaf.dotted] = setting.source;
    }
  }
  // Lists the untrusted project may only add to keep every item the trusted layers set.
  for (const leaf of CONFIG_LEAVES.filter(addOnly)) {
    const added = projectLayer.get(leaf.dotted);
    if (!added) continue;
    const current = leafValue(config, leaf);
    setLeafValue(config, leaf, [...new Set([...(Array.isArray(current) ? (current as string[]) : []), ...(added.value as string[])])]);
    if (sources[leaf.dotted] === "default") sources[leaf.dotted] = added.source;
  }
  config.workspace.roots = roots;
  sources["workspace.roots"] = rootsSource;
  config.paths = [
    ...DEFAULT_RULES.map((rule) => ({ ...rule })),
    ...(userFile.data.paths ?? []).map((rule) => ({ ...rule, source: userSource })),
    ...projectRules,
  ];
  // Formatters run commands: only the user file may name them (the trust filter drops them from the project file).
  config.formatters = (userFile.data.formatters ?? []).map((formatter) => ({ ...formatter }));

  for (const root of roots) {
    const problemFile = rootsSource.startsWith("user:") ? userFile.path : rootsSource;
    try {
      const stats = await fs.stat(root);
      if (!stats.isDirectory()) problems.push({ file: problemFile, keyPath: "workspace.roots", message: `root ${root} is not a directory` });
    } catch {
      problems.push({ file: problemFile, keyPath: "workspace.roots", message: `root ${root} does not exist or cannot be read` });
    }
  }

  // The token is a secret: it lives on the snapshot only, never in config.
  let token: string | undefined;
  let tokenSource: ValueSource | undefined;
  const envToken = env[TOKEN_ENV]?.trim();
  if (envToken !== undefined && envToken !== "") {
    token = envToken;
    tokenSource = `env:${TOKEN_ENV}`;
  } else if (config.http.token_file !== undefined) {
    const result = await readTokenFile(config.http.token_file, platform);
    fingerprints.push(result.fingerprint);
    const tokenFileSource = sources["http.token_file"] ?? "default";
    if (result.problem !== undefined) {
      problems.push({ file: config.http.token_file, keyPath: "http.token_file", message: result.problem });
    } else {
      token = result.token;
      tokenSource = tokenFileSource;
    }
  }

  problems.push(...httpAuthProblems(config, sources, userFile.path));
  if (token !== undefined && oauthEnabled(config)) {
    warnings.push(`[http.auth] sets an issuer, so HTTP clients must bring its access tokens: the static bearer token (from ${tokenSource}) is not accepted`);
  }

  const snapshot: ConfigSnapshot = {
    config,
    sources,
    problems,
    warnings,
    files: { user: userFile.path, userExists: userFile.exists, project: projectPath, projectExists },
    generation,
    token,
    tokenSource,
  };
  return { snapshot: deepFreeze(snapshot), fingerprints };
}

/** Loads the effective configuration once (see ConfigStore for reloading). */
export async function loadConfig(options: LoadConfigOptions): Promise<ConfigSnapshot> {
  return (await loadConfigDetailed(options)).snapshot;
}
