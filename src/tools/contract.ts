/**
 * The contract every tool follows: a strict zod input schema, a published output schema,
 * annotations, the error codes it may answer with, a handler that returns structured data or
 * throws ToolError, and a renderer that turns the structured result into compact text for a model.
 */
import { ERROR_CODES, type ErrorCode, isToolError, ToolError } from "../core/errors.ts";
import { log } from "../core/log.ts";
import type { ToolServices } from "./services.ts";
import type { z } from "zod";
import type { ConfigSnapshot } from "../config/types.ts";
import type { Workspace } from "../policy/workspace.ts";

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: false;
}

/** What a handler may use: the session's workspace (the only path authority) and the configuration. */
export interface ToolContext {
  workspace: Workspace;
  config: ConfigSnapshot;
  sessionId: string;
  /** True when the request came from a stateless (2026-07-28) client: no session outlives the request, so state must travel as handles the client passes back. */
  stateless: boolean;
  /** The client an authenticated request came from (its OAuth subject); undefined when the transport cannot tell (stdio, the static token). */
  principal?: string | undefined;
  signal: AbortSignal;
  /** The per-process services (see services.ts), built once by the composition root. */
  services: ToolServices;
  /**
   * Reports progress of a long call (MCP notifications/progress) when the client asked for it with a
   * progressToken; absent otherwise. `done` must not decrease between calls.
   */
  progress?: (done: number, total: number) => void;
}

export interface ToolDefinition<Input extends z.ZodObject = z.ZodObject, Output extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** Shown to the model in tools/list; the schema's field descriptions document each parameter. */
  description: string;
  input: Input;
  output: Output;
  annotations: ToolAnnotations;
  /**
   * The catalog codes this tool may answer with, as the call's error or in a per-item error of its
   * result. In a definition: the tool's own codes; defineTool adds COMMON_ERRORS and guards the
   * handler, so a code outside the set becomes internal_error (see guardDeclaredErrors).
   */
  errors: readonly ErrorCode[];
  handler: (args: z.output<Input>, context: ToolContext) => Promise<z.input<Output>>;
  /** Compact text for the model; not the JSON printed again. */
  render: (result: z.output<Output>) => string;
}

/**
 * The codes any tool can answer with, whatever its handler does: the server refuses input that
 * fails the schema (invalid_input) and reports an unexpected failure or an output that breaks the
 * schema (internal_error).
 */
export const COMMON_ERRORS: readonly ErrorCode[] = ["invalid_input", "internal_error"];

const CATALOG_ORDER: readonly ErrorCode[] = Object.keys(ERROR_CODES) as ErrorCode[];

/**
 * Ties each tool's input and output types together, completes its declared error codes with
 * COMMON_ERRORS (in catalog order) and guards its handler so it cannot answer with a code it does
 * not declare.
 */
export function defineTool<Input extends z.ZodObject, Output extends z.ZodObject>(
  definition: ToolDefinition<Input, Output>,
): ToolDefinition<Input, Output> {
  const declared = new Set<ErrorCode>([...COMMON_ERRORS, ...definition.errors]);
  const errors = CATALOG_ORDER.filter((code) => declared.has(code));
  return { ...definition, errors, handler: guardDeclaredErrors(definition.name, declared, definition.handler) };
}

/**
 * A tool that answers with a code it does not declare is a bug in the tool, and its published
 * reference would be wrong: the call answers internal_error (naming the code in details) and the
 * violation is logged, so a test that reaches the path fails and the server carries on. Both the
 * thrown error and every per-item error of the result (an object with code, message, hint and
 * retryable) are checked.
 */
function guardDeclaredErrors<Args, Result>(
  toolName: string,
  declared: ReadonlySet<ErrorCode>,
  handler: (args: Args, context: ToolContext) => Promise<Result>,
): (args: Args, context: ToolContext) => Promise<Result> {
  return async (args, context) => {
    let result: Result;
    try {
      result = await handler(args, context);
    } catch (error) {
      if (isToolError(error) && !declared.has(error.code)) throw undeclaredError(toolName, error.code, error.message);
      throw error;
    }
    const itemCode = firstUndeclaredItemCode(result, declared);
    if (itemCode !== undefined) throw undeclaredError(toolName, itemCode, "(in a per-item error of its result)");
    return result;
  };
}

function undeclaredError(toolName: string, code: string, message: string): ToolError {
  log.error("a tool answered with an error code it does not declare; the call answers internal_error instead", { tool: toolName, code, message });
  return new ToolError("internal_error", `${toolName} failed unexpectedly; the server logged the details`, {
    details: { undeclaredCode: code },
  });
}

/** Walks a result for per-item errors ({ code, message, hint, retryable }) and returns the first code not in `declared`. */
function firstUndeclaredItemCode(value: unknown, declared: ReadonlySet<ErrorCode>): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  if (Array.isArray(value)) {
    for (const entry of value) {
      const code = firstUndeclaredItemCode(entry, declared);
      if (code !== undefined) return code;
    }
    return undefined;
  }
  const record = value as Record<string, unknown>;
  if (isItemError(record) && !declared.has(record.code as ErrorCode)) return record.code as string;
  for (const entry of Object.values(record)) {
    const code = firstUndeclaredItemCode(entry, declared);
    if (code !== undefined) return code;
  }
  return undefined;
}

function isItemError(record: Record<string, unknown>): boolean {
  return typeof record.code === "string" && typeof record.message === "string" && typeof record.hint === "string" && typeof record.retryable === "boolean";
}

export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolDefinition<any, any>;
