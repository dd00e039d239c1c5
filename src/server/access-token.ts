/**
 * Access tokens as JWTs (RFC 9068) checked against the issuer's published keys, with node:crypto
 * only. The issuer's documents are fetched with a timeout and a size cap and cached, so a slow or
 * hostile issuer can delay a request by at most the timeout and never grow memory.
 */
import { createPublicKey, constants as cryptoConstants, type JsonWebKey, type KeyObject, verify } from "node:crypto";
import { urlProblem } from "../config/http-auth.ts";
import type { JwsAlgorithm } from "../config/schema.ts";
import { LIMITS } from "../core/limits.ts";
import { log } from "../core/log.ts";
import { readStreamWithinLimit } from "./http-body.ts";

export interface AccessTokenPolicy {
  issuer: string;
  /** The audience a token must name: this server's URL. */
  resource: string;
  /** Where the keys are; discovered from the issuer's metadata when undefined. */
  jwksUri: string | undefined;
  algorithms: readonly JwsAlgorithm[];
  leewaySeconds: number;
  fetchTimeoutMs?: number | undefined;
  now?: () => number;
}

export interface AccessTokenClaims {
  subject: string | undefined;
  clientId: string;
  scopes: string[];
  /** Seconds since the epoch. */
  expiresAt: number;
}

export type TokenVerdict =
  | { ok: true; claims: AccessTokenClaims }
  /** The token is not acceptable: RFC 6750 invalid_token. */
  | { ok: false; kind: "invalid"; reason: string }
  /** The issuer's keys could not be had: nothing can be said of the token now. */
  | { ok: false; kind: "unavailable"; reason: string };

interface VerificationKey {
  kid: string | undefined;
  alg: string | undefined;
  key: KeyObject;
}

/** How each algorithm verifies: the digest, the key type it needs, and its variant. */
const VERIFIERS: Record<JwsAlgorithm, { digest: string | null; keyType: "rsa" | "ec" | "ed"; pssSaltLength?: number; curve?: string }> = {
  RS256: { digest: "sha256", keyType: "rsa" },
  RS384: { digest: "sha384", keyType: "rsa" },
  RS512: { digest: "sha512", keyType: "rsa" },
  PS256: { digest: "sha256", keyType: "rsa", pssSaltLength: 32 },
  PS384: { digest: "sha384", keyType: "rsa", pssSaltLength: 48 },
  PS512: { digest: "sha512", keyType: "rsa", pssSaltLength: 64 },
  ES256: { digest: "sha256", keyType: "ec", curve: "prime256v1" },
  ES384: { digest: "sha384", keyType: "ec", curve: "secp384r1" },
  ES512: { digest: "sha512", keyType: "ec", curve: "secp521r1" },
  EdDSA: { digest: null, keyType: "ed" },
};

/** RSA keys shorter than this are refused (RFC 7518 §3.3). */
const MIN_RSA_BITS = 2048;

function keyFits(key: KeyObject, algorithm: JwsAlgorithm): boolean {
  const verifier = VERIFIERS[algorithm];
  const type = key.asymmetricKeyType;
  if (verifier.keyType === "rsa") return (type === "rsa" || type === "rsa-pss") && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= MIN_RSA_BITS;
  if (verifier.keyType === "ec") return type === "ec" && key.asymmetricKeyDetails?.namedCurve === verifier.curve;
  return type === "ed25519" || type === "ed448";
}

function signatureValid(algorithm: JwsAlgorithm, key: KeyObject, signed: Buffer, signature: Buffer): boolean {
  const verifier = VERIFIERS[algorithm];
  try {
    if (verifier.pssSaltLength !== undefined) {
      return verify(verifier.digest, signed, { key, padding: cryptoConstants.RSA_PKCS1_PSS_PADDING, saltLength: verifier.pssSaltLength }, signature);
    }
    if (verifier.keyType === "ec") return verify(verifier.digest, signed, { key, dsaEncoding: "ieee-p1363" }, signature);
    return verify(verifier.digest, signed, key, signature);
  } catch {
    return false;
  }
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

function decodeJsonPart(part: string): Record<string, unknown> | undefined {
  if (!BASE64URL.test(part)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** RFC 9068 §2.1: "at+jwt", with or without the "application/" prefix, in any case. */
function isAccessTokenType(typ: unknown): boolean {
  if (typeof typ !== "string") return false;
  const lower = typ.toLowerCase();
  return lower === "at+jwt" || lower === "application/at+jwt";
}

/** URLs compare by their normalised form ("https://a.example" names the same as "https://a.example/"). */
function sameResource(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

function scopesOf(payload: Record<string, unknown>): string[] {
  if (typeof payload.scope === "string") return payload.scope.split(" ").filter((scope) => scope !== "");
  // Some issuers put them in "scp", as a list or a string.
  if (Array.isArray(payload.scp)) return payload.scp.filter((scope): scope is string => typeof scope === "string");
  if (typeof payload.scp === "string") return payload.scp.split(" ").filter((scope) => scope !== "");
  return [];
}

/** Reads a response body, stopping past `maxBytes` of decoded bytes (a compressed body can expand far beyond its Content-Length). */
async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (response.body === null) return "";
  const read = await readStreamWithinLimit(response.body, maxBytes);
  if (!read.ok) {
    // Nobody waits on the rest of an issuer's answer: stop the download.
    await read.rest.cancel().catch(() => undefined);
    throw new Error(`larger than ${maxBytes} bytes`);
  }
  return new TextDecoder().decode(read.bytes);
}

async function fetchJson(url: string, timeoutMs: number): Promise<Record<string, unknown>> {
  const signal = AbortSignal.timeout(timeoutMs);
  // No redirects: a document the issuer's own URL does not serve is not the issuer's.
  const response = await fetch(url, { signal, redirect: "error", headers: { accept: "application/json" } });
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`${url} answered ${response.status}`);
  }
  const value: unknown = JSON.parse(await readCapped(response, LIMITS.oauth.maxDocumentBytes));
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error(`${url} did not answer a JSON object`);
  return value as Record<string, unknown>;
}

/** The issuer's metadata locations: RFC 8414's (the well-known part before the issuer's path), then OpenID Connect's. */
function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  return [`${url.origin}/.well-known/oauth-authorization-server${path}`, `${url.origin}${path}/.well-known/openid-configuration`];
}

/**
 * The issuer's signing keys: fetched on first need, then again in the background once keysTtlMs old (requests go on
 * with the keys held meanwhile), and early, rate-limited, for an unknown key id.
 */
class IssuerKeys {
  private keys: VerificationKey[] | undefined;
  private fetchedAt = 0;
  private lastUnknownKeyFetch = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<void> | undefined;
  private jwksUri: string | undefined;

  constructor(private readonly policy: AccessTokenPolicy, private readonly now: () => number) {
    this.jwksUri = policy.jwksUri;
  }

  /** Keys that may have signed a token with this key id; refreshed when stale or, once in a while, when none matches. */
  async candidates(kid: string | undefined, algorithm: JwsAlgorithm): Promise<VerificationKey[] | "unavailable"> {
    if (this.keys === undefined) await this.refresh();
    else if (this.now() - this.fetchedAt >= LIMITS.oauth.keysTtlMs) void this.refresh();
    if (this.keys === undefined) return "unavailable";
    let found = this.matching(kid, algorithm);
    if (found.length === 0 && this.now() - this.lastUnknownKeyFetch >= LIMITS.oauth.unknownKeyRefetchMs) {
      this.lastUnknownKeyFetch = this.now();
      await this.refresh();
      found = this.matching(kid, algorithm);
    }
    return found;
  }

  private matching(kid: string | undefined, algorithm: JwsAlgorithm): VerificationKey[] {
    return (this.keys ?? []).filter((entry) => (kid === undefined || entry.kid === kid) && (entry.alg === undefined || entry.alg === algorithm) && keyFits(entry.key, algorithm));
  }

  /** One fetch at a time; on failure the keys already held stay in use. */
  private refresh(): Promise<void> {
    this.inFlight ??= this.load()
      .then((keys) => {
        this.keys = keys;
        this.fetchedAt = this.now();
      })
      .catch((error: unknown) => {
        log.warn("the issuer's signing keys could not be fetched", { issuer: this.policy.issuer, error: error instanceof Error ? error.message : String(error) });
      })
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }

  private async load(): Promise<VerificationKey[]> {
    const timeoutMs = this.policy.fetchTimeoutMs ?? LIMITS.oauth.fetchTimeoutMs;
    this.jwksUri ??= await this.discoverJwksUri(timeoutMs);
    const document = await fetchJson(this.jwksUri, timeoutMs);
    if (!Array.isArray(document.keys)) throw new Error(`${this.jwksUri} holds no "keys" list`);
    const keys: VerificationKey[] = [];
    for (const jwk of document.keys as unknown[]) {
      if (jwk === null || typeof jwk !== "object") continue;
      const entry = jwk as Record<string, unknown>;
      if (entry.use !== undefined && entry.use !== "sig") continue;
      try {
        const key = createPublicKey({ key: entry as JsonWebKey, format: "jwk" });
        keys.push({ kid: typeof entry.kid === "string" ? entry.kid : undefined, alg: typeof entry.alg === "string" ? entry.alg : undefined, key });
      } catch (error) {
        log.debug("a key in the issuer's key set was skipped", { kid: entry.kid, error: error instanceof Error ? error.message : String(error) });
      }
    }
    return keys;
  }

  private async discoverJwksUri(timeoutMs: number): Promise<string> {
    const failures: string[] = [];
    for (const url of metadataUrls(this.policy.issuer)) {
      try {
        const metadata = await fetchJson(url, timeoutMs);
        // RFC 8414 §3.3: metadata naming another issuer must not be used.
        if (metadata.issuer !== this.policy.issuer) throw new Error(`${url} names the issuer ${JSON.stringify(metadata.issuer)}`);
        if (typeof metadata.jwks_uri !== "string") throw new Error(`${url} has no jwks_uri`);
        const problem = urlProblem(metadata.jwks_uri, "jwks_uri");
        if (problem !== undefined) throw new Error(`${url}: jwks_uri ${problem}`);
        return metadata.jwks_uri;
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }
    throw new Error(`the issuer's metadata could not be read (${failures.join("; ")})`);
  }
}

/** Builds the check of one bearer token against the configured issuer. */
export function createAccessTokenVerifier(policy: AccessTokenPolicy): (token: string) => Promise<TokenVerdict> {
  const now = policy.now ?? Date.now;
  const keys = new IssuerKeys(policy, now);
  const allowed = new Set<string>(policy.algorithms);
  const invalid = (reason: string): TokenVerdict => ({ ok: false, kind: "invalid", reason });

  return async (token) => {
    if (Buffer.byteLength(token) > LIMITS.oauth.maxTokenBytes) return invalid(`the token is longer than ${LIMITS.oauth.maxTokenBytes} bytes`);
    const parts = token.split(".");
    if (parts.length !== 3) return invalid("the token is not a signed JWT (three dot-separated parts)");
    const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
    const header = decodeJsonPart(headerPart);
    const payload = decodeJsonPart(payloadPart);
    if (header === undefined || payload === undefined || !BASE64URL.test(signaturePart)) return invalid("the token is not a well-formed JWT");
    const algorithm = header.alg;
    if (typeof algorithm !== "string" || !allowed.has(algorithm)) return invalid(`the token's algorithm ${JSON.stringify(algorithm)} is not accepted`);
    if (!isAccessTokenType(header.typ)) return invalid(`the token's type ${JSON.stringify(header.typ)} is not "at+jwt" (RFC 9068): it is not an access token`);
    if (header.crit !== undefined) return invalid("the token has critical header extensions this server does not understand");
    if (payload.iss !== policy.issuer) return invalid("the token was issued by another issuer");

    const candidates = await keys.candidates(typeof header.kid === "string" ? header.kid : undefined, algorithm as JwsAlgorithm);
    if (candidates === "unavailable") return { ok: false, kind: "unavailable", reason: "the issuer's signing keys could not be fetched" };
    const signed = Buffer.from(`${headerPart}.${payloadPart}`, "ascii");
    const signature = Buffer.from(signaturePart, "base64url");
    if (candidates.length === 0) return invalid("the token is signed with a key the issuer does not publish");
    if (!candidates.some((candidate) => signatureValid(algorithm as JwsAlgorithm, candidate.key, signed, signature))) return invalid("the token's signature is not valid");

    const audiences = typeof payload.aud === "string" ? [payload.aud] : Array.isArray(payload.aud) ? payload.aud : [];
    if (!audiences.some((audience) => typeof audience === "string" && sameResource(audience, policy.resource))) {
      return invalid("the token's audience is not this server (RFC 8707): ask for a token with this server's URL as the resource");
    }
    const seconds = now() / 1000;
    if (typeof payload.exp !== "number") return invalid("the token has no expiry (exp)");
    if (seconds > payload.exp + policy.leewaySeconds) return invalid("the token has expired");
    if (payload.nbf !== undefined && (typeof payload.nbf !== "number" || seconds + policy.leewaySeconds < payload.nbf)) return invalid("the token is not valid yet (nbf)");

    const clientId = typeof payload.client_id === "string" ? payload.client_id : typeof payload.azp === "string" ? payload.azp : "";
    const subject = typeof payload.sub === "string" && payload.sub !== "" ? payload.sub : undefined;
    // Sessions and receipt shares belong to the caller a token names: tokens naming nobody would all be one caller.
    if (subject === undefined && clientId === "") return invalid("the token names neither its subject (sub) nor its client (client_id), which RFC 9068 requires");
    return {
      ok: true,
      claims: { subject, clientId, scopes: scopesOf(payload), expiresAt: payload.exp },
    };
  };
}
