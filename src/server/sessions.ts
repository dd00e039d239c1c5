/**
 * Live Streamable HTTP sessions of 2025-era clients (2024-11-05 … 2025-11-25): one SDK transport and
 * one MCP server each. Tracks activity so idle sessions can be closed, caps how many may live at once
 * (making room by evicting the stalest session), and closes everything on shutdown.
 */

import { randomUUID } from "node:crypto";
import { type AuthInfo, type Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { log } from "../core/log.ts";

export interface Session {
  readonly id: string;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
  /** When the last request started or the last response finished. */
  lastActivityMs: number;
  /** Responses still being written; an open GET (or long POST) stream keeps the session busy. */
  openResponses: number;
  /** Whether the client confirmed the handshake (notifications/initialized). */
  initialized: boolean;
  /** Set once closing has begun, so closing twice waits for the same work. */
  closing: Promise<void> | undefined;
}

export interface SessionRegistryOptions {
  maxSessions: number;
  idleMs: number;
  jsonResponse: boolean;
  maxBodyBytes: number;
  createServer: (sessionId: string) => Server;
  now?: () => number;
}

export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();
  /** Initialize requests in flight: they hold a slot so concurrent ones cannot exceed the cap. */
  private pendingOpens = 0;
  private shuttingDown = false;
  private readonly now: () => number;

  constructor(private readonly options: SessionRegistryOptions) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.sessions.size;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  hasCapacity(): boolean {
    return this.sessions.size + this.pendingOpens < this.options.maxSessions;
  }

  /**
   * Makes room for one more session when the cap is reached, by closing the session that matters least:
   * one that never finished its handshake, else the one idle longest. Clients that never send DELETE
   * (one session per call) would otherwise lock everyone out until the idle timeout. A session with a
   * response still open is never evicted. Returns whether there is room now.
   */
  async makeRoom(): Promise<boolean> {
    if (this.hasCapacity()) return true;
    const candidates = [...this.sessions.values()].filter((s) => s.openResponses === 0 && s.closing === undefined);
    if (candidates.length === 0) return false;
    const stalest = candidates.reduce((worst, s) => {
      if (s.initialized !== worst.initialized) return s.initialized ? worst : s;
      return s.lastActivityMs < worst.lastActivityMs ? s : worst;
    });
    log.info("session cap reached: evicting a session", { session: stalest.id, initialized: stalest.initialized, idleMs: this.now() - stalest.lastActivityMs });
    // The slot is free as soon as the session leaves the map; its transport finishes closing meanwhile.
    const closed = this.close(stalest).catch((error: unknown) => log.warn("closing an evicted session failed", { session: stalest.id, error }));
    if (!this.hasCapacity()) await closed;
    return this.hasCapacity();
  }

  /**
   * Handles an initialize request: makes a transport and a fresh server, and keeps
   * them if the SDK accepts the request. Call only after `hasCapacity()` said yes.
   */
  async open(request: Request, parsedBody: unknown, authInfo?: AuthInfo): Promise<Response> {
    this.pendingOpens += 1;
    let slotHeld = true;
    const releaseSlot = () => {
      if (slotHeld) {
        slotHeld = false;
        this.pendingOpens -= 1;
      }
    };

    let session: Session | undefined;
    try {
      // The id exists before the server so the factory can know which session it serves.
      const id = randomUUID();
      const server = this.options.createServer(id);
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => id,
        enableJsonResponse: this.options.jsonResponse,
        maxRequestBodySize: this.options.maxBodyBytes,
        onsessioninitialized: () => {
          if (session === undefined || this.shuttingDown) return;
          this.sessions.set(id, session);
          releaseSlot();
        },
      });
      const created: Session = { id, transport, server, lastActivityMs: this.now(), openResponses: 1, initialized: false, closing: undefined };
      session = created;
      const announced = server.oninitialized;
      server.oninitialized = () => {
        created.initialized = true;
        announced?.();
      };
      // Set before connect: the SDK chains its own close handling after ours.
      transport.onclose = () => {
        if (this.sessions.get(id) === created) this.sessions.delete(id);
        // A DELETE or SDK-side close ends the transport; the server goes with it.
        this.close(created).catch((error: unknown) => log.warn("closing an http session failed", { session: id, error }));
      };
      await server.connect(transport);
      const response = await transport.handleRequest(request, authInfo === undefined ? { parsedBody } : { parsedBody, authInfo });
      releaseSlot();
      if (this.sessions.get(id) !== created) {
        // Refused before initialization (wrong Accept or Content-Type, bad message) or shut down meanwhile.
        created.openResponses = 0;
        await this.close(created);
        return response;
      }
      return this.trackResponse(created, response);
    } catch (error) {
      releaseSlot();
      if (session) await this.close(session).catch(() => undefined);
      throw error;
    }
  }

  /** Passes a request to an existing session's transport, with the caller an OAuth guard admitted (if any). */
  async handle(session: Session, request: Request, parsedBody?: unknown, authInfo?: AuthInfo): Promise<Response> {
    session.lastActivityMs = this.now();
    session.openResponses += 1;
    let response: Response;
    try {
      response = await session.transport.handleRequest(request, parsedBody === undefined ? undefined : authInfo === undefined ? { parsedBody } : { parsedBody, authInfo });
    } catch (error) {
      this.finishResponse(session);
      throw error;
    }
    return this.trackResponse(session, response);
  }

  /** Closes sessions that are not busy and have seen no activity for idleMs. */
  async sweepIdle(): Promise<void> {
    const now = this.now();
    const idle = [...this.sessions.values()].filter((s) => s.openResponses === 0 && now - s.lastActivityMs >= this.options.idleMs);
    await Promise.all(
      idle.map(async (session) => {
        log.debug("closing idle http session", { session: session.id });
        await this.close(session).catch((error: unknown) => log.warn("closing an idle session failed", { session: session.id, error }));
      }),
    );
  }

  /** Closes one session (transport and server); safe to call more than once. */
  close(session: Session): Promise<void> {
    session.closing ??= (async () => {
      if (this.sessions.get(session.id) === session) this.sessions.delete(session.id);
      await session.transport.close();
      await session.server.close();
    })();
    return session.closing;
  }

  /** Refuses new sessions and closes every live one; rejects if any close failed. */
  async closeAll(): Promise<void> {
    this.shuttingDown = true;
    const results = await Promise.allSettled([...this.sessions.values()].map((session) => this.close(session)));
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === "rejected").map((r) => r.reason as unknown);
    if (failures.length > 0) throw new AggregateError(failures, `closing ${failures.length} http session(s) failed`);
  }

  private finishResponse(session: Session): void {
    session.openResponses = Math.max(0, session.openResponses - 1);
    session.lastActivityMs = this.now();
  }

  /** Re-wraps the response body so the session stays busy until the body ends or the client goes away. */
  private trackResponse(session: Session, response: Response): Response {
    const source = response.body;
    if (source === null) {
      this.finishResponse(session);
      return response;
    }
    const reader = source.getReader();
    let finished = false;
    const finish = () => {
      if (!finished) {
        finished = true;
        this.finishResponse(session);
      }
    };
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const chunk = await reader.read();
          if (chunk.done) {
            finish();
            controller.close();
          } else {
            controller.enqueue(chunk.value);
          }
        } catch (error) {
          finish();
          try {
            controller.error(error);
          } catch {
            // Already cancelled by the consumer.
          }
        }
      },
      cancel: async (reason) => {
        finish();
        await reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }
}
