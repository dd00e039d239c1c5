/**
 * The per-process services the tools share (indexes, receipts, formatter and TypeScript caches).
 * The composition root (`cli/mcp-command.ts`) builds one set per process and the server hands it to
 * every call through `ToolContext.services`; a test builds its own set instead of resetting globals.
 */
import type { WriteServices } from "../patch/index.ts";

export interface ToolServices {
  /** The write path's receipts and formatter cache. */
  writes: WriteServices;
  /** Frees what a session kept (preview receipts and the like) when it ends. */
  closeSession(sessionId: string): void;
}
