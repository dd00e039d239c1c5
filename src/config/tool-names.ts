/**
 * Every tool name ast-mcp knows, so `[tools]` lists can be checked while the configuration loads
 * (the configuration layer does not import the tools). A test keeps it in step with src/tools/index.ts:
 * a new tool adds its name here.
 */
export const TOOL_NAMES: readonly string[] = [
  // Files and workspace.
  "file_read",
  "file_hash",
  "file_capabilities",
  "document_query",
  "policy_check",
  "config_status",
  // Guarded writes.
  "file_write",
  "file_patch",
  "file_rename",
  "file_delete",
  "file_chattr",
  "file_undo",
  "journal_list",
  // Outlines and the index.
  "map",
  "digest",
  "show",
  "surface",
  "index",
  // Import graph.
  "deps",
  "reverse_deps",
  "graph",
  "cycles",
  // Call graph.
  "callers",
  "callees",
  "trace",
  "implements",
  "impact",
  "context",
  // Search, structural run, log squeezing.
  "search",
  "find_related",
  "run",
  "squeeze",
  "unsqueeze",
];

const KNOWN: ReadonlySet<string> = new Set(TOOL_NAMES);

export function isKnownToolName(name: string): boolean {
  return KNOWN.has(name);
}
