/** Every tool the server offers; the server factory registers exactly this list. */
import { IndexRegistry } from "../intel/index/index.ts";
import { TypeScriptProjects } from "../intel/typescript/index.ts";
import { onCommitted } from "../patch/pipeline.ts";
import type { AnyTool } from "./contract.ts";
import type { ToolServices } from "./services.ts";
import { SearchService } from "../intel/search/index.ts";
import { CALL_TOOLS } from "./calls.ts";
import { digestTool } from "./digest.ts";
import { documentQueryTool } from "./document.ts";
import { fileCapabilitiesTool, fileHashTool, fileReadTool } from "./files.ts";
import { GRAPH_TOOLS } from "./graph.ts";
import { indexTool } from "./index-tool.ts";
import { mapTool } from "./map.ts";
import { runTool } from "./run.ts";
import { findRelatedTool, searchTool } from "./search.ts";
import { showTool } from "./show.ts";
import { squeezeTool } from "./squeeze.ts";
import { surfaceTool } from "./surface.ts";
import { configStatusTool, policyCheckTool } from "./workspace.ts";
import { closeWriteSession, WRITE_TOOLS } from "./write.ts";

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
  ...GRAPH_TOOLS,
  ...CALL_TOOLS,
  searchTool,
  findRelatedTool,
  squeezeTool,
  runTool,
  ...WRITE_TOOLS,
];

/** Builds the services one process's tools share; the composition root calls it once. */
export function createToolServices(): ToolServices {
  const indexes = new IndexRegistry();
  // Until the write pipeline takes an observer from the tools layer: its commits reach this set's
  // indexes (held weakly, so a set nobody uses any more is not kept alive by the subscription).
  const held = new WeakRef(indexes);
  const stop = onCommitted((event) => {
    const registry = held.deref();
    if (registry) registry.noteCommitted(event.realPaths);
    else stop();
  });
  return {
    search: new SearchService(),
    indexes,
    typescript: new TypeScriptProjects(),
    closeSession(sessionId) {
      closeWriteSession(sessionId);
    },
  };
}
