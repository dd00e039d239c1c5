/**
 * A local OAuth authorization server for tests: keys generated here with node:crypto, its metadata
 * (RFC 8414) and key set served on 127.0.0.1, and access tokens minted as the test asks, including
 * the malformed and mis-signed ones a resource server must refuse. No network beyond loopback.
 */
import { createHmac, createPrivateKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface SigningKey {
  kid: string;
  alg: "RS256" | "PS256" | "ES256" | "EdDSA";
  privateKey: KeyObject;
  publicJwk: Record<string, unknown>;
}

export function makeKey(kid: string, alg: SigningKey["alg"]): SigningKey {
  const pair = alg === "ES256" ?
    generateKeyPairSync("ec", { namedCurve: "P-256" }) :
    alg === "EdDSA" ?
    generateKeyPairSync("ed25519") :
    generateKeyPairSync("rsa", { modulusLength: 2048 });
  const publicJwk = { ...(pair.publicKey.export({ format: "jwk" }) as Record<string, unknown>), kid, alg, use: "sig" };
  return { kid, alg, privateKey: createPrivateKey(pair.privateKey.export({ format: "pem", type: "pkcs8" })), publicJwk };
}

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

function signature(key: SigningKey, signed: Buffer): Buffer {
  if (key.alg === "ES256") return sign("sha256", signed, { key: key.privateKey, dsaEncoding: "ieee-p1363" });
  if (key.alg === "PS256") return sign("sha256", signed, { key: key.privateKey, padding: 6, /* RSA_PKCS1_PSS_PADDING */ saltLength: 32 });
  if (key.alg === "EdDSA") return sign(null, signed, key.privateKey);
  return sign("sha256", signed, key.privateKey);
}

/** A JWT signed by `key` with the given header fields and claims (header fields override the defaults). */
export function signJwt(key: SigningKey, claims: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  const head = part({ alg: key.alg, typ: "at+jwt", kid: key.kid, ...header });
  const body = part(claims);
  return `${head}.${body}.${signature(key, Buffer.from(`${head}.${body}`)).toString("base64url")}`;
}

/** An unsigned token ("alg": "none"). */
export function unsignedJwt(claims: Record<string, unknown>): string {
  return `${part({ alg: "none", typ: "at+jwt" })}.${part(claims)}.`;
}

/** The classic confusion attack: HS256 keyed with the issuer's public key as if it were a shared secret. */
export function hmacWithPublicKey(key: SigningKey, claims: Record<string, unknown>): string {
  const head = part({ alg: "HS256", typ: "at+jwt", kid: key.kid });
  const body = part(claims);
  const secret = JSON.stringify(key.publicJwk);
  return `${head}.${body}.${createHmac("sha256", secret).update(`${head}.${body}`).digest("base64url")}`;
}

export interface TestIssuer {
  /** The issuer identifier, e.g. http://127.0.0.1:PORT. */
  issuer: string;
  jwksUri: string;
  /** Keys published in the key set; change it to rotate. */
  published: SigningKey[];
  /** How many times the key set was fetched. */
  keySetFetches(): number;
  /** Makes the key-set endpoint never answer (a slow issuer). */
  stall(stalled: boolean): void;
  /** Claims of a valid access token for `resource`, overridable. */
  claims(resource: string, overrides?: Record<string, unknown>): Record<string, unknown>;
  close(): Promise<void>;
}

export async function startTestIssuer(keys: SigningKey[]): Promise<TestIssuer> {
  let fetches = 0;
  let stalled = false;
  const hanging: ServerResponse[] = [];
  let issuer = "";
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const send = (body: unknown) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (request.url === "/.well-known/oauth-authorization-server") {
      send({ issuer, jwks_uri: `${issuer}/jwks`, token_endpoint: `${issuer}/token`, response_types_supported: ["code"] });
    } else if (request.url === "/jwks") {
      fetches += 1;
      if (stalled) hanging.push(response);
      else send({ keys: result.published.map((key) => key.publicJwk) });
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const result: TestIssuer = {
    issuer,
    jwksUri: `${issuer}/jwks`,
    published: [...keys],
    keySetFetches: () => fetches,
    stall: (value) => {
      stalled = value;
    },
    claims: (resource, overrides = {}) => {
      const now = Math.floor(Date.now() / 1000);
      return { iss: issuer, sub: "user-1", client_id: "test-client", aud: resource, iat: now, exp: now + 600, scope: "ast-mcp:read", ...overrides };
    },
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return result;
}
