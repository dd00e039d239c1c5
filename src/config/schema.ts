/**
 * The configuration schema: the single source for what `ast-mcp.toml` may contain.
 * Keys are snake_case as written in the file; unknown keys are errors (strict objects).
 */
import { z } from "zod";
import { LIMITS } from "../core/limits.ts";

export const ACCESS = z.enum(["allow", "deny"]);
export type Access = z.infer<typeof ACCESS>;

export const PathRuleSchema = z
  .strictObject({
    /** A path (relative to the first root, or absolute) or a glob such as "src/**". */
    path: z.string().min(1),
    read: ACCESS.optional(),
    write: ACCESS.optional(),
    delete: ACCESS.optional(),
    /** The rule applies only to paths matching one of these globs (when given). */
    include: z.array(z.string().min(1)).optional(),
    /** The rule never applies to paths matching these globs. */
    exclude: z.array(z.string().min(1)).optional(),
    /** Follow symlinks under this rule (only when link and target are inside the roots and allowed). */
    follow_symlinks: z.boolean().optional(),
  });
export type PathRuleInput = z.infer<typeof PathRuleSchema>;

const LOG_LEVEL = z.enum(["debug", "info", "warn", "error"]);

/** One configuration file (user or project): every key optional. */
export const ConfigFileSchema = z.strictObject({
  workspace: z.strictObject({ roots: z.array(z.string().min(1)).optional() }).optional(),
  http: z
    .strictObject({
      host: z.string().min(1).optional(),
      port: z.number().int().min(0).max(65535).optional(),
      json_response: z.boolean().optional(),
      session_idle_minutes: z.number().positive().max(7 * 24 * 60).optional(),
      max_sessions: z.number().int().min(1).max(100_000).optional(),
      token_file: z.string().min(1).optional(),
      /** Extra Host header names accepted besides the bind address (e.g. behind a reverse proxy). */
      allowed_hosts: z.array(z.string().min(1)).optional(),
      /** Browser origins allowed to call the server (scheme://host[:port]). */
      allowed_origins: z.array(z.string().min(1)).optional(),
    })
    .optional(),
  log: z.strictObject({ level: LOG_LEVEL.optional() }).optional(),
  safety: z.strictObject({ require_hash: z.boolean().optional() }).optional(),
  paths: z.array(PathRuleSchema).optional(),
});
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

/** The effective configuration after layering: every scalar has a value. */
export interface EffectiveConfig {
  workspace: { roots: string[] };
  http: {
    host: string;
    port: number;
    json_response: boolean;
    session_idle_minutes: number;
    max_sessions: number;
    token_file: string | undefined;
    allowed_hosts: string[];
    allowed_origins: string[];
  };
  log: { level: "debug" | "info" | "warn" | "error" };
  safety: { require_hash: boolean };
  /** Rules from every layer, each tagged with where it came from. */
  paths: PathRule[];
}

export interface PathRule extends PathRuleInput {
  /** Where the rule came from: "default", "user:<file>", "project:<file>". */
  source: string;
}

export const DEFAULT_CONFIG: Omit<EffectiveConfig, "paths"> = {
  workspace: { roots: [] },
  http: {
    host: LIMITS.http.defaultHost,
    port: LIMITS.http.defaultPort,
    json_response: false,
    session_idle_minutes: LIMITS.http.defaultSessionIdleMinutes,
    max_sessions: LIMITS.http.defaultMaxSessions,
    token_file: undefined,
    allowed_hosts: [],
    allowed_origins: [],
  },
  log: { level: "info" },
  safety: { require_hash: true },
};

/** Secret-like files: denied for read and write unless a user rule says otherwise. */
export const SECRET_GLOBS = [
  "**/.env",
  "**/.env.*",
  "**/*.pem",
  "**/*.key",
  "**/*.p12",
  "**/*.pfx",
  "**/id_rsa*",
  "**/id_dsa*",
  "**/id_ecdsa*",
  "**/id_ed25519*",
  "**/.npmrc",
  "**/.pypirc",
  "**/.netrc",
  "**/*.keystore",
  "**/credentials.json",
] as const;

/** The agent's own guard rails: an agent must not be able to loosen its own sandbox. */
export const GUARD_RAIL_GLOBS = [
  "**/ast-mcp.toml",
  "**/.mcp.json",
  "**/.claude/**",
  "**/.codex/**",
  "**/.cursor/**",
  "**/.vscode/**",
  "**/.gemini/**",
] as const;

export const DEFAULT_RULES: PathRule[] = [
  { path: "**/.git/**", write: "deny", delete: "deny", source: "default" },
  ...SECRET_GLOBS.map((glob): PathRule => ({ path: glob, read: "deny", write: "deny", delete: "deny", source: "default" })),
  ...GUARD_RAIL_GLOBS.map((glob): PathRule => ({ path: glob, write: "deny", delete: "deny", source: "default" })),
];
