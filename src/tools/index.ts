/** Every tool the server offers; the server factory registers exactly this list. */
import type { AnyTool } from "./contract.ts";
import type { ToolServices } from "./services.ts";
import { CALL_TOOLS } from "./calls.ts";
import { documentQueryTool } from "./document.ts";
import { fileCapabilitiesTool, fileHashTool, fileReadTool } from "./files.ts";
import { GRAPH_TOOLS } from "./graph.ts";
import { OUTLINE_TOOLS } from "./outline.ts";
import { runTool } from "./run.ts";
import { findRelatedTool, searchTool } from "./search.ts";
import { squeezeTool } from "./squeeze.ts";
import { configStatusTool, policyCheckTool } from "./workspace.ts";
import { fileChattrTool } from "./file-chattr.ts";
import { fileDeleteTool } from "./file-delete.ts";
import { filePatchTool } from "./file-patch.ts";
import { fileRenameTool } from "./file-rename.ts";
import { fileUndoTool } from "./file-undo.ts";
import { fileWriteTool } from "./file-write.ts";
import { createWriteServices } from "../patch/index.ts";

/** The mutation tools, each an adapter over the write façade (src/patch/index.ts). */
export const WRITE_TOOLS: AnyTool[] = [fileWriteTool, filePatchTool, fileRenameTool, fileDeleteTool, fileChattrTool, fileUndoTool];

export const TOOLS: AnyTool[] = [
  fileReadTool,
  fileHashTool,
  fileCapabilitiesTool,
  documentQueryTool,
  policyCheckTool,
  configStatusTool,
  ...OUTLINE_TOOLS,
  ...GRAPH_TOOLS,
  ...CALL_TOOLS,
  searchTool,
  findRelatedTool,
  squeezeTool,
  runTool,
  ...WRITE_TOOLS,
];

export interface ToolServicesOptions {
  /** How long a just-changed formatter config is read again on every write (default: FormatterCache's). */
  formatterSettleMs?: number;
}

/** Builds the services one process's tools share; the composition root calls it once. */
export function createToolServices(options: ToolServicesOptions = {}): ToolServices {
  const writes = createWriteServices(options.formatterSettleMs === undefined ? {} : { formatterSettleMs: options.formatterSettleMs });
  return {
    writes,
    closeSession(sessionId) {
      writes.closeSession(sessionId);
    },
  };
}
