import { afterEach, describe, expect, test } from "bun:test";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from "@modelcontextprotocol/client";
import { z } from "zod";
import { JWS_ALGORITHMS } from "../../src/config/schema.ts";
import type { HttpOptions } from "../../src/server/http.ts";
import { createMcpServer, type ServerDeps } from "../../src/server/mcp.ts";
import type { OAuthSettings } from "../../src/server/oauth.ts";
import { defineTool, READ_ONLY } from "../../src/tools/contract.ts";
import { createToolServices } from "../../src/tools/index.ts";
import { createEchoServer } from "../support/echo-mcp-server.ts";
import { makeContext, makeTempDir } from "../support/context.ts";
import { startTestHttp } from "../support/http-server.ts";
import { makeKey, signJwt, startTestIssuer } from "../support/test-issuer.ts";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.().catch(() => undefined);
});

const RESOURCE = "https://mcp.example.test/mcp";
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
});

async function serve(
  host: string,
  token: string | undefined,
  tools: Pick<OAuthSettings, "scopes" | "profileForTool"> = { scopes: { "ast-mcp:read": "read" } },
  createServer: HttpOptions["createServer"] = (id) => createEchoServer(id),
) {
  const key = makeKey("k", "ES256");
  const issuer = await startTestIssuer([key]);
  cleanups.push(() => issuer.close());
  const oauth: OAuthSettings = {
    issuer: issuer.issuer,
    resource: RESOURCE,
    jwksUri: issuer.jwksUri,
    algorithms: JWS_ALGORITHMS,
    leewaySeconds: 60,
    ...tools,
  };
  const handle = await startTestHttp(cleanups, createServer, { host, jsonResponse: true, token, oauth, maxSessions: 4 });
  const post = (authorization?: string) =>
    fetch(`http://127.0.0.1:${handle.port}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(authorization ? { authorization } : {}) },
      body: INITIALIZE,
    });
  return {
    post,
    port: handle.port,
    mint: (subject = "user-1", scope = "ast-mcp:read") => signJwt(key, issuer.claims(RESOURCE, { sub: subject, scope })),
  };
}

describe("the OAuth mode of the HTTP transport", () => {
  test("off loopback it stands in for the static token: the server starts and asks for an access token", async () => {
    const { post, mint } = await serve("0.0.0.0", undefined);
    const refused = await post();
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource/mcp", scope="ast-mcp:read"`);
    expect((await post(`Bearer ${mint()}`)).status).toBe(200);
  });

  test("a session answers only the caller that opened it, whatever token that caller brings next", async () => {
    const { post, port, mint } = await serve("127.0.0.1", undefined);
    const opened = await post(`Bearer ${mint("alice")}`);
    expect(opened.status).toBe(200);
    const sessionId = opened.headers.get("mcp-session-id") as string;
    const list = (subject: string) =>
      fetch(`http://127.0.0.1:${port}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": sessionId,
          "mcp-protocol-version": "2025-06-18",
          authorization: `Bearer ${mint(subject)}`,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      });
    const stolen = await list("mallory");
    expect(stolen.status).toBe(404);
    const own = await list("alice");
    expect(own.status).toBe(200);
    expect(JSON.stringify(await own.json())).toContain("echo");
  });

  test("a 2025-era session calling a tool beyond its token's scopes gets the step-up challenge, read from the body alone", async () => {
    // echo stands for a write tool here: a read-scoped token must step up to call it.
    const { post, port, mint } = await serve("127.0.0.1", undefined, {
      scopes: { "ast-mcp:read": "read", "ast-mcp:write": "write" },
      profileForTool: (name) => (name === "echo" ? "write" : undefined),
    });
    const callEcho = async (scope: string) => {
      const authorization = `Bearer ${mint("alice", scope)}`;
      const opened = await post(authorization);
      expect(opened.status).toBe(200);
      // No Mcp-Method or Mcp-Name header: a 2025-11-25 client names the tool in the body only.
      return fetch(`http://127.0.0.1:${port}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": opened.headers.get("mcp-session-id") as string,
          "mcp-protocol-version": "2025-06-18",
          authorization,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } }),
      });
    };
    const refused = await callEcho("ast-mcp:read");
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toBe(
      "Bearer error=\"insufficient_scope\", scope=\"ast-mcp:write\", error_description=\"the tool echo needs the 'write' profile and the token's scopes grant 'read'\", " +
        "resource_metadata=\"https://mcp.example.test/.well-known/oauth-protected-resource/mcp\"",
    );
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("needs the \"write\" profile");
    const granted = await callEcho("ast-mcp:write");
    expect(granted.status).toBe(200);
    expect(JSON.stringify(await granted.json())).toContain(":hi");
  });

  test("a tool call knows which authenticated client made it: the token's subject, which its stateless receipts are charged to", async () => {
    const temp = await makeTempDir();
    cleanups.push(() => temp.cleanup());
    const context = await makeContext([temp.dir]);
    const probe = defineTool({
      name: "principal_probe",
      title: "Principal probe",
      description: "Test tool: answers with the caller the server was told of.",
      input: z.strictObject({}),
      output: z.object({ principal: z.string(), stateless: z.boolean() }),
      annotations: READ_ONLY,
      errors: [],
      handler: async (_args, call) => ({ principal: call.principal ?? "(none)", stateless: call.stateless }),
      render: (result) => result.principal,
    });
    const deps: ServerDeps = { tools: [probe], services: createToolServices(), snapshot: async () => context.config, workspaceFor: async () => context.workspace };
    const { port, mint } = await serve("127.0.0.1", undefined, undefined, (id) => createMcpServer(deps, id));
    const client = new ModernClient({ name: "oauth-principal", version: "0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new ModernHttpTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${mint("alice")}` } } }));
    cleanups.push(() => client.close());
    const result = await client.callTool({ name: "principal_probe", arguments: {} });
    expect(result.structuredContent).toEqual({ principal: "sub:alice", stateless: true });
  });

  test("the static token is not accepted in the OAuth mode", async () => {
    const { post } = await serve("127.0.0.1", "static-secret");
    const response = await post("Bearer static-secret");
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain("error=\"invalid_token\"");
  });

  test("a token whose header holds characters a header may not carry is refused with a challenge, not a server error", async () => {
    const { post } = await serve("127.0.0.1", undefined);
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    for (const alg of ["€", "ES256\u2028", "ES256\r\nX-Injected: 1"]) {
      const response = await post(`Bearer ${part({ alg, typ: "at+jwt" })}.${part({ iss: "x" })}.c2ln`);
      expect(response.status).toBe(401);
      const header = response.headers.get("www-authenticate") ?? "";
      expect(header).toContain("error=\"invalid_token\"");
      expect(header).toMatch(/^[\x20-\x7e]+$/);
      expect(response.headers.get("x-injected")).toBeNull();
    }
  });
});
