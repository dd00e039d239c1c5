/**
 * The built CLI under Node serving HTTP in the OAuth resource-server mode ([http.auth]), against a
 * local test issuer this test starts (keys generated here, metadata and keys served on 127.0.0.1).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from "@modelcontextprotocol/client";
import { connectHttp, exitOf, isolatedEnv, startHttpCli, tempRoot } from "../support/cli.ts";
import { hmacWithPublicKey, makeKey, signJwt, type SigningKey, startTestIssuer, type TestIssuer, unsignedJwt } from "../support/test-issuer.ts";

let env: Record<string, string>;
let cleanup: () => Promise<void>;
let issuer: TestIssuer;
let key: SigningKey;
let child: ChildProcessWithoutNullStreams;
let url: string;
let resource: string;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  const isolated = await isolatedEnv();
  ({ env, cleanup } = isolated);
  key = makeKey("issuer-key-1", "RS256");
  issuer = await startTestIssuer([key, makeKey("issuer-key-2", "ES256")]);
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  const configDir = join(isolated.home, ".config", "ast-mcp");
  await mkdir(configDir, { recursive: true });
  // No jwks_uri: the server finds the keys through the issuer's metadata.
  await writeFile(join(configDir, "ast-mcp.toml"), `[http.auth]\nissuer = "${issuer.issuer}"\nresource = "${resource}"\n`);
  const root = await tempRoot();
  await writeFile(join(root, "notes.md"), "# Notes\n\nhello\n");
  ({ child, url } = await startHttpCli(["--port", String(port), root], env));
});

afterAll(async () => {
  child?.kill("SIGTERM");
  if (child) await exitOf(child);
  await issuer?.close();
  await cleanup?.();
});

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "oauth-test", version: "1" } },
});

function initializeWith(token: string | undefined): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return fetch(url, { method: "POST", headers, body: INITIALIZE });
}

async function expectInvalidToken(token: string, reason: RegExp): Promise<void> {
  const response = await initializeWith(token);
  expect(response.status).toBe(401);
  const challenge = response.headers.get("www-authenticate") ?? "";
  expect(challenge).toStartWith("Bearer ");
  expect(challenge).toContain("error=\"invalid_token\"");
  expect(challenge).toContain(`resource_metadata="${metadataUrl()}"`);
  expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(reason);
}

const metadataUrl = () => resource.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");

describe("the OAuth resource-server mode", () => {
  test("the protected-resource metadata names the resource, the issuer and the scopes, at both well-known paths", async () => {
    for (const path of [metadataUrl(), resource.replace("/mcp", "/.well-known/oauth-protected-resource")]) {
      const response = await fetch(path);
      expect(response.status).toBe(200);
      const metadata = (await response.json()) as Record<string, unknown>;
      expect(metadata.resource).toBe(resource);
      expect(metadata.authorization_servers).toEqual([issuer.issuer]);
      expect(metadata.scopes_supported).toEqual(["ast-mcp:read", "ast-mcp:write", "ast-mcp:full"]);
      expect(metadata.bearer_methods_supported).toEqual(["header"]);
    }
  });

  test("a request without a token gets 401 with the metadata's URL and the scope to ask for, and no error code", async () => {
    const response = await initializeWith(undefined);
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate") ?? "";
    expect(challenge).toBe(`Bearer resource_metadata="${metadataUrl()}", scope="ast-mcp:read"`);
  });

  test("a token for another audience is refused", async () => {
    await expectInvalidToken(signJwt(key, issuer.claims("https://other.example/mcp")), /audience/);
  });

  test("an expired token is refused", async () => {
    const past = Math.floor(Date.now() / 1000) - 3600;
    await expectInvalidToken(signJwt(key, issuer.claims(resource, { iat: past - 600, exp: past })), /expired/);
  });

  test("a token from another issuer is refused, even signed by a published key", async () => {
    await expectInvalidToken(signJwt(key, issuer.claims(resource, { iss: "http://127.0.0.1:1" })), /another issuer/);
  });

  test("a token signed by a key the issuer does not publish is refused", async () => {
    const stranger = makeKey("stranger", "RS256");
    await expectInvalidToken(signJwt(stranger, issuer.claims(resource)), /does not publish/);
    // The same foreign key claiming a published key's id fails on the signature.
    await expectInvalidToken(signJwt(stranger, issuer.claims(resource), { kid: key.kid }), /signature/);
  });

  test("an unsigned token (alg none) and an HMAC keyed with the public key are refused", async () => {
    await expectInvalidToken(unsignedJwt(issuer.claims(resource)), /algorithm "none"/);
    await expectInvalidToken(hmacWithPublicKey(key, issuer.claims(resource)), /algorithm "HS256"/);
  });

  test("a token that is not an access token (typ JWT, e.g. an ID token) is refused", async () => {
    await expectInvalidToken(signJwt(key, issuer.claims(resource), { typ: "JWT" }), /type "JWT"/);
  });

  test("a valid token whose scopes grant no profile gets 403 insufficient_scope", async () => {
    const response = await initializeWith(signJwt(key, issuer.claims(resource, { scope: "openid profile" })));
    expect(response.status).toBe(403);
    const challenge = response.headers.get("www-authenticate") ?? "";
    expect(challenge).toContain("error=\"insufficient_scope\"");
    expect(challenge).toContain("scope=\"ast-mcp:read\"");
    expect(challenge).toContain(`resource_metadata="${metadataUrl()}"`);
  });

  test("a 2025-11-25 client with a read-scoped token is served the read tools only, and its write call gets the step-up 403", async () => {
    const token = signJwt(key, issuer.claims(resource, { scope: "openid ast-mcp:read" }));
    const { client, transport } = await connectHttp(url, { authorization: `Bearer ${token}` });
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThanOrEqual(6);
      expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
      expect(tools.map((tool) => tool.name)).not.toContain("file_write");
      const read = await client.callTool({ name: "file_read", arguments: { files: [{ filePath: "notes.md" }] } });
      expect(JSON.stringify(read.structuredContent)).toContain("hello");
      // The 2025-era transport sends no Mcp-Name header: the server reads the tool from the body and refuses over HTTP.
      const write = await client.callTool({ name: "file_write", arguments: { files: [{ filePath: "new.md", content: "x\n" }] } }).then(
        (result) => JSON.stringify(result),
        (error: unknown) => String(error),
      );
      expect(write).toContain("Error POSTing to endpoint");
      expect(write).toContain("Forbidden: the tool file_write needs the \\\"write\\\" profile");
      await transport.terminateSession();
    } finally {
      await transport.close();
    }
  });

  test("a 2025-11-25 session's tool call beyond the token's profile gets the step-up challenge with the scopes it needs", async () => {
    const token = signJwt(key, issuer.claims(resource, { scope: "ast-mcp:read" }));
    const { transport } = await connectHttp(url, { authorization: `Bearer ${token}` });
    try {
      // As a 2025-11-25 client sends it: the tool is named in the body only.
      const call = (toolName: string) =>
        fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: `Bearer ${token}`,
            "mcp-session-id": transport.sessionId as string,
            "mcp-protocol-version": "2025-11-25",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: toolName, arguments: {} } }),
        });
      const write = await call("file_write");
      expect(write.status).toBe(403);
      const challenge = write.headers.get("www-authenticate") ?? "";
      expect(challenge).toContain("error=\"insufficient_scope\"");
      expect(challenge).toContain("scope=\"ast-mcp:write\"");
      expect(challenge).toContain(`resource_metadata="${metadataUrl()}"`);
      // run is outside the write profile: it takes the full one.
      expect((await call("run")).headers.get("www-authenticate")).toContain("scope=\"ast-mcp:full\"");
      // A tool the token does grant goes through to the server.
      const read = await call("file_read");
      expect(read.status).toBe(200);
      await read.body?.cancel();
      await transport.terminateSession();
    } finally {
      await transport.close();
    }
  });

  test("a 2026-07-28 client (stateless) with a read-scoped token lists the read tools only, and its write call gets the step-up 403", async () => {
    const token = signJwt(key, issuer.claims(resource, { scope: "ast-mcp:read" }));
    const client = new ModernClient({ name: "oauth-modern", version: "0.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new ModernHttpTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThanOrEqual(6);
      expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
      const read = await client.callTool({ name: "file_read", arguments: { files: [{ filePath: "notes.md" }] } });
      expect(JSON.stringify(read.structuredContent)).toContain("hello");
      const write = await client.callTool({ name: "file_write", arguments: { files: [{ filePath: "new.md", content: "x\n" }] } }).then(
        (result) => JSON.stringify(result),
        (error: unknown) => String(error),
      );
      // The SDK client reads the challenge: the scope it must ask for next.
      expect(write).toContain("Insufficient scope: required \"ast-mcp:write\"");
    } finally {
      await client.close();
    }
  });

  test("a token signed by the issuer's other key (ES256) with the full scope is served every tool", async () => {
    const ecKey = issuer.published[1] as SigningKey;
    const token = signJwt(ecKey, issuer.claims(resource, { scope: "ast-mcp:full" }));
    const { client, transport } = await connectHttp(url, { authorization: `Bearer ${token}` });
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain("file_write");
      expect(names).toContain("file_read");
      await transport.terminateSession();
    } finally {
      await transport.close();
    }
  });
});
