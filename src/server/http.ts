/**
 * Streamable HTTP transport: one endpoint, /mcp, for every protocol revision served, plus /healthz.
 * 2026-07-28 requests (they carry the protocol version in `_meta`) go to the SDK's stateless handler,
 * one server per request; 2025-era requests (2024-11-05 … 2025-11-25) keep their stateful sessions with
 * `initialize`, the GET stream and DELETE. This module adapts bytes only; the tools live in whatever
 * server the factory builds.
 */

import { randomUUID } from "node:crypto";
import type { Server as NodeHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createMcpHandler, isInitializeRequest, isLegacyRequest, type Server } from "@modelcontextprotocol/server";
import { Hono } from "hono";
import { LIMITS } from "../core/limits.ts";
import { log } from "../core/log.ts";
import { readBodyWithinLimit } from "./http-body.ts";
import {
  bearerGuard,
  hostOriginGuard,
  isLoopbackHost,
  JSONRPC_INTERNAL_ERROR,
  JSONRPC_PARSE_ERROR,
  JSONRPC_SERVER_ERROR,
  JSONRPC_SESSION_NOT_FOUND,
  jsonRpcErrorResponse,
} from "./http-guards.ts";
import { callerOf, callerOptions, type OAuthSettings, useOAuth } from "./oauth.ts";
import { SessionRegistry } from "./sessions.ts";

export interface HttpOptions {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  /** false: responses stream as SSE (default); true: plain JSON bodies. */
  jsonResponse: boolean;
  /** Bearer token; required when binding to a non-loopback address, unless OAuth guards the endpoint. */
  token: string | undefined;
  /** [http.auth]: access tokens from an OAuth issuer instead of the static token. */
  oauth?: OAuthSettings | undefined;
  maxSessions: number;
  sessionIdleMs: number;
  /** Extra Host header values accepted (config [http].allowed_hosts). */
  allowedHosts: string[];
  /** Extra Origin header values accepted (config [http].allowed_origins). */
  allowedOrigins: string[];
  /** Reported by /healthz. */
  version: string;
  /** Builds the MCP server for one legacy session, or for one 2026-07-28 request (its id then starts with `req_`). */
  createServer: (sessionId: string) => Server;
  /** How often idle sessions are looked for; defaults to IDLE_SWEEP_MS or the idle time, whichever is shorter. */
  idleSweepMs?: number;
}

export interface HttpHandle {
  /** The MCP endpoint, e.g. http://127.0.0.1:3768/mcp. */
  url: string;
  host: string;
  port: number;
  sessionCount(): number;
  /** Tells 2026-07-28 clients listening on subscriptions/listen that the tool set changed (a session's own server tells its client). */
  notifyToolListChanged(): void;
  /** Stops accepting, closes every session and connection; rejects if cleanup failed. */
  close(): Promise<void>;
}

/** Thrown by startHttpServer when the configuration makes serving unsafe. */
class HttpStartError extends Error {
  readonly code: "token_required";
  constructor(code: "token_required", message: string) {
    super(message);
    this.name = "HttpStartError";
    this.code = code;
  }
}

const MCP_PATH = "/mcp";
/** How often idle sessions are swept by default (see HttpServerOptions.idleSweepMs). */
const IDLE_SWEEP_MS = 30_000;

function tokenRequiredMessage(host: string): string {
  return [
    `Refusing to serve HTTP on ${host}: it is not a loopback address, so anyone who can reach the port could use this server, and no bearer token is set.`,
    "Set one of:",
    "  - the AST_MCP_TOKEN environment variable (e.g. AST_MCP_TOKEN=$(openssl rand -hex 32)), or",
    "  - [http].token_file in ast-mcp.toml, naming a file that holds the token, or",
    "  - [http.auth] in ast-mcp.toml, to accept access tokens from an OAuth authorization server instead;",
    "clients then send \"Authorization: Bearer <token>\". Or bind to 127.0.0.1 to serve this machine only.",
  ].join("\n");
}

/** The Host form of an address for URLs (IPv6 in brackets). */
function urlHost(address: string): string {
  return address.includes(":") && !address.startsWith("[") ? `[${address}]` : address;
}

function hasInitializeRequest(message: unknown): boolean {
  return Array.isArray(message) ? message.some((m) => isInitializeRequest(m)) : isInitializeRequest(message);
}

export async function startHttpServer(options: HttpOptions): Promise<HttpHandle> {
  const token = options.token === undefined || options.token === "" ? undefined : options.token;
  if (token === undefined && options.oauth === undefined && !isLoopbackHost(options.host)) {
    throw new HttpStartError("token_required", tokenRequiredMessage(options.host));
  }

  const startedAt = Date.now();
  const maxBodyBytes = LIMITS.http.maxBodyBytes;
  const sessions = new SessionRegistry({
    maxSessions: options.maxSessions,
    idleMs: options.sessionIdleMs,
    jsonResponse: options.jsonResponse,
    maxBodyBytes,
    createServer: options.createServer,
  });

  // 2026-07-28: stateless, a fresh server per request from the same factory; 2025-era traffic never reaches it.
  const modern = createMcpHandler(() => options.createServer(`req_${randomUUID()}`), {
    legacy: "reject",
    maxRequestBodySize: maxBodyBytes,
    ...(options.jsonResponse ? { responseMode: "json" as const } : {}),
    onerror: (error) => log.debug("mcp request refused or failed", { error: error.message }),
  });

  const app = new Hono();
  const guard = hostOriginGuard({ bindHost: options.host, allowedHosts: options.allowedHosts, allowedOrigins: options.allowedOrigins });

  app.onError((error) => {
    log.error("http request failed", { error });
    return jsonRpcErrorResponse(500, JSONRPC_INTERNAL_ERROR, "Internal server error; the details were logged on the server.");
  });
  app.notFound((c) => c.json({ error: "not_found", message: `Nothing here; the MCP endpoint is ${MCP_PATH}.` }, 404));

  app.use("/healthz", guard);
  app.get("/healthz", (c) =>
    c.json({
      status: "ok",
      version: options.version,
      uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
      sessions: sessions.size,
    }));

  app.use(MCP_PATH, guard);
  const stepUp = options.oauth === undefined ? undefined : useOAuth(app, MCP_PATH, options.oauth);
  if (stepUp === undefined && token !== undefined) app.use(MCP_PATH, bearerGuard(token));

  const sessionNotFound = () => jsonRpcErrorResponse(404, JSONRPC_SESSION_NOT_FOUND, "Session not found: it ended or expired; start a new one with an initialize request.");

  app.post(MCP_PATH, async (c) => {
    const request = c.req.raw;
    const body = await readBodyWithinLimit(request, maxBodyBytes);
    if (!body.ok) {
      return jsonRpcErrorResponse(413, JSONRPC_SERVER_ERROR, `Payload Too Large: request bodies are limited to ${maxBodyBytes} bytes.`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body.bytes));
    } catch {
      return jsonRpcErrorResponse(400, JSONRPC_PARSE_ERROR, "Parse error: the request body is not valid JSON.");
    }
    // A tool call beyond the OAuth caller's scopes gets the step-up challenge, in every revision.
    const beyondScope = stepUp?.(request, parsed);
    if (beyondScope !== undefined) return beyondScope;

    if (!(await isLegacyRequest(request, parsed, { maxRequestBodySize: maxBodyBytes }))) return modern.fetch(request, { parsedBody: parsed, ...callerOptions(request) });

    const sessionId = c.req.header("mcp-session-id");
    if (sessionId) {
      const session = sessions.get(sessionId);
      return session ? sessions.handle(session, request, parsed, callerOf(request)) : sessionNotFound();
    }
    if (!hasInitializeRequest(parsed)) {
      return jsonRpcErrorResponse(
        400,
        JSONRPC_SERVER_ERROR,
        "Bad Request: missing Mcp-Session-Id header; send an initialize request first and repeat the session id it returns.",
      );
    }
    if (sessions.isShuttingDown) {
      return jsonRpcErrorResponse(503, JSONRPC_SERVER_ERROR, "Service Unavailable: the server is shutting down.");
    }
    if (!(await sessions.makeRoom())) {
      return jsonRpcErrorResponse(
        503,
        JSONRPC_SERVER_ERROR,
        `Service Unavailable: the server already has ${options.maxSessions} live sessions, its limit ([http].max_sessions), and every one is busy answering. ` +
          "Retry when a response has finished, or end an unused session (DELETE /mcp with its Mcp-Session-Id).",
      );
    }
    return sessions.open(request, parsed, callerOf(request));
  });

  // GET opens the server-to-client stream; DELETE ends the session. Both need a known session.
  const forwardToSession = async (request: Request, sessionId: string | undefined) => {
    if (!sessionId) {
      return jsonRpcErrorResponse(400, JSONRPC_SERVER_ERROR, "Bad Request: missing Mcp-Session-Id header.");
    }
    const session = sessions.get(sessionId);
    return session ? sessions.handle(session, request) : sessionNotFound();
  };
  app.get(MCP_PATH, (c) => forwardToSession(c.req.raw, c.req.header("mcp-session-id")));
  app.delete(MCP_PATH, (c) => forwardToSession(c.req.raw, c.req.header("mcp-session-id")));
  app.all(MCP_PATH, () => jsonRpcErrorResponse(405, JSONRPC_SERVER_ERROR, "Method Not Allowed: use POST, GET or DELETE.", { Allow: "GET, POST, DELETE" }));

  const nodeServer = await new Promise<NodeHttpServer>((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: options.host, port: options.port }, () => {
      server.off("error", reject);
      resolve(server as NodeHttpServer);
    });
    server.once("error", reject);
  });
  nodeServer.on("error", (error) => log.error("http server error", { error }));

  const sweepMs = options.idleSweepMs ?? Math.min(IDLE_SWEEP_MS, options.sessionIdleMs);
  const sweepTimer = setInterval(() => void sessions.sweepIdle(), sweepMs);
  sweepTimer.unref();

  const address = nodeServer.address() as AddressInfo;
  const port = address.port;
  let closing: Promise<void> | undefined;

  return {
    url: `http://${urlHost(options.host)}:${port}${MCP_PATH}`,
    host: options.host,
    port,
    sessionCount: () => sessions.size,
    notifyToolListChanged: () => modern.notify.toolsChanged(),
    close: () => {
      closing ??= (async () => {
        clearInterval(sweepTimer);
        await modern.close();
        const stopped = new Promise<void>((resolve, reject) => nodeServer.close((error) => (error ? reject(error) : resolve())));
        // Ending sessions first lets open SSE streams finish cleanly before sockets are cut.
        const sessionsClosed = await sessions.closeAll().then(
          () => undefined,
          (error: unknown) => error,
        );
        nodeServer.closeAllConnections();
        await stopped;
        if (sessionsClosed !== undefined) throw sessionsClosed;
      })();
      return closing;
    },
  };
}
