/**
 * Request guards for the HTTP transport: DNS-rebinding protection (Host and Origin)
 * and the optional bearer token. They run before any MCP handling, so a rejected
 * request never reaches a session.
 */

import { createHash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import type { MiddlewareHandler } from "hono";
import { bareHost, isLoopbackHost } from "../helpers/loopback-url.ts";

export { isLoopbackHost };

/** JSON-RPC "server error" code used for transport-level refusals. */
export const JSONRPC_SERVER_ERROR = -32000;
/** The code the SDK uses for an unknown or ended session. */
export const JSONRPC_SESSION_NOT_FOUND = -32001;
export const JSONRPC_PARSE_ERROR = -32700;
export const JSONRPC_INTERNAL_ERROR = -32603;

/** An HTTP error in JSON-RPC shape, so MCP clients can surface the message. */
export function jsonRpcErrorResponse(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
  return new Response(body, { status, headers: { "Content-Type": "application/json", ...headers } });
}

/** Host names that always mean "this machine" in a Host or Origin header. */
const LOOPBACK_HEADER_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The host as it appears in a Host header or URL: IPv6 literals in brackets. */
function headerForm(host: string): string {
  const bare = bareHost(host);
  return isIP(bare) === 6 ? `[${bare}]` : bare;
}

/** Split a Host header into host name (header form) and port; undefined when malformed. */
export function parseHostHeader(value: string): { hostname: string; port: string | undefined } | undefined {
  const trimmed = value.trim().toLowerCase();
  if (trimmed === "") return undefined;
  let hostname: string;
  let rest: string;
  if (trimmed.startsWith("[")) {
    const close = trimmed.indexOf("]");
    if (close < 0) return undefined;
    hostname = trimmed.slice(0, close + 1);
    rest = trimmed.slice(close + 1);
  } else {
    const colon = trimmed.indexOf(":");
    hostname = colon < 0 ? trimmed : trimmed.slice(0, colon);
    rest = colon < 0 ? "" : trimmed.slice(colon);
  }
  if (hostname === "" || hostname === "[]") return undefined;
  if (rest === "") return { hostname, port: undefined };
  if (!/^:\d{1,5}$/.test(rest)) return undefined;
  return { hostname, port: rest.slice(1) };
}

/** Normalise an origin ("scheme://host[:port]") for comparison; undefined when it is not one. */
function normaliseOrigin(value: string): string | undefined {
  try {
    const url = new URL(value.trim());
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    return url.origin.toLowerCase();
  } catch {
    return undefined;
  }
}

export interface HostPolicy {
  /** The address the server is bound to. */
  bindHost: string;
  /** Extra accepted Host header values: "name" (any port) or "name:port". */
  allowedHosts: readonly string[];
  /** Extra accepted Origin header values (scheme://host[:port]). */
  allowedOrigins: readonly string[];
}

export type GuardVerdict = { ok: true } | { ok: false; message: string };

/**
 * Decides whether a request's Host and Origin headers are acceptable.
 * A loopback bind accepts only loopback names (any port), because a browser
 * tricked by DNS rebinding sends the attacker's name in Host. A non-loopback
 * bind (which always has a bearer token) accepts its own address, any IP literal
 * (rebinding needs a domain name the attacker controls; an address cannot be rebound),
 * localhost, and whatever the configuration adds.
 */
export function createHostOriginCheck(policy: HostPolicy): (host: string | undefined, origin: string | undefined) => GuardVerdict {
  const loopbackBind = isLoopbackHost(policy.bindHost);
  const bindName = headerForm(policy.bindHost);
  const acceptedNames = new Set<string>();
  const acceptedHostPorts = new Set<string>();
  if (loopbackBind) { for (const name of LOOPBACK_HEADER_HOSTS) acceptedNames.add(name); }
  acceptedNames.add(bindName);
  for (const entry of policy.allowedHosts) {
    const parsed = parseHostHeader(entry);
    if (!parsed) continue;
    const name = headerForm(parsed.hostname);
    if (parsed.port === undefined) acceptedNames.add(name);
    else acceptedHostPorts.add(`${name}:${parsed.port}`);
  }
  const acceptedOrigins = new Set<string>();
  for (const entry of policy.allowedOrigins) {
    const normalised = normaliseOrigin(entry);
    if (normalised) acceptedOrigins.add(normalised);
  }

  const hostHint = loopbackBind ?
    "this server is bound to a loopback address and only answers to localhost, 127.0.0.1 or [::1]" :
    `this server answers to IP addresses, localhost and the names in [http].allowed_hosts`;

  return (host, origin) => {
    if (host === undefined) return { ok: false, message: "Forbidden: the request has no Host header." };
    const parsed = parseHostHeader(host);
    const hostAccepted = parsed !== undefined &&
      (acceptedNames.has(headerForm(parsed.hostname)) ||
        (!loopbackBind && (isIP(bareHost(parsed.hostname)) !== 0 || bareHost(parsed.hostname) === "localhost")) ||
        (parsed.port !== undefined && acceptedHostPorts.has(`${headerForm(parsed.hostname)}:${parsed.port}`)));
    if (!hostAccepted) {
      return { ok: false, message: `Forbidden: Host header ${JSON.stringify(host)} is not accepted (${hostHint}; add the name to [http].allowed_hosts if it is legitimate).` };
    }
    if (origin === undefined) return { ok: true };
    const normalised = normaliseOrigin(origin);
    if (normalised !== undefined) {
      if (acceptedOrigins.has(normalised)) return { ok: true };
      if (loopbackBind && LOOPBACK_HEADER_HOSTS.has(new URL(normalised).hostname)) return { ok: true };
    }
    return {
      ok: false,
      message: `Forbidden: Origin ${JSON.stringify(origin)} is not accepted (${
        loopbackBind ? "only loopback origins and " : "only "
      }the origins in [http].allowed_origins may call this server).`,
    };
  };
}

/** Middleware form of the Host/Origin check: 403 with a JSON body on violation. */
export function hostOriginGuard(policy: HostPolicy): MiddlewareHandler {
  const check = createHostOriginCheck(policy);
  return async (c, next) => {
    const verdict = check(c.req.header("host"), c.req.header("origin"));
    if (!verdict.ok) return jsonRpcErrorResponse(403, JSONRPC_SERVER_ERROR, verdict.message);
    await next();
    return undefined;
  };
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * Compares a presented token with the expected one in constant time. Hashing both
 * first gives equal-length inputs, so neither content nor length leaks through timing.
 */
export function createTokenCheck(expectedToken: string): (presented: string) => boolean {
  const expectedDigest = sha256(expectedToken);
  return (presented) => timingSafeEqual(sha256(presented), expectedDigest);
}

/** The token from an "Authorization: Bearer <token>" header (scheme is case-insensitive). */
export function bearerTokenFrom(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** Middleware requiring the bearer token: 401 with WWW-Authenticate otherwise. */
export function bearerGuard(expectedToken: string): MiddlewareHandler {
  const tokenMatches = createTokenCheck(expectedToken);
  return async (c, next) => {
    const presented = bearerTokenFrom(c.req.header("authorization"));
    if (presented === undefined || !tokenMatches(presented)) {
      const message = presented === undefined ?
        "Unauthorized: send the server's token as \"Authorization: Bearer <token>\"." :
        "Unauthorized: the bearer token does not match the server's token.";
      return jsonRpcErrorResponse(401, JSONRPC_SERVER_ERROR, message, { "WWW-Authenticate": "Bearer realm=\"ast-mcp\"" });
    }
    await next();
    return undefined;
  };
}
