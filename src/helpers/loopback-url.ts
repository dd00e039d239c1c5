/** The URL a client on this machine uses for a server bound to `host:port`. */

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
