/**
 * The OAuth 2.1 resource-server mode of the HTTP transport ([http.auth]): the protected-resource
 * metadata (RFC 9728), the bearer challenge on refusal (RFC 6750, with the metadata's URL), and the
 * access-token check. A valid token's scopes choose its tool profile; the profile travels to the tool
 * handlers as the SDK's AuthInfo, which the transport passes along with each request.
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { Hono, MiddlewareHandler } from "hono";
import { type EffectiveConfig, type JwsAlgorithm, TOOL_PROFILES, type ToolProfile } from "../config/schema.ts";
import { LruMap } from "../helpers/lru-map.ts";
import { createAccessTokenVerifier } from "./access-token.ts";
import { bearerTokenFrom, JSONRPC_SERVER_ERROR, JSONRPC_SESSION_NOT_FOUND, jsonRpcErrorResponse } from "./http-guards.ts";

export interface OAuthSettings {
  issuer: string;
  /** This server's MCP endpoint as clients reach it. */
  resource: string;
  jwksUri: string | undefined;
  algorithms: readonly JwsAlgorithm[];
  leewaySeconds: number;
  /** Scope → the tool profile it grants. */
  scopes: Readonly<Record<string, ToolProfile>>;
  /** The narrowest profile that includes a tool (undefined: no such tool); the transport itself knows no tools. */
  profileForTool?: ((toolName: string) => ToolProfile | undefined) | undefined;
  /** Tests shorten it; LIMITS.oauth.fetchTimeoutMs otherwise. */
  fetchTimeoutMs?: number;
}

/** The settings of [http.auth], or undefined when the mode is off (no issuer). Validation has checked them. */
export function oauthSettingsFrom(auth: EffectiveConfig["http"]["auth"], profileForTool: OAuthSettings["profileForTool"]): OAuthSettings | undefined {
  if (auth.issuer === undefined || auth.resource === undefined) return undefined;
  return {
    issuer: auth.issuer,
    resource: auth.resource,
    jwksUri: auth.jwks_uri,
    algorithms: auth.algorithms,
    leewaySeconds: auth.leeway_seconds,
    scopes: auth.scopes,
    profileForTool,
  };
}

const WELL_KNOWN = "/.well-known/oauth-protected-resource";
/** Session owners remembered: as many as the most sessions [http].max_sessions allows, so a live session's owner is never dropped first. */
const MAX_SESSION_OWNERS = 100_000;
/** Narrowest first: a token gets the widest profile among its scopes. */
const PROFILES_BY_WIDTH: readonly ToolProfile[] = TOOL_PROFILES;

/** The profile a token's scopes grant: the widest one named; undefined when none is. */
export function profileForScopes(scopes: readonly string[], map: Readonly<Record<string, ToolProfile>>): ToolProfile | undefined {
  let widest = -1;
  for (const scope of scopes) {
    const profile = Object.hasOwn(map, scope) ? map[scope] : undefined;
    if (profile !== undefined) widest = Math.max(widest, PROFILES_BY_WIDTH.indexOf(profile));
  }
  return widest < 0 ? undefined : PROFILES_BY_WIDTH[widest];
}

/** The tool profile an authenticated caller was granted (undefined: no OAuth caller, the configuration decides alone). */
export function grantedProfile(authInfo: AuthInfo | undefined): ToolProfile | undefined {
  const profile = authInfo?.extra?.profile;
  return PROFILES_BY_WIDTH.find((known) => known === profile);
}

/** Who an authenticated caller is: the token's subject, else its client (the owner its sessions are bound to too). */
export function principalOf(authInfo: AuthInfo | undefined): string | undefined {
  const principal = authInfo?.extra?.principal;
  return typeof principal === "string" ? principal : undefined;
}

/** Each admitted request's caller, for the transport to hand to the SDK. */
const callers = new WeakMap<Request, AuthInfo>();

export function callerOf(request: Request): AuthInfo | undefined {
  return callers.get(request);
}

/** The caller as the SDK's request options take it: `{ authInfo }`, or nothing. */
export function callerOptions(request: Request): { authInfo?: AuthInfo } {
  const authInfo = callers.get(request);
  return authInfo === undefined ? {} : { authInfo };
}

/**
 * An RFC 6750 challenge. Its values are printable ASCII without quotes or backslashes: a quote would end
 * the quoted string, and a reason quoting a token's own header (its `alg`, say) may hold any character,
 * which Node refuses in a header, turning the refusal into a 500.
 */
function challenge(parameters: Record<string, string | undefined>): string {
  const pairs = Object.entries(parameters).filter((pair): pair is [string, string] => pair[1] !== undefined);
  return `Bearer ${pairs.map(([name, value]) => `${name}="${value.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, "?")}"`).join(", ")}`;
}

/**
 * The step-up check of one parsed request body: a `tools/call` beyond the caller's profile gets 403 with the
 * scopes that would grant it; undefined lets the request through. Every revision is checked on its body, the
 * one place every client names the tool (2025-era clients send no `Mcp-Name` header).
 */
export type StepUpCheck = (request: Request, body: unknown) => Response | undefined;

/** The names of the tools a JSON-RPC message (or legacy batch) calls. */
function toolsCalledIn(body: unknown): string[] {
  const names: string[] = [];
  for (const message of Array.isArray(body) ? body : [body]) {
    if (message === null || typeof message !== "object") continue;
    const { method, id, params } = message as { method?: unknown; id?: unknown; params?: { name?: unknown } };
    if (method === "tools/call" && id !== undefined && typeof params?.name === "string") names.push(params.name);
  }
  return names;
}

/**
 * Serves the metadata (at the well-known path, and suffixed with the resource's path and the MCP
 * path as RFC 9728 §3.1 places it), guards `mcpPath` with the access-token check, and returns the
 * step-up check the transport runs once it has parsed a request's body.
 */
export function useOAuth(app: Hono, mcpPath: string, settings: OAuthSettings): StepUpCheck {
  const resource = new URL(settings.resource);
  const suffix = resource.pathname.replace(/\/$/, "");
  const metadataUrl = `${resource.origin}${WELL_KNOWN}${suffix}`;
  const metadata = {
    resource: settings.resource,
    authorization_servers: [settings.issuer],
    scopes_supported: Object.keys(settings.scopes),
    bearer_methods_supported: ["header"],
    resource_name: "ast-mcp",
  };
  for (const path of new Set([WELL_KNOWN, `${WELL_KNOWN}${suffix}`, `${WELL_KNOWN}${mcpPath}`])) {
    // Public by design, and read by browser-based clients too.
    app.get(path, (c) => c.json(metadata, 200, { "Access-Control-Allow-Origin": "*" }));
  }
  const scopesFor = scopesGranting(settings);
  app.use(mcpPath, oauthGuard(settings, metadataUrl, scopesFor));
  return (request, body) => {
    const profile = grantedProfile(callers.get(request));
    if (profile === undefined) return undefined;
    for (const toolName of toolsCalledIn(body)) {
      const needed = settings.profileForTool?.(toolName);
      if (needed === undefined || PROFILES_BY_WIDTH.indexOf(needed) <= PROFILES_BY_WIDTH.indexOf(profile) || scopesFor(needed) === "") continue;
      const reason = `the tool ${toolName} needs the "${needed}" profile and the token's scopes grant "${profile}"`;
      return jsonRpcErrorResponse(403, JSONRPC_SERVER_ERROR, `Forbidden: ${reason}.`, {
        "WWW-Authenticate": challenge({ error: "insufficient_scope", scope: scopesFor(needed), error_description: reason, resource_metadata: metadataUrl }),
      });
    }
    return undefined;
  };
}

/** The scopes to ask for to get at least a profile: those of the narrowest configured profile that wide ("" when none is). */
function scopesGranting(settings: OAuthSettings): (needed: ToolProfile) => string {
  return (needed) => {
    const width = PROFILES_BY_WIDTH.indexOf(needed);
    const profile = PROFILES_BY_WIDTH.find((candidate, index) => index >= width && Object.values(settings.scopes).includes(candidate));
    return Object.keys(settings.scopes).filter((scope) => settings.scopes[scope] === profile).join(" ");
  };
}

function oauthGuard(settings: OAuthSettings, metadataUrl: string, scopesFor: (needed: ToolProfile) => string): MiddlewareHandler {
  const verify = createAccessTokenVerifier({
    issuer: settings.issuer,
    resource: settings.resource,
    jwksUri: settings.jwksUri,
    algorithms: settings.algorithms,
    leewaySeconds: settings.leewaySeconds,
    fetchTimeoutMs: settings.fetchTimeoutMs,
  });
  // What a client should ask for first: the least privilege.
  const entryScopes = scopesFor("read");
  // A session belongs to the caller that opened it (the MCP security practices: bind session ids to the user), so a
  // session id that leaks is of no use with another caller's token. Unknown ids are refused too: they would be anyway.
  const sessionOwners = new LruMap<string, string>(MAX_SESSION_OWNERS);

  return async (c, next) => {
    const token = bearerTokenFrom(c.req.header("authorization"));
    if (token === undefined) {
      return jsonRpcErrorResponse(
        401,
        JSONRPC_SERVER_ERROR,
        `Unauthorized: send an access token from ${settings.issuer} as "Authorization: Bearer <token>"; ${metadataUrl} says how to get one.`,
        { "WWW-Authenticate": challenge({ resource_metadata: metadataUrl, scope: entryScopes }) },
      );
    }
    const verdict = await verify(token);
    if (!verdict.ok && verdict.kind === "unavailable") {
      return jsonRpcErrorResponse(503, JSONRPC_SERVER_ERROR, `Service Unavailable: ${verdict.reason}; retry shortly.`, { "Retry-After": "5" });
    }
    if (!verdict.ok) {
      return jsonRpcErrorResponse(401, JSONRPC_SERVER_ERROR, `Unauthorized: ${verdict.reason}.`, {
        "WWW-Authenticate": challenge({ error: "invalid_token", error_description: verdict.reason, resource_metadata: metadataUrl }),
      });
    }
    const profile = profileForScopes(verdict.claims.scopes, settings.scopes);
    if (profile === undefined) {
      const reason = `the token's scopes grant no tool profile; ask for one of: ${Object.keys(settings.scopes).join(", ")}`;
      return jsonRpcErrorResponse(403, JSONRPC_SERVER_ERROR, `Forbidden: ${reason}.`, {
        "WWW-Authenticate": challenge({ error: "insufficient_scope", scope: entryScopes, error_description: reason, resource_metadata: metadataUrl }),
      });
    }
    const owner = verdict.claims.subject === undefined ? `client:${verdict.claims.clientId}` : `sub:${verdict.claims.subject}`;
    const sessionId = c.req.header("mcp-session-id");
    if (sessionId !== undefined && sessionOwners.get(sessionId) !== owner) {
      return jsonRpcErrorResponse(
        404,
        JSONRPC_SESSION_NOT_FOUND,
        "Session not found: it ended, expired, or was opened with another caller's token; start a new one with an initialize request.",
      );
    }
    callers.set(c.req.raw, {
      token,
      clientId: verdict.claims.clientId,
      scopes: verdict.claims.scopes,
      expiresAt: verdict.claims.expiresAt,
      resource: new URL(settings.resource),
      extra: { profile, subject: verdict.claims.subject, principal: owner },
    });
    await next();
    const opened = c.res.headers.get("mcp-session-id");
    if (sessionId === undefined && opened !== null) sessionOwners.set(opened, owner);
    return undefined;
  };
}
