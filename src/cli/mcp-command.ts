/**
 * `ast-mcp mcp`: load the configuration, build the root policy, and serve the one MCP server
 * over stdio (default) or Streamable HTTP.
 */
import { randomUUID } from "node:crypto";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { ConfigStore } from "../config/store.ts";
import type { ConfigSnapshot } from "../config/types.ts";
import { LIMITS } from "../core/limits.ts";
import { log, setLogLevel } from "../core/log.ts";
import { VERSION } from "../core/version.ts";
import { recoverJournal } from "../patch/index.ts";
import { Workspace } from "../policy/workspace.ts";
import type { startHttpServer } from "../server/http.ts";
import { manageLifecycle } from "../server/lifecycle.ts";
import { oauthSettingsFrom } from "../server/oauth.ts";
import { createMcpServer, type ServerDeps } from "../server/mcp.ts";
import { StdioTransport } from "../server/stdio.ts";
import { createToolServices, TOOLS } from "../tools/index.ts";
import { narrowestProfileFor } from "../tools/profiles.ts";
import type { ToolServices } from "../tools/services.ts";
import { parseArgs, parsePort } from "./args.ts";
import type { CommandIO } from "./io.ts";

export const MCP_USAGE = `Usage: ast-mcp mcp [--transport stdio|http] [--host H] [--port P] [--json-response] [ROOT…]

Serve the ast-mcp tools to an MCP host.

  --transport stdio|http  stdio (default): JSON-RPC over stdin/stdout.
                          http: Streamable HTTP at http://HOST:PORT/mcp (default 127.0.0.1:3768).
  --host H                Address to bind for http. A non-loopback address needs a token
                          (AST_MCP_TOKEN or [http].token_file in the user config) or the
                          OAuth mode ([http.auth]: access tokens from an authorization server).
  --port P                Port for http (0 picks a free one).
  --json-response         Answer HTTP POSTs with plain JSON instead of SSE streams.
  ROOT…                   Directories the tools may see (default: [workspace].roots, else the
                          current directory unless that is / or your home directory).

Environment: AST_MCP_LOG_LEVEL (debug|info|warn|error), AST_MCP_TOKEN, AST_MCP_CONFIG, AST_MCP_<SECTION>_<KEY>.
`;

const FLAGS = {
  help: { type: "boolean" },
  transport: { type: "string", choices: ["stdio", "http"] },
  host: { type: "string" },
  port: { type: "string" },
  "json-response": { type: "boolean" },
} as const;

/** The process-wide dependencies every session's server shares. */
export function serverDeps(store: ConfigStore): ServerDeps & { services: ToolServices } {
  let cached: { generation: number; workspace: Promise<Workspace> } | undefined;
  let lastRefresh = 0;
  return {
    services: createToolServices(),
    // Re-stat the config files at most once per interval: edits are picked up within it, and a
    // busy session does not pay for stat calls on every request.
    snapshot: async () => {
      const now = Date.now();
      if (now - lastRefresh < LIMITS.config.refreshIntervalMs) return store.current();
      lastRefresh = now;
      return store.refresh();
    },
    workspaceFor: (snapshot: ConfigSnapshot) => {
      if (!cached || cached.generation !== snapshot.generation) {
        cached = { generation: snapshot.generation, workspace: Workspace.create(snapshot.config) };
      }
      return cached.workspace;
    },
  };
}

/**
 * Serves one stdio connection in whichever era its client opens with: `initialize` pins a 2025-era session,
 * a request carrying the 2026-07-28 `_meta` envelope (or a `server/discover` probe) a stateless one.
 */
export function serveStdioConnection(deps: ServerDeps, transport: StdioTransport): { close(): Promise<void> } {
  // Unique per process: "this session's last batch" must never reach a batch of an earlier run.
  const sessionId = `stdio-${randomUUID()}`;
  return serveStdio(({ era }) => createMcpServer(deps, era === "legacy" ? sessionId : `stdio-stateless-${randomUUID()}`), {
    transport,
    onerror: (error) => log.debug("stdio message refused or failed", { error: error.message }),
  });
}

export async function runMcpCommand(argv: string[], io: CommandIO): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FLAGS);
  if (flags.help) {
    io.stdout(MCP_USAGE);
    return 0;
  }
  const cliOverrides: { host?: string; port?: number; json_response?: boolean } = {};
  if (typeof flags.host === "string") cliOverrides.host = flags.host;
  const port = parsePort(flags.port, 0);
  if (port !== undefined) cliOverrides.port = port;
  if (flags["json-response"]) cliOverrides.json_response = true;

  const store = await ConfigStore.open({ cwd: io.cwd, cliRoots: positionals, cliOverrides, env: io.env });
  const snapshot = store.current();
  setLogLevel(snapshot.config.log.level);
  if (snapshot.problems.length > 0) {
    for (const problem of snapshot.problems) io.stderr(`ast-mcp: config problem in ${problem.file}: ${problem.keyPath}: ${problem.message}\n`);
    io.stderr("ast-mcp: refusing to start with an invalid configuration; run `ast-mcp config validate` for details.\n");
    return 1;
  }
  for (const warning of snapshot.warnings) log.warn(warning);
  if (snapshot.config.workspace.roots.length === 0) {
    log.warn("no roots: every path answer will say how to configure one (pass a ROOT or set [workspace].roots)");
  } else {
    log.info("roots", { roots: snapshot.config.workspace.roots });
  }

  // Finish or roll back batches a crashed writer left half-done before anyone reads or writes.
  const recovery = await recoverJournal();
  if (recovery.batches.length > 0) log.warn("journal recovery", { report: recovery });
  const deps = serverDeps(store);
  if ((flags.transport ?? "stdio") === "stdio") {
    let lifecycle: ReturnType<typeof manageLifecycle> | undefined;
    const transport = new StdioTransport({ input: process.stdin, output: process.stdout, afterClose: () => lifecycle?.shutdown("stdin closed") });
    const connection = serveStdioConnection(deps, transport);
    lifecycle = manageLifecycle(async () => {
      await connection.close();
      await deps.services.shutdown(LIMITS.shutdown.snapshotFlushMs);
    });
    log.info(`ast-mcp ${VERSION} serving over stdio`);
    return await new Promise<number>(() => {});
  }

  const http = snapshot.config.http;
  let handle: Awaited<ReturnType<typeof startHttpServer>> | undefined;
  deps.onToolSetChanged = () => handle?.notifyToolListChanged();
  try {
    // Loaded here only: the HTTP stack reads the runtime's fetch globals as it loads, which costs a stdio server's start tens of milliseconds.
    const { startHttpServer } = await import("../server/http.ts");
    handle = await startHttpServer({
      host: http.host,
      port: http.port,
      jsonResponse: http.json_response,
      token: snapshot.token,
      oauth: oauthSettingsFrom(http.auth, (toolName) => narrowestProfileFor(TOOLS, toolName)),
      maxSessions: http.max_sessions,
      sessionIdleMs: http.session_idle_minutes * 60_000,
      allowedHosts: http.allowed_hosts,
      allowedOrigins: http.allowed_origins,
      version: VERSION,
      createServer: (sessionId) => createMcpServer(deps, sessionId),
    });
  } catch (error) {
    io.stderr(`ast-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const served = handle;
  manageLifecycle(async () => {
    await served.close();
    await deps.services.shutdown(LIMITS.shutdown.snapshotFlushMs);
  });
  log.info(`ast-mcp ${VERSION} listening on ${served.url}`);
  return await new Promise<number>(() => {});
}
