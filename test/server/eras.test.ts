/**
 * Protocol eras on both transports, in process: which revisions are served, what server/discover says,
 * how each era's tool calls see their session (ToolContext.stateless), cache hints on list results, and how
 * a change of the offered tool set reaches a 2026-07-28 client that has no session.
 */
import { afterEach, beforeAll, afterAll, describe, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from "@modelcontextprotocol/client";
import { z } from "zod";
import { serveStdioConnection } from "../../src/cli/mcp-command.ts";
import type { ConfigSnapshot } from "../../src/config/types.ts";
import type { HttpHandle } from "../../src/server/http.ts";
import { createMcpServer, type ServerDeps } from "../../src/server/mcp.ts";
import { StdioTransport } from "../../src/server/stdio.ts";
import { defineTool, type ToolContext } from "../../src/tools/contract.ts";
import { createToolServices, TOOLS } from "../../src/tools/index.ts";
import { makeContext, makeTempDir, type TempDir } from "../support/context.ts";
import { startTestHttp } from "../support/http-server.ts";

const MODERN = "2026-07-28";
const LEGACY_REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "eras-raw", version: "0" },
};

/** Records the context every call of it saw, so a test can tell how the server framed the call. */
const seen: Array<Pick<ToolContext, "sessionId" | "stateless">> = [];
const contextProbe = defineTool({
  name: "context_probe",
  title: "Context probe",
  description: "Test tool: answers with the session id and era of the call.",
  input: z.strictObject({}),
  output: z.object({ sessionId: z.string(), stateless: z.boolean() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  errors: [],
  handler: async (_args, context) => {
    seen.push({ sessionId: context.sessionId, stateless: context.stateless });
    return { sessionId: context.sessionId, stateless: context.stateless };
  },
  render: (result) => `${result.sessionId} ${result.stateless}`,
});

let temp: TempDir;
let deps: ServerDeps;
let closedSessions: string[];
let toolSettings: ConfigSnapshot["config"]["tools"];

beforeAll(async () => {
  temp = await makeTempDir();
  const context = await makeContext([temp.dir]);
  const services = createToolServices();
  closedSessions = [];
  const closeSession = services.closeSession.bind(services);
  services.closeSession = (id) => {
    closedSessions.push(id);
    closeSession(id);
  };
  toolSettings = { profile: "full", enabled: [], disabled: [] };
  deps = {
    tools: [...TOOLS, contextProbe],
    services,
    snapshot: async () => ({ ...context.config, config: { ...context.config.config, tools: toolSettings } }),
    workspaceFor: async () => context.workspace,
  };
});
afterAll(async () => {
  await temp.cleanup();
});

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.().catch(() => undefined);
  toolSettings = { profile: "full", enabled: [], disabled: [] };
  delete deps.onToolSetChanged;
});

function startHttp(): Promise<HttpHandle> {
  return startTestHttp(cleanups, (sessionId) => createMcpServer(deps, sessionId));
}

/** A 2026-07-28 request by hand, with the headers the revision requires; the JSON-RPC answer (SSE or JSON) is parsed. */
async function modernPost(url: string, method: string, params: Record<string, unknown> = {}, name?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": MODERN,
      "Mcp-Method": method,
      ...(name === undefined ? {} : { "Mcp-Name": name }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: ENVELOPE } }),
  });
  const text = await response.text();
  const json = text.trimStart().startsWith("{") ? text : (text.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5)).pop() ?? "{}");
  return { status: response.status, body: JSON.parse(json) as Record<string, unknown> };
}

/** One stdio connection in process: frames in, frames out. */
function stdioConnection() {
  const input = new PassThrough();
  const output = new PassThrough();
  const received: Array<Record<string, unknown>> = [];
  let buffer = "";
  output.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    for (let newline = buffer.indexOf("\n"); newline !== -1; newline = buffer.indexOf("\n")) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.trim() !== "") received.push(JSON.parse(line) as Record<string, unknown>);
    }
  });
  const connection = serveStdioConnection(deps, new StdioTransport({ input, output, inputEndGraceMs: 1_000 }));
  cleanups.push(() => connection.close());
  const send = (message: Record<string, unknown>) => input.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  const answer = async (id: number): Promise<Record<string, unknown>> => {
    for (let wait = 0; wait < 500; wait++) {
      const found = received.find((message) => message.id === id);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no answer to ${id}; got ${JSON.stringify(received).slice(0, 1000)}`);
  };
  return { send, answer, received };
}

describe("2025-era clients keep their sessions", () => {
  for (const revision of LEGACY_REVISIONS) {
    test(`over HTTP, ${revision}: initialize agrees on ${revision}, ping answers, the GET stream opens, and calls share the session`, async () => {
      const handle = await startHttp();
      const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
      const post = async (body: Record<string, unknown>, session?: string) => {
        const response = await fetch(handle.url, {
          method: "POST",
          headers: { ...headers, ...(session ? { "mcp-session-id": session, "mcp-protocol-version": revision } : {}) },
          body: JSON.stringify({ jsonrpc: "2.0", ...body }),
        });
        const text = await response.text();
        const data = text.split("\n").find((line) => line.startsWith("data:"));
        return { response, body: data ? (JSON.parse(data.slice(5)) as { result?: Record<string, unknown> }) : undefined };
      };
      const init = await post({ id: 1, method: "initialize", params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: "legacy", version: "0" } } });
      const session = init.response.headers.get("mcp-session-id") as string;
      expect(session).toBeTruthy();
      expect(init.body?.result?.protocolVersion).toBe(revision);
      expect((await post({ method: "notifications/initialized" }, session)).response.status).toBe(202);
      expect((await post({ id: 2, method: "ping" }, session)).body?.result).toEqual({});

      const abort = new AbortController();
      const stream = await fetch(handle.url, { headers: { Accept: "text/event-stream", "mcp-session-id": session, "mcp-protocol-version": revision }, signal: abort.signal });
      expect(stream.status).toBe(200);
      abort.abort();

      for (const id of [3, 4]) {
        const call = await post({ id, method: "tools/call", params: { name: "context_probe", arguments: {} } }, session);
        expect(call.body?.result?.structuredContent).toEqual({ sessionId: session, stateless: false });
      }
    });
  }

  test("over stdio, initialize pins a 2025-era session whose calls all share one session id", async () => {
    const { send, answer } = stdioConnection();
    send({ id: 1, method: "initialize", params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "legacy", version: "0" } } });
    expect(((await answer(1)).result as { protocolVersion: string }).protocolVersion).toBe("2025-03-26");
    send({ method: "notifications/initialized" });
    send({ id: 2, method: "ping" });
    expect((await answer(2)).result).toEqual({});
    send({ id: 3, method: "tools/call", params: { name: "context_probe", arguments: {} } });
    send({ id: 4, method: "tools/call", params: { name: "context_probe", arguments: {} } });
    const first = ((await answer(3)).result as { structuredContent: { sessionId: string; stateless: boolean } }).structuredContent;
    const second = ((await answer(4)).result as { structuredContent: { sessionId: string; stateless: boolean } }).structuredContent;
    expect(first.stateless).toBe(false);
    expect(first.sessionId).toStartWith("stdio-");
    expect(second.sessionId).toBe(first.sessionId);
  });
});

describe("2026-07-28 clients are stateless", () => {
  test("server/discover names the served revision, the capabilities and the instructions, over HTTP and stdio", async () => {
    const handle = await startHttp();
    const overHttp = (await modernPost(handle.url, "server/discover")).body.result as Record<string, unknown>;
    const { send, answer } = stdioConnection();
    send({ id: 7, method: "server/discover", params: { _meta: ENVELOPE } });
    const overStdio = (await answer(7)).result as Record<string, unknown>;
    for (const discovered of [overHttp, overStdio]) {
      expect(discovered.supportedVersions).toContain(MODERN);
      expect(discovered.capabilities).toMatchObject({ tools: { listChanged: true } });
      expect(String(discovered.instructions)).toContain("ast-mcp");
    }
  });

  test("each tool call runs under its own req_ session, which ends with the call (HTTP and stdio)", async () => {
    const handle = await startHttp();
    const client = new ModernClient({ name: "eras", version: "0" }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(new ModernHttpTransport(new URL(handle.url)));
    cleanups.push(() => client.close());
    const { send, answer } = stdioConnection();
    send({ id: 1, method: "tools/call", params: { name: "context_probe", arguments: {}, _meta: ENVELOPE } });
    send({ id: 2, method: "tools/call", params: { name: "context_probe", arguments: {}, _meta: ENVELOPE } });

    const calls = [
      (await client.callTool({ name: "context_probe", arguments: {} })).structuredContent,
      (await client.callTool({ name: "context_probe", arguments: {} })).structuredContent,
      ((await answer(1)).result as { structuredContent: unknown }).structuredContent,
      ((await answer(2)).result as { structuredContent: unknown }).structuredContent,
    ] as Array<{ sessionId: string; stateless: boolean }>;
    for (const call of calls) {
      expect(call.stateless).toBe(true);
      expect(call.sessionId).toMatch(/^req_[0-9a-f-]{36}$/);
      expect(closedSessions).toContain(call.sessionId);
    }
    expect(new Set(calls.map((call) => call.sessionId)).size).toBe(4);
  });

  test("a revision the server does not serve gets the unsupported-version error naming the ones it does", async () => {
    const handle = await startHttp();
    const response = await fetch(handle.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/list" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } } }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { id: number; error: { code: number; data: { supported: string[] } } };
    expect(body.id).toBe(1);
    expect(body.error.code).toBe(-32022);
    expect(body.error.data.supported).toContain(MODERN);
  });

  test("tools/list is the same list in the same order every time, with its cache hints", async () => {
    const handle = await startHttp();
    const first = (await modernPost(handle.url, "tools/list")).body.result as { tools: Array<{ name: string }>; ttlMs: number; cacheScope: string; resultType: string };
    const second = (await modernPost(handle.url, "tools/list")).body.result as typeof first;
    expect(first.tools.map((tool) => tool.name)).toEqual([...TOOLS, contextProbe].map((tool) => tool.name));
    expect(second.tools).toEqual(first.tools);
    expect(first.resultType).toBe("complete");
    expect(first.cacheScope).toBe("private");
    expect(first.ttlMs).toBeGreaterThan(0);
  });

  test("a change of the offered tools reaches an open subscriptions/listen stream as tools/list_changed", async () => {
    const handle = await startHttp();
    deps.onToolSetChanged = () => handle.notifyToolListChanged();
    await modernPost(handle.url, "tools/list");
    const abort = new AbortController();
    cleanups.push(async () => abort.abort());
    const stream = await fetch(handle.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": MODERN, "Mcp-Method": "subscriptions/listen" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: ENVELOPE } }),
      signal: abort.signal,
    });
    expect(stream.status).toBe(200);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    let text = "";
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const chunk = await reader.read();
        if (chunk.done) throw new Error(`stream ended: ${text}`);
        text += new TextDecoder().decode(chunk.value);
      }
    };
    await readUntil("notifications/subscriptions/acknowledged");
    toolSettings = { profile: "read", enabled: [], disabled: [] };
    const listed = (await modernPost(handle.url, "tools/list")).body.result as { tools: Array<{ name: string }> };
    expect(listed.tools.map((tool) => tool.name)).not.toContain("file_write");
    await readUntil("notifications/tools/list_changed");
  });

  test("over stdio, a stateless connection's subscriptions/listen stream hears tools/list_changed when the offered tools change", async () => {
    const { send, answer, received } = stdioConnection();
    send({ id: 1, method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: ENVELOPE } });
    const arrived = async (method: string) => {
      for (let wait = 0; wait < 500 && !received.some((message) => message.method === method); wait++) await new Promise((resolve) => setTimeout(resolve, 10));
      return received.find((message) => message.method === method);
    };
    expect(await arrived("notifications/subscriptions/acknowledged")).toBeDefined();
    send({ id: 2, method: "tools/list", params: { _meta: ENVELOPE } });
    await answer(2);
    toolSettings = { profile: "read", enabled: [], disabled: [] };
    send({ id: 3, method: "tools/list", params: { _meta: ENVELOPE } });
    await answer(3);
    expect(await arrived("notifications/tools/list_changed")).toBeDefined();
  });
});
