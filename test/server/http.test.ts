import { afterEach, describe, expect, test } from "bun:test";
import { Agent, request as httpRequest } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LIMITS } from "../../src/core/limits.ts";
import { readBodyWithinLimit } from "../../src/server/http-body.ts";
import { bearerTokenFrom, createHostOriginCheck, createTokenCheck, parseHostHeader } from "../../src/server/http-guards.ts";
import { type HttpHandle, type HttpOptions, startHttpServer } from "../../src/server/http.ts";
import { isLoopbackHost } from "../../src/server/http-guards.ts";
import { createEchoServer } from "../support/echo-mcp-server.ts";
import { startTestHttp, testHttpOptions } from "../support/http-server.ts";

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "http-test", version: "1.0.0" } },
};
const MCP_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

interface Started {
  handle: HttpHandle;
  created: string[];
  closed: string[];
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.().catch(() => undefined);
});

async function start(overrides: Partial<HttpOptions> = {}): Promise<Started> {
  const created: string[] = [];
  const closed: string[] = [];
  const handle = await startTestHttp(
    cleanups,
    (id) => {
      created.push(id);
      return createEchoServer(id, (closedId) => closed.push(closedId));
    },
    overrides,
  );
  return { handle, created, closed };
}

async function connectClient(url: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: "http-test-client", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, transport };
}

function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, { method: "POST", headers: { ...MCP_HEADERS, ...headers }, body: JSON.stringify(body) });
}

/** Initializes a session by hand and returns its id (the response body is read fully). */
async function initializeRaw(url: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await postJson(url, INITIALIZE, headers);
  expect(response.status).toBe(200);
  await response.text();
  const id = response.headers.get("mcp-session-id");
  expect(id).toBeTruthy();
  return id as string;
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** node:http request, so Host can be set freely and bodies can be chunked. */
function rawRequest(
  port: number,
  init: { method: string; path: string; headers?: Record<string, string | number>; body?: string | Buffer; chunks?: Buffer[]; agent?: Agent },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, method: init.method, path: init.path, headers: init.headers ?? {}, ...(init.agent ? { agent: init.agent } : {}) }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (chunk: Buffer) => parts.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    if (init.chunks) {
      for (const chunk of init.chunks) req.write(chunk);
      req.end();
    } else {
      req.end(init.body);
    }
  });
}

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(20);
  }
}

describe("MCP over Streamable HTTP", () => {
  test("initialize, tools/list and tools/call over SSE responses", async () => {
    const { handle, created } = await start();
    const { client, transport } = await connectClient(handle.url);
    expect(transport.sessionId).toBe(created[0]);
    expect(client.getServerVersion()?.name).toBe("echo-test-server");

    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(["echo"]);
    const result = await client.callTool({ name: "echo", arguments: { text: "hello" } });
    expect(result.content).toEqual([{ type: "text", text: `${created[0]}:hello` }]);
    expect(handle.sessionCount()).toBe(1);

    const raw = await postJson(handle.url, INITIALIZE);
    expect(raw.headers.get("content-type")).toContain("text/event-stream");
    expect(await raw.text()).toContain("\"serverInfo\"");
  });

  test("initialize, tools/list and tools/call with plain JSON responses", async () => {
    const { handle, created } = await start({ jsonResponse: true });
    const { client } = await connectClient(handle.url);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(["echo"]);
    const result = await client.callTool({ name: "echo", arguments: { text: "json" } });
    expect(result.content).toEqual([{ type: "text", text: `${created[0]}:json` }]);

    const raw = await postJson(handle.url, INITIALIZE);
    expect(raw.headers.get("content-type")).toContain("application/json");
    const body = (await raw.json()) as { result: { serverInfo: { name: string } } };
    expect(body.result.serverInfo.name).toBe("echo-test-server");
  });

  test("each session gets its own server from the factory", async () => {
    const { handle, created } = await start({ jsonResponse: true });
    const first = await connectClient(handle.url);
    const second = await connectClient(handle.url);
    expect(created.length).toBe(2);
    expect(first.transport.sessionId).not.toBe(second.transport.sessionId);
    const reply = await second.client.callTool({ name: "echo", arguments: { text: "x" } });
    expect(reply.content).toEqual([{ type: "text", text: `${second.transport.sessionId}:x` }]);
    expect(handle.sessionCount()).toBe(2);
  });

  test("unknown session id gets 404, a non-initialize POST without a session gets 400", async () => {
    const { handle } = await start();
    const unknown = await postJson(handle.url, { jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-session-id": "no-such-session" });
    expect(unknown.status).toBe(404);
    const unknownBody = (await unknown.json()) as { jsonrpc: string; error: { code: number; message: string } };
    expect(unknownBody.jsonrpc).toBe("2.0");
    expect(unknownBody.error.message).toContain("Session not found");

    const noSession = await postJson(handle.url, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect(noSession.status).toBe(400);
    expect(((await noSession.json()) as { error: { message: string } }).error.message).toContain("Mcp-Session-Id");

    const getNoSession = await fetch(handle.url, { headers: { Accept: "text/event-stream" } });
    expect(getNoSession.status).toBe(400);
    const getUnknown = await fetch(handle.url, { headers: { Accept: "text/event-stream", "mcp-session-id": "nope" } });
    expect(getUnknown.status).toBe(404);
  });

  test("invalid JSON gets 400 parse error; a refused initialize leaves no session behind", async () => {
    const { handle, closed, created } = await start();
    const bad = await fetch(handle.url, { method: "POST", headers: MCP_HEADERS, body: "{not json" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32700);

    // Wrong Accept: the SDK refuses with 406 before the session is initialized.
    const refused = await fetch(handle.url, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify(INITIALIZE) });
    expect(refused.status).toBe(406);
    expect(handle.sessionCount()).toBe(0);
    await waitFor(() => closed.length === created.length);
  });

  test("other paths get 404 and other methods on /mcp get 405", async () => {
    const { handle } = await start();
    const base = handle.url.replace(/\/mcp$/, "");
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/mcp/extra`, { method: "POST" })).status).toBe(404);
    const put = await fetch(handle.url, { method: "PUT" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, POST, DELETE");
  });
});

describe("DNS rebinding protection", () => {
  test("a foreign Host header gets 403 on /mcp and /healthz", async () => {
    const { handle } = await start();
    const body = JSON.stringify(INITIALIZE);
    const mcp = await rawRequest(handle.port, { method: "POST", path: "/mcp", headers: { ...MCP_HEADERS, Host: "evil.example.com" }, body });
    expect(mcp.status).toBe(403);
    expect(JSON.parse(mcp.body).error.message).toContain("Host");
    const health = await rawRequest(handle.port, { method: "GET", path: "/healthz", headers: { Host: `evil.example.com:${handle.port}` } });
    expect(health.status).toBe(403);
    expect(handle.sessionCount()).toBe(0);
  });

  test("loopback Host names with any port are accepted", async () => {
    const { handle } = await start();
    for (const host of ["localhost", `localhost:${handle.port}`, "127.0.0.1:1", "[::1]", `[::1]:${handle.port}`, "LOCALHOST"]) {
      const health = await rawRequest(handle.port, { method: "GET", path: "/healthz", headers: { Host: host } });
      expect(health.status).toBe(200);
    }
  });

  test("allowedHosts extends the accepted Host names", async () => {
    const { handle } = await start({ allowedHosts: ["mcp.internal", "proxy.internal:8443"] });
    const ok = async (host: string) => (await rawRequest(handle.port, { method: "GET", path: "/healthz", headers: { Host: host } })).status;
    expect(await ok("mcp.internal:1234")).toBe(200);
    expect(await ok("proxy.internal:8443")).toBe(200);
    expect(await ok("proxy.internal:9000")).toBe(403);
  });

  test("a foreign Origin gets 403; loopback and allowed Origins are accepted", async () => {
    const { handle } = await start({ allowedOrigins: ["https://app.example.com"] });
    const foreign = await postJson(handle.url, INITIALIZE, { Origin: "http://evil.example.com" });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: { message: string } }).error.message).toContain("Origin");
    const nullOrigin = await postJson(handle.url, INITIALIZE, { Origin: "null" });
    expect(nullOrigin.status).toBe(403);

    await initializeRaw(handle.url, { Origin: "http://localhost:5173" });
    await initializeRaw(handle.url, { Origin: "http://[::1]:8080" });
    await initializeRaw(handle.url, { Origin: "https://app.example.com" });
    expect(handle.sessionCount()).toBe(3);
  });

  test("the host/origin check on a non-loopback bind", () => {
    const check = createHostOriginCheck({ bindHost: "10.1.2.3", allowedHosts: ["mcp.corp"], allowedOrigins: ["https://ui.corp"] });
    expect(check("10.1.2.3:3768", undefined).ok).toBe(true);
    expect(check("mcp.corp", undefined).ok).toBe(true);
    // IP literals and localhost cannot be rebound to another machine; the token guards them.
    expect(check("localhost:3768", undefined).ok).toBe(true);
    expect(check("127.0.0.1:3768", undefined).ok).toBe(true);
    expect(check("[fd00::1]:3768", undefined).ok).toBe(true);
    expect(check("evil.example:3768", undefined).ok).toBe(false);
    expect(check("10.1.2.3", "http://localhost:3000").ok).toBe(false);
    expect(check("10.1.2.3", "https://ui.corp").ok).toBe(true);
    expect(check(undefined, undefined).ok).toBe(false);
    expect(check("10.1.2.3:notaport", undefined).ok).toBe(false);
  });

  test("host parsing and loopback detection", () => {
    expect(parseHostHeader("[::1]:80")).toEqual({ hostname: "[::1]", port: "80" });
    expect(parseHostHeader("Example.com")).toEqual({ hostname: "example.com", port: undefined });
    expect(parseHostHeader("[::1")).toBeUndefined();
    for (const host of ["localhost", "127.0.0.1", "127.8.9.10", "::1", "[::1]", "0:0:0:0:0:0:0:1"]) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ["0.0.0.0", "::", "192.168.1.2", "example.com", "128.0.0.1"]) expect(isLoopbackHost(host)).toBe(false);
  });
});

describe("bearer token", () => {
  test("/mcp requires the token when one is set; /healthz does not", async () => {
    const token = "s3cret-token-value";
    const { handle } = await start({ token });

    const missing = await postJson(handle.url, INITIALIZE);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toStartWith("Bearer");
    const wrong = await postJson(handle.url, INITIALIZE, { Authorization: "Bearer not-the-token" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toStartWith("Bearer");
    const wrongScheme = await postJson(handle.url, INITIALIZE, { Authorization: `Basic ${token}` });
    expect(wrongScheme.status).toBe(401);
    expect(handle.sessionCount()).toBe(0);

    const right = await postJson(handle.url, INITIALIZE, { Authorization: `Bearer ${token}` });
    expect(right.status).toBe(200);
    await right.text();

    const { client } = await connectClient(handle.url, { Authorization: `Bearer ${token}` });
    expect((await client.listTools()).tools.length).toBe(1);

    const health = await fetch(handle.url.replace(/\/mcp$/, "/healthz"));
    expect(health.status).toBe(200);
  });

  test("token comparison and header parsing", () => {
    const matches = createTokenCheck("abc");
    expect(matches("abc")).toBe(true);
    expect(matches("abd")).toBe(false);
    expect(matches("abcd")).toBe(false);
    expect(matches("")).toBe(false);
    expect(bearerTokenFrom("Bearer abc")).toBe("abc");
    expect(bearerTokenFrom("bearer   abc ")).toBe("abc");
    expect(bearerTokenFrom("Bearer")).toBeUndefined();
    expect(bearerTokenFrom("Basic abc")).toBeUndefined();
    expect(bearerTokenFrom(undefined)).toBeUndefined();
  });

  test("binding to a non-loopback address without a token refuses to start", async () => {
    let factoryCalls = 0;
    const attempt = startHttpServer(
      testHttpOptions(
        (id) => {
          factoryCalls += 1;
          return createEchoServer(id);
        },
        { host: "0.0.0.0" },
      ),
    );
    const error = await attempt.then(
      () => undefined,
      (e: unknown) => e as Error & { code?: string },
    );
    expect(error).toBeInstanceOf(Error);
    expect(error?.code).toBe("token_required");
    expect(error?.message).toContain("AST_MCP_TOKEN");
    expect(error?.message).toContain("token_file");
    expect(factoryCalls).toBe(0);
  });
});

describe("limits", () => {
  test("a body over the limit gets 413 by Content-Length", async () => {
    const { handle } = await start();
    const body = Buffer.alloc(LIMITS.http.maxBodyBytes + 1, 0x20);
    const response = await rawRequest(handle.port, {
      method: "POST",
      path: "/mcp",
      headers: { ...MCP_HEADERS, "Content-Length": body.length },
      body,
    });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body).error.message).toContain(String(LIMITS.http.maxBodyBytes));
  });

  test("a chunked body over the limit gets 413 while it is read", async () => {
    const { handle } = await start();
    // One kept-alive connection: after the 413 it must still be usable (the rest of the body was drained).
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    cleanups.push(async () => agent.destroy());
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    const count = Math.ceil(LIMITS.http.maxBodyBytes / chunk.length) + 2;
    const response = await rawRequest(handle.port, {
      method: "POST",
      path: "/mcp",
      headers: { ...MCP_HEADERS, "Transfer-Encoding": "chunked" },
      chunks: Array.from({ length: count }, () => chunk),
      agent,
    });
    expect(response.status).toBe(413);
    expect(handle.sessionCount()).toBe(0);

    // A chunked body within the limit is read normally.
    const small = await rawRequest(handle.port, {
      method: "POST",
      path: "/mcp",
      headers: { ...MCP_HEADERS, "Transfer-Encoding": "chunked" },
      chunks: [Buffer.from(JSON.stringify(INITIALIZE))],
      agent,
    });
    expect(small.status).toBe(200);
    expect(handle.sessionCount()).toBe(1);
  });

  test("an oversized streamed body is drained in the background, an endless one cancelled", async () => {
    const source = (chunks: number | "endless") => {
      const state = { pulled: 0, finished: false, cancelled: false };
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (chunks !== "endless" && state.pulled >= chunks) {
            state.finished = true;
            controller.close();
            return;
          }
          state.pulled += 1;
          controller.enqueue(new Uint8Array(10));
        },
        cancel() {
          state.cancelled = true;
        },
      });
      const request = new Request("http://127.0.0.1/mcp", { method: "POST", body: stream, duplex: "half" } as RequestInit);
      return { state, request };
    };

    const within = source(3);
    const read = await readBodyWithinLimit(within.request, 100);
    expect(read.ok && read.bytes.byteLength).toBe(30);

    // Left unread, the rest would stall a kept-alive connection; read to the end instead.
    const over = source(15);
    expect((await readBodyWithinLimit(over.request, 100)).ok).toBe(false);
    await waitFor(() => over.state.finished);
    expect(over.state.cancelled).toBe(false);

    const endless = source("endless");
    expect((await readBodyWithinLimit(endless.request, 100)).ok).toBe(false);
    await waitFor(() => endless.state.cancelled);
  });

  test("a body with a declared length is read whole; a declared length over the limit is refused unread", async () => {
    const text = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const declared = new Request("http://127.0.0.1/mcp", { method: "POST", body: text, headers: { "content-length": String(Buffer.byteLength(text)) } });
    const read = await readBodyWithinLimit(declared, 100);
    expect(read.ok && Buffer.from(read.bytes).toString("utf8")).toBe(text);
    const big = new Request("http://127.0.0.1/mcp", { method: "POST", body: "x".repeat(200), headers: { "content-length": "200" } });
    expect(await readBodyWithinLimit(big, 100)).toEqual({ ok: false, reason: "too_large" });
    expect(big.bodyUsed).toBe(false);
  });

  test("at maxSessions a new initialize evicts a session that never finished its handshake, else the one idle longest", async () => {
    const { handle, closed } = await start({ maxSessions: 2, jsonResponse: true });
    const confirmHandshake = async (id: string) => {
      const response = await postJson(handle.url, { jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" });
      expect(response.status).toBe(202);
    };
    const settled = await initializeRaw(handle.url);
    await confirmHandshake(settled);
    const halfOpen = await initializeRaw(handle.url);

    // The session that never sent notifications/initialized goes first, though the other is older.
    const third = await initializeRaw(handle.url);
    expect(handle.sessionCount()).toBe(2);
    await waitFor(() => closed.includes(halfOpen));
    expect(closed).not.toContain(settled);
    await confirmHandshake(third);

    // Both handshakes done: the one idle longest makes room.
    await postJson(handle.url, { jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-session-id": third, "mcp-protocol-version": "2025-06-18" }).then((r) => r.text());
    await initializeRaw(handle.url);
    await waitFor(() => closed.includes(settled));
    expect(closed).not.toContain(third);
    const evicted = await postJson(handle.url, { jsonrpc: "2.0", id: 3, method: "tools/list" }, { "mcp-session-id": settled, "mcp-protocol-version": "2025-06-18" });
    expect(evicted.status).toBe(404);
    expect(handle.sessionCount()).toBe(2);
  });

  test("at maxSessions with every session busy, a new initialize gets 503 and no session is cut off", async () => {
    const { handle } = await start({ maxSessions: 2 });
    const streams: AbortController[] = [];
    cleanups.push(async () => {
      for (const abort of streams) abort.abort();
    });
    for (let i = 0; i < 2; i++) {
      const id = await initializeRaw(handle.url);
      const abort = new AbortController();
      streams.push(abort);
      const stream = await fetch(handle.url, { headers: { Accept: "text/event-stream", "mcp-session-id": id }, signal: abort.signal });
      expect(stream.status).toBe(200);
    }
    const third = await postJson(handle.url, INITIALIZE);
    expect(third.status).toBe(503);
    const body = (await third.json()) as { jsonrpc: string; error: { message: string } };
    expect(body.jsonrpc).toBe("2.0");
    expect(body.error.message).toContain("2 live sessions");
    expect(body.error.message).toContain("max_sessions");
    expect(handle.sessionCount()).toBe(2);
  });

  test("concurrent initializes never leave more than maxSessions sessions", async () => {
    const { handle } = await start({ maxSessions: 2, jsonResponse: true });
    const responses = await Promise.all(Array.from({ length: 6 }, () => postJson(handle.url, INITIALIZE)));
    await Promise.all(responses.map((r) => r.text()));
    for (const response of responses) expect([200, 503]).toContain(response.status);
    expect(responses.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(2);
    expect(handle.sessionCount()).toBe(2);
  });
});

describe("session lifetime", () => {
  test("an idle session is closed and its id then gets 404", async () => {
    const { handle, closed } = await start({ jsonResponse: true, sessionIdleMs: 150, idleSweepMs: 25 });
    const id = await initializeRaw(handle.url);
    expect(handle.sessionCount()).toBe(1);
    await waitFor(() => handle.sessionCount() === 0);
    await waitFor(() => closed.includes(id));
    const later = await postJson(handle.url, { jsonrpc: "2.0", id: 5, method: "tools/list" }, { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" });
    expect(later.status).toBe(404);
  });

  test("an open GET stream keeps a session alive until it ends", async () => {
    const { handle } = await start({ sessionIdleMs: 150, idleSweepMs: 25 });
    const id = await initializeRaw(handle.url);
    const abort = new AbortController();
    const stream = await fetch(handle.url, { headers: { Accept: "text/event-stream", "mcp-session-id": id }, signal: abort.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    // Keep reading: an unread, unreferenced response may be collected and its connection dropped.
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const drained = (async () => {
      try {
        while (!(await reader.read()).done);
      } catch {
        // aborted below
      }
    })();

    // Many idle periods pass while the stream is open.
    await Bun.sleep(800);
    expect(handle.sessionCount()).toBe(1);

    abort.abort();
    await drained;
    await waitFor(() => handle.sessionCount() === 0);
  });

  test("requests count as activity", async () => {
    const { handle } = await start({ jsonResponse: true, sessionIdleMs: 400, idleSweepMs: 25 });
    const id = await initializeRaw(handle.url);
    const headers = { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" };
    for (let i = 0; i < 8; i++) {
      const ping = await postJson(handle.url, { jsonrpc: "2.0", id: 10 + i, method: "ping" }, headers);
      expect(ping.status).toBe(200);
      await ping.text();
      await Bun.sleep(100);
    }
    expect(handle.sessionCount()).toBe(1);
  });

  test("DELETE ends a session and closes its server", async () => {
    const { handle, closed } = await start();
    const { transport } = await connectClient(handle.url);
    const id = transport.sessionId as string;
    expect(handle.sessionCount()).toBe(1);
    await transport.terminateSession();
    expect(handle.sessionCount()).toBe(0);
    await waitFor(() => closed.includes(id));
    const again = await fetch(handle.url, { method: "DELETE", headers: { "mcp-session-id": id } });
    expect(again.status).toBe(404);
  });

  test("/healthz reports status, version, uptime and live sessions only", async () => {
    const { handle } = await start({ token: "tok" });
    const healthUrl = handle.url.replace(/\/mcp$/, "/healthz");
    const before = (await (await fetch(healthUrl)).json()) as Record<string, unknown>;
    expect(Object.keys(before).sort()).toEqual(["sessions", "status", "uptimeSeconds", "version"]);
    expect(before).toMatchObject({ status: "ok", version: "9.9.9-test", sessions: 0 });
    expect(typeof before.uptimeSeconds).toBe("number");
    await initializeRaw(handle.url, { Authorization: "Bearer tok" });
    const after = (await (await fetch(healthUrl)).json()) as Record<string, unknown>;
    expect(after.sessions).toBe(1);
  });

  test("close() ends open SSE streams and sessions, then resolves", async () => {
    const { handle, closed } = await start();
    await connectClient(handle.url);
    const id = await initializeRaw(handle.url);
    const stream = await fetch(handle.url, { headers: { Accept: "text/event-stream", "mcp-session-id": id } });
    expect(stream.status).toBe(200);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const streamEnded = (async () => {
      try {
        for (;;) if ((await reader.read()).done) return "done";
      } catch {
        return "error";
      }
    })();

    await handle.close();
    expect(await streamEnded).toMatch(/done|error/);
    expect(handle.sessionCount()).toBe(0);
    expect(closed.length).toBe(2);
    await expect(fetch(handle.url.replace(/\/mcp$/, "/healthz"))).rejects.toThrow();
    // Closing again is harmless.
    await handle.close();
  });

  test("close() rejects when a session fails to close, and still stops serving", async () => {
    const { handle } = await start({
      createServer: (id) => {
        const server = createEchoServer(id);
        const closeTransport = server.close.bind(server);
        server.close = async () => {
          await closeTransport();
          throw new Error("server close failed on purpose");
        };
        return server;
      },
    });
    await initializeRaw(handle.url);
    const outcome = await handle.close().then(
      () => "resolved",
      (error: unknown) => (error instanceof AggregateError ? String(error.errors[0]) : String(error)),
    );
    expect(outcome).toContain("server close failed on purpose");
    expect(handle.sessionCount()).toBe(0);
    await expect(fetch(handle.url.replace(/\/mcp$/, "/healthz"))).rejects.toThrow();
  });
});

describe("the 2026-07-28 wire behind the same guards", () => {
  const ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "abuse", version: "1" },
  };
  const MODERN_HEADERS = { ...MCP_HEADERS, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list" };
  const LIST = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: ENVELOPE } };

  test("a stateless request is served from a fresh server and leaves no session behind", async () => {
    const { handle, created, closed } = await start();
    const response = await postJson(handle.url, LIST, MODERN_HEADERS);
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    expect(await response.text()).toContain("\"echo\"");
    expect(created).toHaveLength(1);
    expect(created[0]).toStartWith("req_");
    expect(handle.sessionCount()).toBe(0);
    await waitFor(() => closed.includes(created[0] as string));
  });

  test("a rebinding Host is refused before any server is built", async () => {
    const { handle, created } = await start();
    const response = await rawRequest(handle.port, { method: "POST", path: "/mcp", headers: { ...MODERN_HEADERS, Host: "evil.example" }, body: Buffer.from(JSON.stringify(LIST)) });
    expect(response.status).toBe(403);
    expect(created).toEqual([]);
  });

  test("the bearer token is required of stateless requests too", async () => {
    const { handle, created } = await start({ token: "s3cret" });
    expect((await postJson(handle.url, LIST, MODERN_HEADERS)).status).toBe(401);
    expect(created).toEqual([]);
    const allowed = await postJson(handle.url, LIST, { ...MODERN_HEADERS, Authorization: "Bearer s3cret" });
    expect(allowed.status).toBe(200);
    await allowed.text();
  });

  test("an oversized or unparseable stateless body is refused before any server is built", async () => {
    const { handle, created } = await start();
    const body = Buffer.alloc(LIMITS.http.maxBodyBytes + 1, 0x20);
    const tooLarge = await rawRequest(handle.port, { method: "POST", path: "/mcp", headers: { ...MODERN_HEADERS, "Content-Length": body.length }, body });
    expect(tooLarge.status).toBe(413);
    const garbled = await fetch(handle.url, { method: "POST", headers: MODERN_HEADERS, body: "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":" });
    expect(garbled.status).toBe(400);
    expect(((await garbled.json()) as { error: { code: number } }).error.code).toBe(-32700);
    expect(created).toEqual([]);
  });

  test("an Mcp-Method header that contradicts the body is refused", async () => {
    const { handle, created } = await start();
    const call = { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "echo", arguments: { text: "x" }, _meta: ENVELOPE } };
    const response = await postJson(handle.url, call, { ...MODERN_HEADERS, "Mcp-Name": "echo" });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { id: unknown; error: { code: number } };
    expect(body.id).toBe(4);
    expect(body.error.code).toBe(-32020);
    expect(created).toEqual([]);
  });
});
