/**
 * The hook's [hook] settings, remembered between runs. Hosts start a new `ast-mcp hook` process
 * before every tool call, and loading the configuration (TOML, schema construction, validation)
 * costs about a third of an answer while the files behind it rarely change. So the full loader's
 * answer is kept in the private state directory together with the fingerprints of every file it
 * read (the same stat check the server's ConfigStore uses): a run whose environment and
 * fingerprints match takes it; any difference loads and validates again.
 */
import { promises as fs, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { type FileFingerprint, fingerprintOf, sameFingerprint } from "../../config/fingerprint.ts";
import { stateDirectory } from "../../config/state-dir.ts";
import type { HookSettings } from "./decide.ts";

export interface LoadedHookSettings {
  settings: HookSettings;
  warnings: string[];
}

interface CacheEntry {
  key: string;
  fingerprints: FileFingerprint[];
  settings: HookSettings;
  warnings: string[];
  savedAt: number;
}

const CACHE_FILE = "hook-settings.json";
const CACHE_VERSION = 1;

/** Variables that can change what the loader reads or yields (the token is no hook setting and stays out). */
function steeringEnvironment(env: NodeJS.ProcessEnv): Array<[string, string]> {
  const names = ["HOME", "USERPROFILE", "APPDATA", "XDG_CONFIG_HOME"];
  return Object.entries(env)
    .filter((entry): entry is [string, string] => entry[1] !== undefined && (names.includes(entry[0]) || (entry[0].startsWith("AST_MCP_") && entry[0] !== "AST_MCP_TOKEN")))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Which cached answer applies: the repository, the steering environment and the platform. Kept as
 * plain text (the file is private to the user): hashing it would load node:crypto (decision 0015).
 */
export function settingsCacheKey(repoRoot: string, env: NodeJS.ProcessEnv): string {
  return JSON.stringify([process.platform, path.resolve(repoRoot), steeringEnvironment(env)]);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function isFingerprint(value: unknown): value is FileFingerprint {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.path === "string" && typeof record.exists === "boolean" && ["size", "mtimeMs", "ctimeMs", "ino"].every((key) => typeof record[key] === "number");
}

/** An entry as read from disk, or undefined when its shape is wrong (a damaged file is just a miss). */
function asEntry(value: unknown): CacheEntry | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const settings = record.settings as Record<string, unknown> | undefined;
  if (typeof record.key !== "string" || typeof record.savedAt !== "number" || !Array.isArray(record.fingerprints) || !record.fingerprints.every(isFingerprint)) return undefined;
  if (!isStringArray(record.warnings) || typeof settings !== "object" || settings === null) return undefined;
  if (!["deny", "warn", "off"].includes(settings.mode as string) || !isStringArray(settings.allowPaths) || !isStringArray(settings.allowCommands)) return undefined;
  return {
    key: record.key,
    fingerprints: record.fingerprints,
    settings: { mode: settings.mode as HookSettings["mode"], allowPaths: settings.allowPaths, allowCommands: settings.allowCommands },
    warnings: record.warnings,
    savedAt: record.savedAt,
  };
}

async function readEntries(file: string): Promise<CacheEntry[]> {
  try {
    // Synchronous: this short-lived process has nothing else to do meanwhile, and one call beats four thread-pool hops.
    const parsed = JSON.parse(readFileSync(file, "utf8")) as { version?: unknown; entries?: unknown };
    if (parsed.version !== CACHE_VERSION || !Array.isArray(parsed.entries)) return [];
    return parsed.entries.map(asEntry).filter((entry): entry is CacheEntry => entry !== undefined);
  } catch {
    return [];
  }
}

/**
 * fingerprintFile (config/fingerprint.ts) with a synchronous stat: the first use of fs.promises
 * loads Node's promise-based fs and streams, which a hook run needs nothing else from.
 * Same answers: a missing file (or a file under a non-directory) does not exist; any other error
 * gets the fingerprint that never matches a real one.
 */
export function fingerprintFileSync(file: string): FileFingerprint {
  try {
    return fingerprintOf(file, statSync(file, { throwIfNoEntry: false }));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOTDIR") return fingerprintOf(file, undefined);
    return { path: file, exists: true, size: -1, mtimeMs: -1, ctimeMs: -1, ino: -1 };
  }
}

/**
 * The settings for this repository and environment: from the cache when every file the last full
 * load read is unchanged, else from `load`, whose answer (with the fingerprints it returns) is
 * then saved. A cache that cannot be read or written only costs the full load.
 */
export async function cachedHookSettings(
  repoRoot: string,
  env: NodeJS.ProcessEnv,
  load: () => Promise<LoadedHookSettings & { fingerprints: FileFingerprint[] }>,
  /** Repositories remembered in the cache file; the least recently loaded beyond this are dropped. */
  maxEntries = 64,
): Promise<LoadedHookSettings> {
  const key = settingsCacheKey(repoRoot, env);
  let file: string | undefined;
  try {
    file = path.join(await stateDirectory(env), CACHE_FILE);
  } catch {
    // No private state directory here: nothing to trust or keep.
  }
  const entries = file === undefined ? [] : await readEntries(file);
  const hit = entries.find((entry) => entry.key === key);
  if (hit) {
    const current = hit.fingerprints.map((fingerprint) => fingerprintFileSync(fingerprint.path));
    if (current.every((fingerprint, index) => sameFingerprint(fingerprint, hit.fingerprints[index]!))) return { settings: hit.settings, warnings: hit.warnings };
  }
  const loaded = await load();
  if (file !== undefined) {
    const fresh: CacheEntry = { key, fingerprints: loaded.fingerprints, settings: loaded.settings, warnings: loaded.warnings, savedAt: Date.now() };
    const kept = [fresh, ...entries.filter((entry) => entry.key !== key)].slice(0, maxEntries);
    await saveEntries(file, kept).catch(() => {});
  }
  return { settings: loaded.settings, warnings: loaded.warnings };
}

/** Whole-file replace: a concurrent hook reads the old entries or the new ones, never a torn file. */
async function saveEntries(file: string, entries: CacheEntry[]): Promise<void> {
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    await fs.writeFile(temp, JSON.stringify({ version: CACHE_VERSION, entries }), { mode: 0o600, flag: "wx" });
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
}
