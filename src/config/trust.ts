/**
 * The project file (`<firstRoot>/ast-mcp.toml`) is untrusted: it may arrive with a cloned repository.
 * It may only make ast-mcp stricter. This table is the single statement of what it may set;
 * every key not listed (roots, [http], [log], and any future key naming commands to run) is
 * ignored with a warning. A new key a project may tighten gets one line here.
 */
import { type ConfigFile, DEFAULT_CONFIG } from "./schema.ts";

export type ProjectPermission =
  /** Any valid value: the key only narrows something the project itself declares. */
  | { kind: "any" }
  /** Only values that make ast-mcp stricter; `direction` says which, for the warning. */
  | { kind: "tighten"; direction: string; isTightening: (value: unknown) => boolean }
  /** A list the project may only add to: its items join what the trusted layers set, never replace it. */
  | { kind: "add" };

const ANY: ProjectPermission = { kind: "any" };
/** A limit a project may only lower: at most the built-in default, whatever the user set. */
function atMost(ceiling: number): ProjectPermission {
  return { kind: "tighten", direction: `a value of at most ${ceiling}`, isTightening: (value) => typeof value === "number" && value <= ceiling };
}
const ONLY_DENY: ProjectPermission = { kind: "tighten", direction: "\"deny\"", isTightening: (value) => value === "deny" };

/** Key patterns ("[]" stands for any element of a list of tables) → what a project file may do. */
export const PROJECT_PERMISSIONS: Readonly<Record<string, ProjectPermission>> = {
  "safety.require_hash": { kind: "tighten", direction: "true", isTightening: (value) => value === true },
  "safety.fuzzy_match": { kind: "tighten", direction: "false", isTightening: (value) => value === false },
  "safety.fuzzy_threshold": { kind: "tighten", direction: "a value of at least 0.9", isTightening: (value) => typeof value === "number" && value >= 0.9 },
  // Formatting is a repository's own style choice, not a security boundary.
  "format.enabled": ANY,
  "format.on_failure": { kind: "tighten", direction: "\"refuse\"", isTightening: (value) => value === "refuse" },
  // The hook only steers agents; a project may switch it to deny but never loosen it or add allow-lists.
  "hook.mode": { kind: "tighten", direction: "\"deny\"", isTightening: (value) => value === "deny" },
  // The code index: a project may stop persisting and lower the limits (never above the defaults), and say how its own files parse.
  "index.persist": { kind: "tighten", direction: "false", isTightening: (value) => value === false },
  "index.background": { kind: "tighten", direction: "false", isTightening: (value) => value === false },
  "index.max_files": atMost(DEFAULT_CONFIG.index.max_files),
  "index.max_file_bytes": atMost(DEFAULT_CONFIG.index.max_file_bytes),
  "languages.overrides": ANY,
  // A project may switch tools off (joining the user's list), never on: no profile, no enabled.
  "tools.disabled": { kind: "add" },
  "paths[].path": ANY,
  "paths[].include": ANY,
  "paths[].exclude": ANY,
  "paths[].read": ONLY_DENY,
  "paths[].write": ONLY_DENY,
  "paths[].delete": ONLY_DENY,
  "paths[].follow_symlinks": { kind: "tighten", direction: "false", isTightening: (value) => value === false },
};

/** Access fields of a rule; a project rule left without any of them grants nothing and is dropped. */
const RULE_ACCESS_KEYS = ["read", "write", "delete"] as const;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function renderValue(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : Array.isArray(value) ? JSON.stringify(value) : String(value);
}

/**
 * Keeps only what the project file may set. Returns the filtered file and one warning per
 * ignored key, each naming the key path (e.g. `http.port`, `paths[0].read`).
 */
export function filterProjectFile(file: ConfigFile, fileLabel: string): { kept: ConfigFile; warnings: string[] } {
  const warnings: string[] = [];

  const filter = (value: Record<string, unknown>, pattern: string, shown: string): Record<string, unknown> => {
    const kept: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      if (child === undefined) continue;
      const childPattern = pattern === "" ? key : `${pattern}.${key}`;
      const childShown = shown === "" ? key : `${shown}.${key}`;
      const permission = Object.hasOwn(PROJECT_PERMISSIONS, childPattern) ? PROJECT_PERMISSIONS[childPattern] : undefined;
      if (permission) {
        if (permission.kind === "any" || permission.kind === "add" || permission.isTightening(child)) {
          kept[key] = child;
        } else {
          warnings.push(
            `${fileLabel}: ${childShown} = ${renderValue(child)} ignored: the project file is untrusted and may only set it to ${permission.direction}`,
          );
        }
      } else if (isPlainObject(child)) {
        const inner = filter(child, childPattern, childShown);
        if (Object.keys(inner).length > 0) kept[key] = inner;
      } else if (Array.isArray(child) && child.length > 0 && child.every(isPlainObject)) {
        kept[key] = child.map((element, index) => filter(element, `${childPattern}[]`, `${childShown}[${index}]`));
      } else {
        warnings.push(
          `${fileLabel}: ${childShown} ignored: the project file is untrusted and cannot set it; use the user config, an AST_MCP_* variable or a command-line flag`,
        );
      }
    }
    return kept;
  };

  const kept = filter(file as Record<string, unknown>, "", "") as ConfigFile;
  if (kept.paths) {
    kept.paths = kept.paths.filter((rule) => RULE_ACCESS_KEYS.some((access) => rule[access] !== undefined));
    if (kept.paths.length === 0) delete kept.paths;
  }
  return { kept, warnings };
}
