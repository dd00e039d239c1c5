/**
 * Checks of [http.auth] that the schema cannot express: which keys need each other and which URLs
 * are safe to trust. Each problem names its key and says what to do, for `ast-mcp config validate`.
 */
import { isLoopbackHost } from "../helpers/loopback-url.ts";
import type { EffectiveConfig } from "./schema.ts";
import type { ConfigProblem, ValueSource } from "./types.ts";

/** Whether the configuration turns the OAuth resource-server mode on. */
export function oauthEnabled(config: EffectiveConfig): boolean {
  return config.http.auth.issuer !== undefined;
}

/** What is wrong with a URL the server trusts (https, or http on loopback only; no fragment); undefined when it is fine. */
export function urlProblem(value: string, what: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${JSON.stringify(value)} is not an absolute URL; write ${what} in full, e.g. "https://auth.example.com"`;
  }
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    return `${
      JSON.stringify(value)
    } uses http off loopback: anyone on the path could change what it says; use https (plain http is accepted only for 127.0.0.1, ::1 and localhost)`;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return `${JSON.stringify(value)} is not an https URL`;
  if (url.hash !== "") return `${JSON.stringify(value)} has a fragment (#…), which ${what} may not have`;
  return undefined;
}

export function httpAuthProblems(config: EffectiveConfig, sources: Record<string, ValueSource>, userFile: string): ConfigProblem[] {
  const auth = config.http.auth;
  const problems: ConfigProblem[] = [];
  const add = (key: string, message: string) => {
    const source = sources[`http.auth.${key}`] ?? "default";
    const file = source === "default" ? userFile : source.startsWith("user:") || source.startsWith("project:") ? source.slice(source.indexOf(":") + 1) : source;
    problems.push({ file, keyPath: `http.auth.${key}`, message });
  };

  if (auth.issuer === undefined) {
    const set = (["resource", "jwks_uri"] as const).filter((key) => auth[key] !== undefined);
    if (set.length > 0) {
      add(
        "issuer",
        `missing: [http.auth] sets ${
          set.join(" and ")
        } but no issuer, so the OAuth mode would stay off; set issuer to the authorization server's URL (the "iss" of its tokens), or remove [http.auth]`,
      );
    }
    return problems;
  }

  const issuerProblem = urlProblem(auth.issuer, "an issuer");
  if (issuerProblem) add("issuer", issuerProblem);
  else if (new URL(auth.issuer).search !== "") add("issuer", `${JSON.stringify(auth.issuer)} has a query (?…), which an issuer may not have (RFC 8414)`);

  if (auth.resource === undefined) {
    add(
      "resource",
      "missing: the OAuth mode needs this server's MCP endpoint as clients reach it (e.g. \"https://mcp.example.com/mcp\"): tokens must name it as their audience, and the protected-resource metadata names it",
    );
  } else {
    const resourceProblem = urlProblem(auth.resource, "the resource");
    if (resourceProblem) add("resource", resourceProblem);
  }

  if (auth.jwks_uri !== undefined) {
    const jwksProblem = urlProblem(auth.jwks_uri, "jwks_uri");
    if (jwksProblem) add("jwks_uri", jwksProblem);
  }

  if (Object.keys(auth.scopes).length === 0) {
    add("scopes", "empty: no scope grants a tool profile, so every token would be refused; map at least one scope, e.g. { \"ast-mcp:read\" = \"read\" }");
  }
  return problems;
}
