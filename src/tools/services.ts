/**
 * The per-process services the tools share (indexes, receipts, formatter and TypeScript caches).
 * The composition root (`cli/mcp-command.ts`) builds one set per process and the server hands it to
 * every call through `ToolContext.services`; a test builds its own set instead of resetting globals.
 */
import type { ConfigSnapshot } from "../config/types.ts";
import type { IndexRegistry } from "../intel/index/index.ts";
import type { SearchService } from "../intel/search/index.ts";
import type { TypeScriptProjects } from "../intel/typescript/index.ts";
import type { WriteServices } from "../patch/index.ts";
import type { Workspace } from "../policy/workspace.ts";

export interface ToolServices {
  /** The write path's receipts, formatter cache, journal stores (spares, pruning facts) and syntax-guard caches. */
  readonly writes: WriteServices;
  /** Search indexes (one per code index) and the snippet texts search and find_related show. */
  readonly search: SearchService;
  /** The code indexes (one per set of roots); writes reach them through `indexes.noteCommitted`. */
  readonly indexes: IndexRegistry;
  /** The TypeScript projects (language services) typed answers use. */
  readonly typescript: TypeScriptProjects;
  /**
   * Frees what a session kept (its preview receipts) when it ends. The server closes a stateless
   * request's per-request session the same way; what such a request leaves for later ones (bearer
   * receipts, the journal) is not keyed by it and stays.
   */
  closeSession(sessionId: string): void;
  /** Starts building the code index (then the search index) of a session's roots in the background; failures are logged. */
  warm(context: { workspace: Workspace; config: ConfigSnapshot }): void;
  /** At shutdown: writes what the indexes parsed and did not save yet (best effort within `budgetMs`), then closes them. */
  shutdown(budgetMs: number): Promise<void>;
}
