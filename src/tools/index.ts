/** Every tool the server offers; the server factory registers exactly this list. */
import type { AnyTool } from "./contract.ts";
import { documentQueryTool } from "./document.ts";
import { fileCapabilitiesTool, fileHashTool, fileReadTool } from "./files.ts";
import { configStatusTool, policyCheckTool } from "./workspace.ts";
import { closeWriteSession, WRITE_TOOLS } from "./write.ts";

export const TOOLS: AnyTool[] = [
  fileReadTool,
  fileHashTool,
  fileCapabilitiesTool,
  documentQueryTool,
  policyCheckTool,
  configStatusTool,
  ...WRITE_TOOLS,
];

/** Frees per-session state tools keep (preview receipts) when a session ends. */
export function closeToolSession(sessionId: string): void {
  closeWriteSession(sessionId);
}
