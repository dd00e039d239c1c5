import { afterAll, beforeAll } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * Points AST_MCP_STATE_DIR at a fresh private directory for the tests of one file (call it before
 * the file's own hooks, so they see it) and restores the variable when the file is done.
 */
export function usePrivateStateDir(): { readonly path: string } {
  const state = { path: "" };
  const previous = process.env.AST_MCP_STATE_DIR;
  beforeAll(async () => {
    state.path = await mkdtemp(path.join(tmpdir(), "ast-mcp-state-"));
    process.env.AST_MCP_STATE_DIR = state.path;
  });
  afterAll(async () => {
    if (previous === undefined) delete process.env.AST_MCP_STATE_DIR;
    else process.env.AST_MCP_STATE_DIR = previous;
    // A spare journal directory may still be in the making after the last commit (JournalStore.refillSpares).
    await rm(state.path, { recursive: true, force: true, maxRetries: 5 });
  });
  return state;
}
