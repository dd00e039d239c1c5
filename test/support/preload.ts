/**
 * Runs before every test file: caches and the write journal go to a private temporary directory,
 * never into the developer's (or CI's) own ~/.cache or ~/.local/state.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const base = mkdtempSync(join(tmpdir(), "ast-mcp-test-run-"));
process.env.AST_MCP_CACHE_DIR ??= join(base, "cache");
process.env.AST_MCP_STATE_DIR ??= join(base, "state");
