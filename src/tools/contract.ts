/**
 * The contract every tool follows: a strict zod input schema, a published output schema,
 * annotations, a handler that returns structured data or throws ToolError, and a renderer
 * that turns the structured result into compact text for a model.
 */
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
  handler: (args: z.output<Input>, context: ToolContext) => Promise<z.input<Output>>;
  /** Compact text for the model; not the JSON printed again. */
  render: (result: z.output<Output>) => string;
}

/** Identity helper that keeps each tool's input and output types tied together. */
export function defineTool<Input extends z.ZodObject, Output extends z.ZodObject>(
  definition: ToolDefinition<Input, Output>,
): ToolDefinition<Input, Output> {
  return definition;
}

export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolDefinition<any, any>;
