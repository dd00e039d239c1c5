import { afterEach, describe, expect, test } from "bun:test";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { JWS_ALGORITHMS } from "../../src/config/schema.ts";
import { LIMITS } from "../../src/core/limits.ts";
import { type AccessTokenPolicy, createAccessTokenVerifier } from "../../src/server/access-token.ts";
import { profileForScopes } from "../../src/server/oauth.ts";
import { makeKey, signJwt, startTestIssuer, type TestIssuer } from "../support/test-issuer.ts";

const RESOURCE = "https://mcp.example.test/mcp";
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function issuerWith(...keys: ReturnType<typeof makeKey>[]): Promise<TestIssuer> {
  const issuer = await startTestIssuer(keys);
  cleanups.push(() => issuer.close());
  return issuer;
}

function verifierFor(issuer: TestIssuer, overrides: Partial<AccessTokenPolicy> = {}) {
  return createAccessTokenVerifier({
    issuer: issuer.issuer,
    resource: RESOURCE,
    jwksUri: issuer.jwksUri,
    algorithms: JWS_ALGORITHMS,
    leewaySeconds: 60,
    ...overrides,
  });
}

describe("access tokens", () => {
  test("tokens signed with RS256, PS256, ES256 and EdDSA keys the issuer publishes are accepted, with their scopes", async () => {
    const keys = [makeKey("rs", "RS256"), makeKey("ps", "PS256"), makeKey("es", "ES256"), makeKey("ed", "EdDSA")];
    const issuer = await issuerWith(...keys);
    const verify = verifierFor(issuer);
    for (const key of keys) {
      const verdict = await verify(signJwt(key, issuer.claims(RESOURCE, { scope: "a b" })));
      expect(verdict).toMatchObject({ ok: true, claims: { scopes: ["a", "b"], clientId: "test-client", subject: "user-1" } });
    }
  });

  test("an audience list naming this server is accepted; the token must still name it", async () => {
    const key = makeKey("k", "ES256");
    const issuer = await issuerWith(key);
    const verify = verifierFor(issuer);
    expect((await verify(signJwt(key, issuer.claims(RESOURCE, { aud: ["https://other.test", RESOURCE] })))).ok).toBe(true);
    expect(await verify(signJwt(key, issuer.claims(RESOURCE, { aud: ["https://other.test"] })))).toMatchObject({ ok: false, kind: "invalid" });
  });

  test("exp and nbf are honoured within the leeway, and refused beyond it", async () => {
    const key = makeKey("k", "ES256");
    const issuer = await issuerWith(key);
    const verify = verifierFor(issuer, { leewaySeconds: 60 });
    const now = Math.floor(Date.now() / 1000);
    expect((await verify(signJwt(key, issuer.claims(RESOURCE, { exp: now - 30 })))).ok).toBe(true);
    expect(await verify(signJwt(key, issuer.claims(RESOURCE, { exp: now - 120 })))).toMatchObject({ ok: false, reason: "the token has expired" });
    expect((await verify(signJwt(key, issuer.claims(RESOURCE, { nbf: now + 30 })))).ok).toBe(true);
    expect(await verify(signJwt(key, issuer.claims(RESOURCE, { nbf: now + 600 })))).toMatchObject({ ok: false, reason: "the token is not valid yet (nbf)" });
    const { exp: _dropped, ...withoutExpiry } = issuer.claims(RESOURCE);
    expect(await verify(signJwt(key, withoutExpiry))).toMatchObject({ ok: false, reason: "the token has no expiry (exp)" });
  });

  test("a token naming neither its subject nor its client is refused: every such token would be one caller, sharing sessions and receipts", async () => {
    const key = makeKey("k", "ES256");
    const issuer = await issuerWith(key);
    const verify = verifierFor(issuer);
    const { sub: _sub, client_id: _client, ...anonymous } = issuer.claims(RESOURCE);
    expect(await verify(signJwt(key, anonymous))).toMatchObject({ ok: false, kind: "invalid" });
    expect((await verify(signJwt(key, { ...anonymous, client_id: "only-a-client" }))).ok).toBe(true);
    expect((await verify(signJwt(key, { ...anonymous, sub: "only-a-user" }))).ok).toBe(true);
  });

  test("only the configured algorithms are accepted, and a key never verifies another family's algorithm", async () => {
    const rsa = makeKey("rs", "RS256");
    const issuer = await issuerWith(rsa);
    expect(await verifierFor(issuer, { algorithms: ["ES256"] })(signJwt(rsa, issuer.claims(RESOURCE)))).toMatchObject({ ok: false, kind: "invalid" });
    // An RSA key published without "alg" still cannot check a token that claims ES256.
    rsa.publicJwk = { ...rsa.publicJwk, alg: undefined };
    issuer.published = [rsa];
    const verdict = await verifierFor(issuer)(signJwt(rsa, issuer.claims(RESOURCE), { alg: "ES256" }));
    expect(verdict).toMatchObject({ ok: false, reason: "the token is signed with a key the issuer does not publish" });
  });

  test("a rotated-in key is found by fetching the key set again, once, when a token names an unknown key id", async () => {
    const first = makeKey("first", "ES256");
    const second = makeKey("second", "ES256");
    const issuer = await issuerWith(first);
    const verify = verifierFor(issuer);
    expect((await verify(signJwt(first, issuer.claims(RESOURCE)))).ok).toBe(true);
    expect((await verify(signJwt(first, issuer.claims(RESOURCE)))).ok).toBe(true);
    expect(issuer.keySetFetches()).toBe(1);
    issuer.published = [first, second];
    expect((await verify(signJwt(second, issuer.claims(RESOURCE)))).ok).toBe(true);
    expect(issuer.keySetFetches()).toBe(2);
    // Made-up key ids do not make the issuer's keys fetched again within the interval.
    for (let index = 0; index < 5; index++) {
      const verdict = await verify(signJwt(makeKey(`made-up-${index}`, "ES256"), issuer.claims(RESOURCE)));
      expect(verdict).toMatchObject({ ok: false, kind: "invalid" });
    }
    expect(issuer.keySetFetches()).toBe(2);
  });

  test("a stalled issuer makes the check answer unavailable after the timeout instead of hanging", async () => {
    const key = makeKey("k", "ES256");
    const issuer = await issuerWith(key);
    issuer.stall(true);
    const verify = verifierFor(issuer, { fetchTimeoutMs: 300 });
    expect(await verify(signJwt(key, issuer.claims(RESOURCE)))).toMatchObject({ ok: false, kind: "unavailable" });
    // Once it answers again, the next token is checked.
    issuer.stall(false);
    expect((await verify(signJwt(key, issuer.claims(RESOURCE)))).ok).toBe(true);
  });

  test("keys past their time are fetched again in the background: a stalled issuer does not delay the requests meanwhile", async () => {
    const key = makeKey("k", "ES256");
    const issuer = await issuerWith(key);
    let clock = Date.now();
    // A fetch that waited on the stalled issuer would hold the check for 30 s, far past this test's own timeout.
    const verify = verifierFor(issuer, { fetchTimeoutMs: 30_000, now: () => clock });
    expect((await verify(signJwt(key, issuer.claims(RESOURCE)))).ok).toBe(true);
    issuer.stall(true);
    clock += LIMITS.oauth.keysTtlMs + 1;
    expect((await verify(signJwt(key, issuer.claims(RESOURCE, { exp: Math.floor(clock / 1000) + 600 })))).ok).toBe(true);
    // The refresh did start; it reaches the issuer a moment later.
    for (let tries = 0; tries < 250 && issuer.keySetFetches() < 2; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(issuer.keySetFetches()).toBe(2);
  }, 10_000);

  test("a key set larger than the document limit is refused", async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ keys: [], padding: "x".repeat(LIMITS.oauth.maxDocumentBytes + 10) }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
    const key = makeKey("k", "ES256");
    const issuer = await issuerWith(key);
    const jwksUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
    expect(await verifierFor(issuer, { jwksUri })(signJwt(key, issuer.claims(RESOURCE)))).toMatchObject({ ok: false, kind: "unavailable" });
  });

  test("the key set is found through the issuer's metadata when no jwks_uri is configured", async () => {
    const key = makeKey("k", "EdDSA");
    const issuer = await issuerWith(key);
    expect((await verifierFor(issuer, { jwksUri: undefined })(signJwt(key, issuer.claims(RESOURCE)))).ok).toBe(true);
  });

  test("a token with critical header extensions or a malformed shape is refused", async () => {
    const key = makeKey("k", "ES256");
    const issuer = await issuerWith(key);
    const verify = verifierFor(issuer);
    expect(await verify(signJwt(key, issuer.claims(RESOURCE), { crit: ["exp"] }))).toMatchObject({ ok: false, kind: "invalid" });
    expect(await verify("not-a-jwt")).toMatchObject({ ok: false, kind: "invalid" });
    expect(await verify("a.b.c")).toMatchObject({ ok: false, kind: "invalid" });
    expect(await verify("x".repeat(LIMITS.oauth.maxTokenBytes + 1))).toMatchObject({ ok: false, kind: "invalid" });
  });
});

describe("scopes to profiles", () => {
  const map = { "ast-mcp:read": "read", "ast-mcp:write": "write", admin: "full" } as const;
  test("a token gets the widest profile its scopes name, and none when they name none", () => {
    expect(profileForScopes(["ast-mcp:read"], map)).toBe("read");
    expect(profileForScopes(["ast-mcp:write", "ast-mcp:read"], map)).toBe("write");
    expect(profileForScopes(["admin", "ast-mcp:read"], map)).toBe("full");
    expect(profileForScopes(["openid", "toString", "__proto__"], map)).toBeUndefined();
  });
});
