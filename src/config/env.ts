/**
 * Environment variables as a configuration layer: AST_MCP_<SECTION>_<KEY> for every key the
 * schema defines (AST_MCP_HTTP_PORT → http.port), coerced by the key's schema type.
 */
import path from "node:path";
import { CONFIG_LEAVES, PATH_KEYS } from "./keys.ts";
import type { ConfigLeaf } from "./keys.ts";
import type { ConfigProblem } from "./types.ts";

const ENV_PREFIX = "AST_MCP_";
/** The bearer token for HTTP: a secret, kept out of the configuration. */
export const TOKEN_ENV = "AST_MCP_TOKEN";
/** Path of the user configuration file, replacing the platform default. */
export const CONFIG_PATH_ENV = "AST_MCP_CONFIG";

/** Directory of the code index's persisted snapshots, replacing the platform cache directory. */
export const CACHE_DIR_ENV = "AST_MCP_CACHE_DIR";
/** Where the write journal and locks live, replacing the platform state directory. */
export const STATE_DIR_ENV = "AST_MCP_STATE_DIR";

/** The benchmark's choice of CLI build (read by bench/lib.ts only). */
const BENCH_CLI_ENV = "AST_MCP_BENCH_CLI";
const SPECIAL_VARIABLES: ReadonlySet<string> = new Set([TOKEN_ENV, CONFIG_PATH_ENV, CACHE_DIR_ENV, STATE_DIR_ENV, BENCH_CLI_ENV]);

function envVariableFor(leaf: ConfigLeaf): string {
  return `${ENV_PREFIX}${leaf.section.replaceAll(".", "_").toUpperCase()}_${leaf.key.toUpperCase()}`;
}

/** Variable name → leaf, derived from the schema. */
export const ENV_VARIABLES: ReadonlyMap<string, ConfigLeaf> = new Map(CONFIG_LEAVES.map((leaf) => [envVariableFor(leaf), leaf]));

export interface EnvSetting {
  leaf: ConfigLeaf;
  variable: string;
  value: unknown;
}

const TRUE_WORDS = new Set(["true", "1", "yes", "on"]);
const FALSE_WORDS = new Set(["false", "0", "no", "off"]);
const NUMBER_PATTERN = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const SHOWN_VALUE_CHARS = 80;

function shown(text: string): string {
  return JSON.stringify(text.length > SHOWN_VALUE_CHARS ? `${text.slice(0, SHOWN_VALUE_CHARS)}…` : text);
}

type Coerced = { ok: true; value: unknown } | { ok: false; message: string };

function coerce(leaf: ConfigLeaf, text: string): Coerced {
  const trimmed = text.trim();
  switch (leaf.kind) {
    case "number":
      return NUMBER_PATTERN.test(trimmed) ? { ok: true, value: Number(trimmed) } : { ok: false, message: "expected a number" };
    case "boolean": {
      const word = trimmed.toLowerCase();
      if (TRUE_WORDS.has(word)) return { ok: true, value: true };
      if (FALSE_WORDS.has(word)) return { ok: true, value: false };
      return { ok: false, message: "expected true or false (also 1/0, yes/no, on/off)" };
    }
    case "string_list": {
      const separator = PATH_KEYS.has(leaf.dotted) ? path.delimiter : ",";
      return { ok: true, value: text.split(separator).map((item) => item.trim()).filter((item) => item !== "") };
    }
    case "string_map": {
      // "glob=value,glob2=value2"; a key holding "=" or "," cannot be written this way (use a file).
      const map: Record<string, string> = {};
      for (const pair of text.split(",")) {
        if (pair.trim() === "") continue;
        const equals = pair.indexOf("=");
        if (equals <= 0) return { ok: false, message: "expected key=value pairs separated by \",\"" };
        map[pair.slice(0, equals).trim()] = pair.slice(equals + 1).trim();
      }
      return { ok: true, value: map };
    }
    case "string":
    case "enum":
      return { ok: true, value: trimmed };
  }
}

/**
 * Reads every AST_MCP_* variable. Empty values count as unset. A value that does not fit the
 * key's type is a problem naming the variable; an unknown AST_MCP_* name is only a warning
 * because the environment is shared with other tools and versions.
 */
export function readEnvLayer(env: NodeJS.ProcessEnv): { settings: EnvSetting[]; problems: ConfigProblem[]; warnings: string[] } {
  const settings: EnvSetting[] = [];
  const problems: ConfigProblem[] = [];
  const warnings: string[] = [];
  for (const [variable, text] of Object.entries(env)) {
    if (!variable.startsWith(ENV_PREFIX) || SPECIAL_VARIABLES.has(variable)) continue;
    const leaf = ENV_VARIABLES.get(variable);
    if (!leaf) {
      warnings.push(`environment variable ${variable} is not a known setting and is ignored`);
      continue;
    }
    if (text === undefined || text.trim() === "") continue;
    const coerced = coerce(leaf, text);
    const problem = (message: string) => problems.push({ file: `env:${variable}`, keyPath: leaf.dotted, message: `${variable}=${shown(text)}: ${message}` });
    if (!coerced.ok) {
      problem(coerced.message);
      continue;
    }
    const checked = leaf.schema.safeParse(coerced.value);
    if (!checked.success) {
      problem(checked.error.issues.map((issue) => issue.message).join("; "));
      continue;
    }
    settings.push({ leaf, variable, value: checked.data });
  }
  // Deterministic order regardless of how the environment happens to be ordered.
  settings.sort((a, b) => a.variable.localeCompare(b.variable));
  return { settings, problems, warnings };
}
