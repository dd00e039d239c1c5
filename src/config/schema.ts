/**
 * The configuration schema: the single source for what `ast-mcp.toml` may contain.
 * Keys are snake_case as written in the file; unknown keys are errors (strict objects).
 */
import { z } from "zod";
import { isKnownToolName } from "./tool-names.ts";
import { LANGUAGES } from "../syntax/language-names.ts";

const MiB = 1024 * 1024;

const ACCESS = z.enum(["allow", "deny"]);

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

const ExternalFormatterSchema = z.strictObject({
  /** File extensions (without the dot) this formatter handles, e.g. ["rs"]. */
  extensions: z.array(z.string().min(1)).min(1),
  /** The executable (absolute, or found on PATH); never run through a shell. */
  command: z.string().min(1),
  /** Arguments; the candidate is given on stdin and read back from stdout. "{path}" is replaced by the file's path. */
  args: z.array(z.string()).optional(),
  /** Milliseconds before the formatter is killed and the write refused (default EXTERNAL_FORMATTER_TIMEOUT_MS). */
  timeout_ms: z.number().int().min(100).max(120_000).optional(),
});
export type ExternalFormatter = z.infer<typeof ExternalFormatterSchema>;
/** formatters[].timeout_ms when a formatter does not set it. */
export const EXTERNAL_FORMATTER_TIMEOUT_MS = 10_000;

const LOG_LEVEL = z.enum(["debug", "info", "warn", "error"]);

/** Narrowest first: each profile includes the one before it. */
export const TOOL_PROFILES = ["read", "write", "full"] as const;
export type ToolProfile = (typeof TOOL_PROFILES)[number];

/** JWS algorithms an access token may be signed with: asymmetric only, so no "none" and no HMAC keyed by a public key. */
export const JWS_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"] as const;
export type JwsAlgorithm = (typeof JWS_ALGORITHMS)[number];

const ProfileNameSchema = z.enum(TOOL_PROFILES, {
  error: (issue) => `unknown tool profile ${JSON.stringify(issue.input)}; the profiles are ${TOOL_PROFILES.join(", ")}`,
});

/** [http.auth]: the OAuth 2.1 resource-server mode (off unless issuer is set). */
const HttpAuthSchema = z.strictObject({
  /** The authorization server whose access tokens this server accepts (their "iss"); setting it turns the mode on. */
  issuer: z.string().min(1).optional(),
  /** This server's MCP endpoint as clients reach it, e.g. "https://mcp.example.com/mcp": the audience tokens must name (RFC 8707). */
  resource: z.string().min(1).optional(),
  /** Where the issuer publishes its signing keys; read from the issuer's metadata when unset. */
  jwks_uri: z.string().min(1).optional(),
  /** Signature algorithms accepted. */
  algorithms: z.array(z.enum(JWS_ALGORITHMS)).min(1).optional(),
  /** Seconds of clock difference tolerated on exp and nbf. */
  leeway_seconds: z.number().int().min(0).max(300).optional(),
  /** Scope → tool profile; a token gets the widest profile its scopes name, and is refused when they name none. */
  scopes: z.record(z.string().min(1), ProfileNameSchema).optional(),
});

/** A tool name from the catalog; an unknown one is a configuration problem naming its key. */
const ToolNameSchema = z
  .string()
  .min(1)
  .superRefine((name, context) => {
    if (!isKnownToolName(name)) context.addIssue({ code: "custom", message: `unknown tool ${JSON.stringify(name)}; tools/list names every tool` });
  });

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
      auth: HttpAuthSchema.optional(),
    })
    .optional(),
  log: z.strictObject({ level: LOG_LEVEL.optional() }).optional(),
  safety: z
    .strictObject({
      /** Writes to existing files must name the file's current SHA-256. */
      require_hash: z.boolean().optional(),
      /** Let Aider blocks fall back to fuzzy matching (unique match, similarity ≥ fuzzy_threshold). */
      fuzzy_match: z.boolean().optional(),
      fuzzy_threshold: z.number().min(0.5).max(1).optional(),
    })
    .optional(),
  format: z
    .strictObject({
      /** Format candidates of formatter-clean files with the bundled dprint plugins. */
      enabled: z.boolean().optional(),
      /** When a clean file's candidate cannot be formatted: refuse the write, or write it unformatted. */
      on_failure: z.enum(["refuse", "write_unformatted"]).optional(),
    })
    .optional(),
  journal: z
    .strictObject({
      /** Committed batches kept for undo, at most. */
      max_batches: z.number().int().min(1).max(100_000).optional(),
      /** Bytes of before-images kept for undo, at most. */
      max_bytes: z.number().int().min(1024 * 1024).optional(),
      /** Days a committed batch stays undoable. */
      max_age_days: z.number().positive().max(3650).optional(),
    })
    .optional(),
  hook: z
    .strictObject({
      /** What `ast-mcp hook` does with a direct edit or a writing shell command: deny it, warn, or let it pass. */
      mode: z.enum(["deny", "warn", "off"]).optional(),
      /** Globs (relative to the repository) where direct edits and shell writes are fine, e.g. ["docs/**"]. */
      allow_paths: z.array(z.string().min(1)).optional(),
      /** Commands whose writes are fine (the command name, e.g. "prettier"), besides the built-in read-only set. */
      allow_commands: z.array(z.string().min(1)).optional(),
    })
    .optional(),
  index: z
    .strictObject({
      /** Keep a snapshot of the code index in the user cache directory for a fast cold start (validated before use). */
      persist: z.boolean().optional(),
      /** Start indexing the roots in the background as soon as a client connects, so the first read answers sooner. */
      background: z.boolean().optional(),
      /** Files the code index holds at most; the rest are counted as skipped. */
      max_files: z.number().int().min(1).max(1_000_000).optional(),
      /** Files larger than this many bytes are not indexed (counted as skipped). */
      max_file_bytes: z.number().int().min(1024).max(64 * MiB).optional(),
    })
    .optional(),
  languages: z
    .strictObject({
      /** Glob (relative to the root; a glob without "/" matches file names at any depth) → language id, e.g. { "*.tmpl.js" = "javascript" }. */
      overrides: z.record(z.string().min(1), z.enum(LANGUAGES)).optional(),
    })
    .optional(),
  tools: z
    .strictObject({
      /** Which tools tools/list offers: read (every read-only tool), write (read plus the file_* mutation tools), full (every tool). */
      profile: z.enum(TOOL_PROFILES).optional(),
      /** Tools offered on top of the profile, e.g. ["file_patch"] with profile "read". */
      enabled: z.array(ToolNameSchema).optional(),
      /** Tools never offered, whatever the profile and enabled say; calls to them answer unknown_tool. */
      disabled: z.array(ToolNameSchema).optional(),
    })
    .optional(),
  paths: z.array(PathRuleSchema).optional(),
  /** External formatters (user file only: they run commands). Run without a shell, with a timeout. */
  formatters: z.array(ExternalFormatterSchema).optional(),
});
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

type Sections = Omit<ConfigFile, "paths" | "formatters">;
/** Keys that may stay unset after layering. */
type Unset = "token_file" | "issuer" | "resource" | "jwks_uri";
/** A section after layering: every key has a value (a nested table, [http.auth], is filled too), except the Unset ones. */
type Filled<Section> = {
  [Key in keyof Section]-?: Key extends Unset ? Section[Key] | undefined : Key extends "auth" ? Filled<NonNullable<Section[Key]>> : Exclude<Section[Key], undefined>;
};

/** The effective configuration after layering, derived from the schema. */
export type EffectiveConfig = { [Name in keyof Sections]-?: Filled<NonNullable<Sections[Name]>> } & {
  /** Rules from every layer, each tagged with where it came from. */
  paths: PathRule[];
  /** External formatters from the user file only. */
  formatters: ExternalFormatter[];
};

export interface PathRule extends PathRuleInput {
  /** Where the rule came from: "default", "user:<file>", "project:<file>". */
  source: string;
}

/**
 * The value of every configuration key nobody set: the one home of these defaults (src/core/limits.ts
 * keeps only the fixed caps). A project file may lower index.max_files and index.max_file_bytes but
 * never raise them above these (src/config/trust.ts).
 */
export const DEFAULT_CONFIG: Omit<EffectiveConfig, "paths" | "formatters"> = {
  workspace: { roots: [] },
  http: {
    host: "127.0.0.1",
    port: 3768,
    json_response: false,
    session_idle_minutes: 30,
    /** Beyond it a new session gets 503. */
    max_sessions: 256,
    token_file: undefined,
    allowed_hosts: [],
    allowed_origins: [],
    auth: {
      issuer: undefined,
      resource: undefined,
      jwks_uri: undefined,
      algorithms: [...JWS_ALGORITHMS],
      leeway_seconds: 60,
      scopes: { "ast-mcp:read": "read", "ast-mcp:write": "write", "ast-mcp:full": "full" },
    },
  },
  log: { level: "info" },
  safety: { require_hash: true, fuzzy_match: false, fuzzy_threshold: 0.9 },
  format: { enabled: true, on_failure: "refuse" },
  journal: {
    max_batches: 500,
    max_bytes: 512 * MiB,
    max_age_days: 14,
  },
  hook: { mode: "deny", allow_paths: [], allow_commands: [] },
  index: { persist: true, background: true, max_files: 50_000, max_file_bytes: 2 * MiB },
  languages: { overrides: {} },
  tools: { profile: "full", enabled: [], disabled: [] },
};

/** Secret-like files: denied for read and write unless a user rule says otherwise. */
const SECRET_GLOBS = [
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
const GUARD_RAIL_GLOBS = [
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
