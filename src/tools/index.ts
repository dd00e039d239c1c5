/** Every tool the server offers; the server factory registers exactly this list. */
import { log } from "../core/log.ts";
import { IndexRegistry } from "../intel/index/index.ts";
import { TypeScriptProjects } from "../intel/typescript/index.ts";
import type { AnyTool } from "./contract.ts";
import type { ToolServices } from "./services.ts";
import { SearchService } from "../intel/search/index.ts";
import { calleesTool } from "./callees.ts";
import { callersTool } from "./callers.ts";
import { contextTool } from "./context.ts";
import { cyclesTool } from "./cycles.ts";
import { depsTool } from "./deps.ts";
import { digestTool } from "./digest.ts";
import { documentQueryTool } from "./document.ts";
import { fileCapabilitiesTool, fileHashTool, fileReadTool } from "./files.ts";
import { graphTool } from "./graph.ts";
import { impactTool } from "./impact.ts";
import { implementsTool } from "./implements.ts";
import { indexTool } from "./index-tool.ts";
import { mapTool } from "./map.ts";
import { reverseDepsTool } from "./reverse-deps.ts";
import { runTool } from "./run.ts";
import { findRelatedTool, searchTool } from "./search.ts";
import { showTool } from "./show.ts";
import { squeezeTool } from "./squeeze.ts";
import { surfaceTool } from "./surface.ts";
import { traceTool } from "./trace.ts";
import { configStatusTool, policyCheckTool } from "./workspace.ts";
import { fileChattrTool } from "./file-chattr.ts";
import { fileDeleteTool } from "./file-delete.ts";
import { filePatchTool } from "./file-patch.ts";
import { fileRenameTool } from "./file-rename.ts";
import { fileUndoTool } from "./file-undo.ts";
import { fileWriteTool } from "./file-write.ts";
import { journalListTool } from "./journal-list.ts";
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
  mapTool,
  digestTool,
  showTool,
  surfaceTool,
  indexTool,
  depsTool,
  reverseDepsTool,
  graphTool,
  cyclesTool,
  callersTool,
  calleesTool,
  traceTool,
  implementsTool,
  impactTool,
  contextTool,
  searchTool,
  findRelatedTool,
  squeezeTool,
  runTool,
  ...WRITE_TOOLS,
  journalListTool,
];

export interface ToolServicesOptions {
  /** How long a just-changed formatter config is read again on every write (default: FormatterCache's). */
  formatterSettleMs?: number;
}

/** Builds the services one process's tools share; the composition root calls it once. */
export function createToolServices(options: ToolServicesOptions = {}): ToolServices {
  const writes = createWriteServices(options.formatterSettleMs === undefined ? {} : { formatterSettleMs: options.formatterSettleMs });
  const indexes = new IndexRegistry();
  const search = new SearchService();
  return {
    writes,
    search,
    indexes,
    typescript: new TypeScriptProjects(),
    closeSession(sessionId) {
      writes.closeSession(sessionId);
    },
    warm(context) {
      const index = indexes.forContext(context);
      index
        .ensureFresh()
        .then(() => search.indexFor(index).refresh())
        .catch((error: unknown) => {
          if (!index.closed) log.warn("background indexing failed", { error: error instanceof Error ? error.message : String(error) });
        });
    },
    async shutdown(budgetMs) {
      // Both within the same budget: the code index's snapshot and the search index beside it.
      await Promise.all([indexes.flushAll(budgetMs), search.flushAll(budgetMs)]);
      indexes.closeAll();
    },
  };
}
