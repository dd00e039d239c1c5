/**
 * The hook's decision for one tool call: direct edit tools and shell commands that write files
 * inside the repository are flagged with the ast-mcp tool to use instead; everything else passes.
 * It steers agents towards guarded writes; it is not a security boundary (a determined command
 * can always write somehow), so anything it cannot judge in a shell line counts as a write, and
 * anything that is not a file edit passes untouched.
 */
import path from "node:path";
import type { SuggestedTool } from "./commands.ts";
import type { ToolCall } from "./protocol.ts";
import type { ShellWrite } from "./shell.ts";
import { toolKind } from "./tools.ts";

export interface HookSettings {
  mode: "deny" | "warn" | "off";
  allowPaths: readonly string[];
  allowCommands: readonly string[];
}

export interface DecideOptions {
  /** The repository the agent works in; writes outside it are none of the hook's business. */
  repoRoot: string;
  /** Where relative paths start (the host's working directory). */
  cwd: string;
  home: string;
  env: NodeJS.ProcessEnv;
  /** The effective [hook] settings, loaded on demand. */
  settings: () => Promise<HookSettings>;
}

export type Verdict = { kind: "allow" } | { kind: "flag"; reason: string; tool: SuggestedTool };

const PATH_KEYS = ["file_path", "filePath", "path", "notebook_path", "notebookPath", "target_file", "file"];
const LIST_KEYS = ["files", "replacements", "edits", "paths"];
const PATCH_HEADER = /^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$/gm;

/** Every file path a direct edit call names (including those inside an apply_patch envelope). */
export function editTargets(input: Record<string, unknown>): string[] {
  const found: string[] = [];
  const take = (value: unknown) => {
    if (typeof value === "string" && value.trim() !== "") found.push(value);
  };
  for (const key of PATH_KEYS) take(input[key]);
  for (const key of LIST_KEYS) {
    const list = input[key];
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (typeof item === "string") take(item);
      else if (item !== null && typeof item === "object") { for (const inner of PATH_KEYS) take((item as Record<string, unknown>)[inner]); }
    }
  }
  for (const value of Object.values(input)) {
    if (typeof value !== "string" || !value.includes("*** Begin Patch")) continue;
    for (const match of value.matchAll(PATCH_HEADER)) take(match[1] ?? match[2]);
  }
  return found;
}

function inside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/** A repository path as globs see it ("." for the repository itself). */
function display(root: string, target: string): string {
  const relative = path.relative(root, target);
  return relative === "" ? "." : relative.split(path.sep).join("/");
}

function shown(root: string, target: string): string {
  const relative = display(root, target);
  return relative === "." ? "files anywhere in the repository" : relative;
}

const WORKFLOW = "file_read → file_patch with preview: true → expectedSha256 → apply → verify";

function advice(tool: SuggestedTool): string {
  switch (tool) {
    case "file_patch":
      return `use the ast-mcp tool \`file_patch\` instead (${WORKFLOW})`;
    case "file_write":
      return "use the ast-mcp tool `file_write` instead (or `file_patch` to change part of an existing file)";
    case "file_delete":
    case "file_rename":
    case "file_chattr":
      return `use the ast-mcp tool \`${tool}\` instead`;
    case "file_undo":
      return "use the ast-mcp tool `file_undo` to take back an ast-mcp change, or `file_write` to restore content";
  }
}

/** For a line the hook cannot judge: there is no ast-mcp tool that runs commands, so split it. */
const SPLIT = "run the read-only part on its own and make the file changes with the ast-mcp tools `file_patch` / `file_write` (commands and tests that write nothing pass)";

/** A formatter or fixer writing files: the guarded write formats for itself, or the project allows the formatter. */
function writeAdvice(write: ShellWrite): string {
  if (write.formatter === undefined) return advice(write.tool);
  const command = write.formatter;
  return `make the change with the ast-mcp tool \`file_patch\` instead (its writes are formatted when the file was formatter-clean), or let this formatter write by adding "${command}" to [hook] allow_commands in ast-mcp.toml`;
}

/** allow_commands names a command ("prettier", "cargo") or a command with its subcommand ("cargo fmt"). */
function commandAllowed(allowed: readonly string[], command: string | null): boolean {
  return command !== null && allowed.some((entry) => command === entry || command.startsWith(`${entry} `));
}

function listed(paths: string[]): string {
  const shown = paths.slice(0, 3).join(", ");
  return paths.length > 3 ? `${shown} and ${paths.length - 3} more` : shown;
}

/**
 * Decides one call. The settings are fetched only when there is something to flag, so the
 * common case (a read-only command, an edit outside the repository) never loads the configuration.
 */
export async function decide(call: ToolCall, options: DecideOptions): Promise<Verdict> {
  const kind = toolKind(call.tool);
  if (kind === "other") return { kind: "allow" };
  const inRepo = (absolute: string) => inside(options.repoRoot, absolute);
  let matcher: ((relative: string) => boolean) | undefined;
  const settings = async () => {
    const loaded = await options.settings();
    // Loaded only when a repository has allow-lists: every import costs the host time on each call.
    matcher ??= loaded.allowPaths.length > 0 ? (await import("picomatch")).default([...loaded.allowPaths], { dot: true }) : () => false;
    return loaded;
  };
  const allowedPath = (absolute: string) => (matcher as (relative: string) => boolean)(display(options.repoRoot, absolute));

  if (kind === "edit" || kind === "write") {
    const targets = editTargets(call.input).map((target) => path.resolve(options.cwd, target));
    const tool: SuggestedTool = kind === "edit" ? "file_patch" : "file_write";
    if (targets.length > 0 && !targets.some(inRepo)) return { kind: "allow" };
    if ((await settings()).mode === "off") return { kind: "allow" };
    if (targets.length === 0) return { kind: "flag", tool, reason: `ast-mcp: \`${call.tool}\` edits files directly; ${advice(tool)}.` };
    const blocked = targets.filter((target) => inRepo(target) && !allowedPath(target));
    if (blocked.length === 0) return { kind: "allow" };
    return { kind: "flag", tool, reason: `ast-mcp: \`${call.tool}\` would edit ${listed(blocked.map((target) => shown(options.repoRoot, target)))} directly; ${advice(tool)}.` };
  }

  // Codex's exec_command names its command line `cmd`; the other shell tools `command`.
  const command: unknown = call.input.command ?? call.input.cmd;
  if (typeof command !== "string" && !Array.isArray(command)) return { kind: "allow" };
  const { analyzeArgv, analyzeShell } = await import("./shell.ts");
  const shellOptions = { cwd: options.cwd, home: options.home, env: options.env };
  // An argv array is argv: joining it with spaces would re-quote nothing and hide `bash -lc "sed -i …"`.
  const analysis = typeof command === "string" ? analyzeShell(command, shellOptions) : analyzeArgv(command, shellOptions);
  const relevant = analysis.writes.filter((write) => write.path === null || inRepo(write.path));
  if (analysis.unknown.length === 0 && relevant.length === 0) return { kind: "allow" };
  const loaded = await settings();
  if (loaded.mode === "off") return { kind: "allow" };
  const unknown = analysis.unknown[0];
  if (unknown) return { kind: "flag", tool: "file_patch", reason: `ast-mcp: this shell command may write files (${unknown.via}: ${unknown.reason}); ${SPLIT}.` };
  const writes = relevant.filter((write) => !commandAllowed(loaded.allowCommands, write.command));
  const unknownTarget = writes.find((write) => write.path === null);
  if (unknownTarget) {
    return {
      kind: "flag",
      tool: unknownTarget.tool,
      reason: `ast-mcp: this shell command writes a file it names only at run time (${unknownTarget.via}); ${writeAdvice(unknownTarget)}.`,
    };
  }
  const blocked = writes.filter((write) => !allowedPath(write.path as string));
  const first = blocked[0];
  if (!first) return { kind: "allow" };
  const paths = [...new Set(blocked.map((write) => shown(options.repoRoot, write.path as string)))];
  return { kind: "flag", tool: first.tool, reason: `ast-mcp: this shell command writes ${listed(paths)} inside the repository (${first.via}); ${writeAdvice(first)}.` };
}
