/**
 * The hook protocols of the hosts: how a PreToolUse event arrives on stdin and how an answer
 * goes back. Claude Code and Codex send `hook_event_name`/`tool_name`/`tool_input` and read
 * `hookSpecificOutput.permissionDecision`; VS Code sends the same tool fields with a camelCase
 * `hookEventName` and reads the same answer; Copilot CLI sends `toolName` with `toolArgs` (a JSON
 * string) and reads a flat `permissionDecision`. The dialect is taken from the payload itself, so
 * one hook entry works for whichever host runs it (VS Code also runs Claude Code's hooks).
 */

export type Dialect = "claude" | "vscode" | "copilot";

export interface ToolCall {
  dialect: Dialect;
  tool: string;
  input: Record<string, unknown>;
  /** The working directory the host reports, if any. */
  cwd: string | undefined;
}

export type ParsedPayload =
  | { kind: "call"; call: ToolCall }
  /** Valid JSON, but not a tool call we look at (another event, no tool name). */
  | { kind: "ignore"; dialect: Dialect | undefined }
  | { kind: "invalid"; reason: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function objectFrom(value: unknown): Record<string, unknown> {
  if (isRecord(value)) return value;
  if (typeof value === "string") {
    try {
      const parsed: unknown = JSON.parse(value);
      if (isRecord(parsed)) return parsed;
    } catch {
      // a plain string argument: keep it as "command" below
    }
    return { command: value };
  }
  return {};
}

export function parsePayload(text: string): ParsedPayload {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { kind: "invalid", reason: `the hook input is not JSON (${(error as Error).message})` };
  }
  if (!isRecord(data)) return { kind: "invalid", reason: "the hook input is not a JSON object" };
  const cwd = typeof data.cwd === "string" ? data.cwd : undefined;
  if (typeof data.toolName === "string") {
    const event = data.hookEventName ?? data.hook_event_name;
    if (event !== undefined && event !== "preToolUse" && event !== "PreToolUse") return { kind: "ignore", dialect: "copilot" };
    return { kind: "call", call: { dialect: "copilot", tool: data.toolName, input: objectFrom(data.toolArgs ?? data.toolInput ?? data.tool_input), cwd } };
  }
  const dialect: Dialect = typeof data.hook_event_name === "string" ? "claude" : typeof data.hookEventName === "string" ? "vscode" : "claude";
  const event = data.hook_event_name ?? data.hookEventName;
  if (event !== undefined && event !== "PreToolUse") return { kind: "ignore", dialect };
  if (typeof data.tool_name !== "string") return { kind: "ignore", dialect };
  return { kind: "call", call: { dialect, tool: data.tool_name, input: objectFrom(data.tool_input), cwd } };
}

export interface HookAnswer {
  /** What goes to stdout ("" for none). */
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** A denial in the dialect's own format. */
export function denyAnswer(dialect: Dialect, reason: string): HookAnswer {
  if (dialect === "copilot") {
    return { stdout: `${JSON.stringify({ permissionDecision: "deny", permissionDecisionReason: reason })}\n`, stderr: "", exitCode: 0 };
  }
  const output = { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason } };
  return { stdout: `${JSON.stringify(output)}\n`, stderr: "", exitCode: 0 };
}

/** Lets the call through with a note for the model (warn mode). */
export function warnAnswer(dialect: Dialect, message: string): HookAnswer {
  if (dialect === "copilot") return { stdout: "", stderr: `${message}\n`, exitCode: 0 };
  const output = { hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: message } };
  return { stdout: `${JSON.stringify(output)}\n`, stderr: `${message}\n`, exitCode: 0 };
}

/** Lets the call through without a word (the host goes on as if there were no hook). */
export function allowAnswer(stderr = ""): HookAnswer {
  return { stdout: "", stderr, exitCode: 0 };
}
