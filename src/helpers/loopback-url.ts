/** Loopback addresses: which hosts only this machine can reach, and the URL a client on this machine uses for a server bound to `host:port`. */

const WILDCARDS = new Set(["", "0.0.0.0", "::", "[::]", "0:0:0:0:0:0:0:0", "*"]);

/** A wildcard bind is reached through loopback; an IPv6 literal gets its brackets. */
export function clientHostFor(bindHost: string): string {
  const host = bindHost.trim();
  if (WILDCARDS.has(host)) return "127.0.0.1";
  if (host.includes(":") && !host.startsWith("[")) return `[${host}]`;
  return host;
}

/** http://HOST:PORT/mcp for the Streamable HTTP endpoint. */
export function mcpUrlFor(bindHost: string, port: number): string {
  return `http://${clientHostFor(bindHost)}:${port}/mcp`;
}

/** http://HOST:PORT/healthz. */
export function healthUrlFor(bindHost: string, port: number): string {
  return `http://${clientHostFor(bindHost)}:${port}/healthz`;
}

/** Strip IPv6 brackets and lowercase, so "[::1]" and "::1" compare equal. */
export function bareHost(host: string): string {
  const lower = host.trim().toLowerCase();
  return lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower;
}

/** True for addresses that only this machine can reach: localhost, 127.0.0.0/8, ::1. */
export function isLoopbackHost(host: string): boolean {
  const bare = bareHost(host);
  if (bare === "localhost") return true;
  // The URL parser canonicalises addresses ("0:0:0:0:0:0:0:1" → "[::1]", "127.1" → "127.0.0.1") and refuses malformed ones.
  let canonical: string;
  try {
    canonical = new URL(`http://${bare.includes(":") ? `[${bare}]` : bare}/`).hostname;
  } catch {
    return false;
  }
  if (/^\d+\.\d+\.\d+\.\d+$/.test(canonical)) return canonical.startsWith("127.");
  return canonical === "[::1]" || canonical.startsWith("[::ffff:7f");
}
