import type { EffectiveConfig } from "./schema.ts";

/** Where a value came from. */
export type ValueSource = "default" | `user:${string}` | `project:${string}` | `env:${string}` | `cli:${string}`;

/** One configuration problem: the dotted key path and what is wrong with it. */
export interface ConfigProblem {
  file: string;
  keyPath: string;
  message: string;
}

/** An immutable view of the effective configuration at one generation. */
export interface ConfigSnapshot {
  config: EffectiveConfig;
  /** Dotted key path (e.g. "http.port") → source of its value. Rules are tagged on each rule. */
  sources: Record<string, ValueSource>;
  /** Problems that make the configuration invalid (unparsable file, unknown key, wrong type). */
  problems: ConfigProblem[];
  /** Things ignored on purpose, e.g. allow rules in an untrusted project file. */
  warnings: string[];
  /** The files consulted and whether each existed. */
  files: { user: string; userExists: boolean; project: string | undefined; projectExists: boolean };
  /** Increases every time the effective configuration changes while the process runs. */
  generation: number;
  /** Bearer token for HTTP (from AST_MCP_TOKEN or [http].token_file); never printed. */
  token: string | undefined;
  /** Where the token came from ("env:AST_MCP_TOKEN" or the source of http.token_file); safe to show. */
  tokenSource?: ValueSource | undefined;
}
