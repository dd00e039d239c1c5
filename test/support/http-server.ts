/**
 * The HTTP transport as the in-process tests start it: loopback, a free port, SSE answers, no token,
 * sixteen sessions idle for a minute. A test passes the server factory and overrides what it is about.
 */
import { type HttpHandle, type HttpOptions, startHttpServer } from "../../src/server/http.ts";

export function testHttpOptions(createServer: HttpOptions["createServer"], overrides: Partial<HttpOptions> = {}): HttpOptions {
  return {
    host: "127.0.0.1",
    port: 0,
    jsonResponse: false,
    token: undefined,
    maxSessions: 16,
    sessionIdleMs: 60_000,
    allowedHosts: [],
    allowedOrigins: [],
    version: "9.9.9-test",
    createServer,
    ...overrides,
  };
}

/** Starts the transport and queues its close on `cleanups` (the test file runs them after each test). */
export async function startTestHttp(
  cleanups: Array<() => Promise<unknown>>,
  createServer: HttpOptions["createServer"],
  overrides: Partial<HttpOptions> = {},
): Promise<HttpHandle> {
  const handle = await startHttpServer(testHttpOptions(createServer, overrides));
  cleanups.push(() => handle.close());
  return handle;
}
