/**
 * Reading one ast-mcp.toml: size limit, UTF-8, TOML syntax, then the strict schema.
 * Invalid parts are reported and left out while the valid rest still applies, so one typo
 * cannot switch off the deny rules written next to it.
 */
import { promises as fs } from "node:fs";
import type { Stats } from "node:fs";
import { parse as parseToml, TomlError } from "smol-toml";
import type { z } from "zod";
import { LIMITS } from "../core/limits.ts";
import { closestKey, formatKeyPath, knownKeysAt } from "./keys.ts";
import { ConfigFileSchema, PathRuleSchema } from "./schema.ts";
import type { ConfigFile } from "./schema.ts";
import type { ConfigProblem } from "./types.ts";
import { type FileFingerprint, fingerprintFile, fingerprintOf, statIfExists } from "./fingerprint.ts";

export interface LoadedConfigFile {
  path: string;
  exists: boolean;
  /** The valid part of the file ({} when missing or unusable). */
  data: ConfigFile;
  problems: ConfigProblem[];
  fingerprint: FileFingerprint;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Reads and validates one configuration file; never throws. */
export async function readConfigFile(path: string): Promise<LoadedConfigFile> {
  const problems: ConfigProblem[] = [];
  const problem = (keyPath: string, message: string) => problems.push({ file: path, keyPath, message });
  const unusable = (fingerprint: FileFingerprint): LoadedConfigFile => ({ path, exists: fingerprint.exists, data: {}, problems, fingerprint });

  let stats: Stats | undefined;
  try {
    stats = await statIfExists(path);
  } catch (error) {
    problem("", `cannot read the file: ${errorText(error)}`);
    return unusable(await fingerprintFile(path));
  }
  // Taken before reading, so a change made while reading shows up at the next refresh.
  const fingerprint = fingerprintOf(path, stats);
  if (!stats) return unusable(fingerprint);
  if (!stats.isFile()) {
    problem("", "not a regular file");
    return unusable(fingerprint);
  }
  const limit = LIMITS.config.maxFileBytes;
  if (stats.size > limit) {
    problem("", `file is ${stats.size} bytes; configuration files are limited to ${limit} bytes`);
    return unusable(fingerprint);
  }

  let bytes: Buffer;
  try {
    bytes = await fs.readFile(path);
  } catch (error) {
    problem("", `cannot read the file: ${errorText(error)}`);
    return unusable(fingerprint);
  }
  if (bytes.length > limit) {
    problem("", `file grew beyond the ${limit}-byte limit while being read`);
    return unusable(fingerprint);
  }

  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    problem("", "file is not valid UTF-8");
    return unusable(fingerprint);
  }

  let raw: Record<string, unknown>;
  try {
    raw = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof TomlError) {
      const headline = error.message.split("\n")[0] ?? error.message;
      problem("", `TOML syntax error at line ${error.line}, column ${error.column}: ${headline}`);
    } else {
      problem("", `TOML syntax error: ${errorText(error)}`);
    }
    return unusable(fingerprint);
  }

  const { data, problems: schemaProblems } = validateConfigData(raw, path);
  problems.push(...schemaProblems);
  return { path, exists: true, data, problems, fingerprint };
}

function issueProblems(issue: z.core.$ZodIssue, prefix: ReadonlyArray<PropertyKey>, file: string): ConfigProblem[] {
  const path = [...prefix, ...issue.path];
  if (issue.code === "unrecognized_keys") {
    const known = knownKeysAt(path);
    return issue.keys.map((key) => {
      const suggestion = closestKey(key, known);
      const hint = suggestion ? `; did you mean "${suggestion}"?` : known.length > 0 ? `; known keys here: ${known.join(", ")}` : "";
      return { file, keyPath: formatKeyPath([...path, key]), message: `unknown key${hint}` };
    });
  }
  return [{ file, keyPath: formatKeyPath(path), message: issue.message }];
}

/** Deletes the part of the document an issue is about: the unknown keys, or the whole offending setting. */
function removeOffending(document: Record<string, unknown>, issue: z.core.$ZodIssue): void {
  const getAt = (path: ReadonlyArray<PropertyKey>): unknown => {
    let node: unknown = document;
    for (const segment of path) {
      if (node === null || typeof node !== "object") return undefined;
      node = (node as Record<PropertyKey, unknown>)[segment];
    }
    return node;
  };
  const deleteKeys = (path: ReadonlyArray<PropertyKey>, keys: readonly string[]) => {
    const node = getAt(path);
    if (node !== null && typeof node === "object") { for (const key of keys) delete (node as Record<string, unknown>)[key]; }
  };

  const firstIndex = issue.path.findIndex((segment) => typeof segment === "number");
  if (firstIndex === -1 && issue.code === "unrecognized_keys") {
    deleteKeys(issue.path, issue.keys);
    return;
  }
  // A bad element makes its whole list unusable (e.g. one empty root drops workspace.roots).
  const path = firstIndex === -1 ? issue.path : issue.path.slice(0, firstIndex);
  const last = path[path.length - 1];
  if (last !== undefined) deleteKeys(path.slice(0, -1), [String(last)]);
}

/**
 * Validates a parsed document against the strict schema, keeping what is valid.
 * Each [[paths]] rule stands alone: an invalid rule is dropped, the others stay.
 */
function validateConfigData(raw: Record<string, unknown>, file: string): { data: ConfigFile; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const seen = new Set<string>();
  const add = (items: ConfigProblem[]) => {
    for (const item of items) {
      const key = `${item.keyPath}\u0000${item.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      problems.push(item);
    }
  };

  const document = structuredClone(raw);
  if (Array.isArray(document.paths)) {
    const validRules: unknown[] = [];
    document.paths.forEach((rule: unknown, index: number) => {
      const result = PathRuleSchema.safeParse(rule);
      if (result.success) validRules.push(result.data);
      else for (const issue of result.error.issues) add(issueProblems(issue, ["paths", index], file));
    });
    document.paths = validRules;
  }

  // Removing one offending key can only expose problems already reported, so a few passes suffice.
  for (let pass = 0; pass < 4; pass++) {
    const result = ConfigFileSchema.safeParse(document);
    if (result.success) return { data: result.data, problems };
    for (const issue of result.error.issues) {
      add(issueProblems(issue, [], file));
      removeOffending(document, issue);
    }
  }
  add([{ file, keyPath: "", message: "the file could not be validated and is ignored" }]);
  return { data: {}, problems };
}
