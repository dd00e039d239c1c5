/**
 * The policy's errors. Outside-the-roots answers are built from the input text alone so that
 * every way of pointing outside (existing, missing, via a link, via "..") reads byte-identically.
 */
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { describeCodePoint } from "../helpers/path-text.ts";
import type { Operation, RuleRef } from "./types.ts";

/** Enough of a bad input to recognise it, escaped so control characters never reach a log or a model raw. */
function quoteInput(input: string): string {
  const shown = input.length > 200 ? `${input.slice(0, 200)}…` : input;
  // JSON escapes C0 controls but leaves DEL and C1 raw.
  return JSON.stringify(shown).replace(/[\u007f-\u009f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export function outsideRoots(input: string): ToolError {
  return new ToolError("path_outside_roots", `Path ${JSON.stringify(input)} is outside the workspace roots.`, {
    suggestedNextCall: { tool: "config_status", arguments: {} },
  });
}

/** Why a workspace has no roots: none configured, none usable, or none left after the client's roots/list. */
export type NoRootsReason = { kind: "none" } | { kind: "unusable"; roots: readonly string[] } | { kind: "narrowed" };

export function noRoots(reason: NoRootsReason): ToolError {
  const why = reason.kind === "narrowed" ?
    "None of the roots the client offered (MCP roots/list) lies inside, or contains, a configured root, so no path can be used." :
    reason.kind === "unusable" ?
    `No configured workspace root can be used (${reason.roots.map((root) => JSON.stringify(root)).join(", ")}: missing or not a directory), so no path can be used.` :
    "No workspace root is configured, so no path can be used.";
  return new ToolError(
    "no_roots",
    `${why} Configure one: start the server with a root argument (\`ast-mcp mcp /path/to/repo\`), ` +
      "or set [workspace].roots = [\"/path/to/repo\"] in the user config file.",
  );
}

export function notAString(): ToolError {
  return new ToolError("invalid_path", "Path must be a string.");
}

export function emptyPath(): ToolError {
  return new ToolError("invalid_path", "Path is empty; pass \".\" for the first root.");
}

export function tooLong(input: string): ToolError {
  return new ToolError("invalid_path", `Path has ${input.length} characters; the limit is ${LIMITS.pathChars}.`);
}

export function controlCharacter(input: string, index: number): ToolError {
  return new ToolError(
    "invalid_path",
    `Path ${quoteInput(input)} contains the control character ${describeCodePoint(input, index)} at offset ${index}.`,
  );
}

export function tooManyLinks(input: string): ToolError {
  return new ToolError(
    "invalid_path",
    `Path ${JSON.stringify(input)} passes through more than ${LIMITS.symlinkHops} symbolic links (a link loop?).`,
  );
}

function policyCheckCall(input: string, operation: Operation) {
  return { tool: "policy_check", arguments: { checks: [{ path: input, operation }] } };
}

/** `where` names the in-root path the rule matched, which may differ from the input (a link, or the real path). */
export function denied(input: string, operation: Operation, where: string, rule: RuleRef): ToolError {
  const subject = where === input ? JSON.stringify(input) : `${JSON.stringify(input)} (via ${JSON.stringify(where)})`;
  return new ToolError("path_denied", `${operation} of ${subject} is denied by rule ${JSON.stringify(rule.path)} from ${rule.source}.`, {
    suggestedNextCall: policyCheckCall(input, operation),
    details: { rule: { path: rule.path, source: rule.source } },
  });
}

export function followDenied(input: string, operation: Operation, link: string, rule: RuleRef): ToolError {
  return new ToolError(
    "path_denied",
    `${operation} of ${JSON.stringify(input)} would follow the symbolic link ${JSON.stringify(link)}, ` +
      `but rule ${JSON.stringify(rule.path)} from ${rule.source} sets follow_symlinks = false.`,
    { suggestedNextCall: policyCheckCall(input, operation), details: { rule: { path: rule.path, source: rule.source }, link } },
  );
}

export function ioError(where: string, error: unknown): ToolError {
  const code = typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : "unknown";
  return new ToolError("io_error", `Could not inspect ${JSON.stringify(where)} (${code}).`);
}
