/**
 * The configuration as it may be shown to a user or a model (config_status, `config show --json`):
 * every effective value with its source, the rules with theirs, and secrets replaced.
 */
import { CONFIG_LEAVES, leafValue } from "./keys.ts";
import type { PathRuleInput } from "./schema.ts";
import type { ConfigProblem, ConfigSnapshot, ValueSource } from "./types.ts";

export const REDACTED = "[redacted]";

/**
 * Key names that hold secrets. None of today's keys match (the token never enters the
 * configuration), but a later key named like this is hidden without anyone remembering to.
 * Paths to secrets (token_file) are not secrets.
 */
const SECRET_KEY = /(?:^|_)(?:token|secret|password|api_key)$/;

export interface ConfigSetting {
  /** JSON-safe: null stands for "not set". */
  value: unknown;
  source: ValueSource;
}

export interface RedactedConfigView {
  generation: number;
  /** Dotted key → effective value and where it came from, in schema order. */
  settings: Record<string, ConfigSetting>;
  /** Path rules in evaluation order, each with its source. */
  rules: Array<PathRuleInput & { source: string }>;
  /** Whether an HTTP token is configured and where from; the token itself never appears. */
  token: { set: boolean; source: ValueSource | null };
  files: ConfigSnapshot["files"];
  problems: ConfigProblem[];
  warnings: string[];
}

export function isSecretKey(dotted: string): boolean {
  const key = dotted.slice(dotted.lastIndexOf(".") + 1);
  return SECRET_KEY.test(key);
}

export function redactedView(snapshot: ConfigSnapshot): RedactedConfigView {
  const settings: Record<string, ConfigSetting> = {};
  for (const leaf of CONFIG_LEAVES) {
    const raw = leafValue(snapshot.config, leaf);
    const value = raw === undefined ? null : isSecretKey(leaf.dotted) ? REDACTED : structuredClone(raw);
    settings[leaf.dotted] = { value, source: snapshot.sources[leaf.dotted] ?? "default" };
  }
  return {
    generation: snapshot.generation,
    settings,
    rules: snapshot.config.paths.map((rule) => ({ ...rule })),
    token: { set: snapshot.token !== undefined, source: snapshot.token !== undefined ? (snapshot.tokenSource ?? null) : null },
    files: { ...snapshot.files },
    problems: snapshot.problems.map((problem) => ({ ...problem })),
    warnings: [...snapshot.warnings],
  };
}
