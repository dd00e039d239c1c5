/**
 * Hardened stdio transport: newline-delimited JSON-RPC 2.0 on a byte stream.
 *
 * Unlike the SDK's StdioServerTransport it answers malformed input instead of ignoring it,
 * survives oversized frames, accepts batches, keeps memory bounded under floods, applies
 * backpressure from stdout to stdin, and treats a vanished peer as an orderly close.
 */
import type { Readable, Writable } from "node:stream";
import { type JSONRPCMessage, parseJSONRPCMessage, type Transport, type TransportSendOptions } from "@modelcontextprotocol/server";
import { LIMITS } from "../core/limits.ts";
import { log } from "../core/log.ts";

/** Tuning: bytes of outbound frames queued before stdin is paused until the queue drains. */
const OUTBOUND_HIGH_WATER_BYTES = 8 * 1024 * 1024;

export type StdioLimits = { readonly [K in keyof typeof LIMITS.stdio | "outboundHighWaterBytes"]: number };

export interface StdioTransportOptions {
  input?: Readable;
  output?: Writable;
  limits?: Partial<StdioLimits>;
  /** After stdin ends, how long requests already dispatched may take to be answered before the transport closes. */
  inputEndGraceMs?: number;
  /** Called once the transport has closed, after `onclose` (which belongs to whoever drives the transport). */
  afterClose?: () => void;
}

type RequestId = string | number;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

const NOTICE_LOGGER = "ast-mcp/stdio";

/** Error codes meaning the peer went away: an orderly end, not something to report. */
const PEER_GONE_CODES = new Set(["EPIPE", "ECONNRESET", "ERR_STREAM_DESTROYED", "ERR_STREAM_WRITE_AFTER_END"]);

function isPeerGone(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && PEER_GONE_CODES.has(code);
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Distinguishes 1 from "1" so both can be outstanding at once. */
function idKey(id: RequestId): string {
  return typeof id === "number" ? `n:${id}` : `s:${id}`;
}

function isJsonWhitespace(byte: number | undefined): boolean {
  return byte === SPACE || byte === TAB || byte === CARRIAGE_RETURN;
}

/** Index of the first byte that is not JSON whitespace (after a UTF-8 byte order mark), or -1 for a blank frame. */
function firstNonBlank(frame: Buffer): number {
  const start = frame[0] === 0xef && frame[1] === 0xbb && frame[2] === 0xbf ? 3 : 0;
  for (let i = start; i < frame.length; i++) if (!isJsonWhitespace(frame[i])) return i;
  return -1;
}

function mayBeObjectOrArray(frame: Buffer, first: number): boolean {
  let last = frame.length - 1;
  while (last > first && isJsonWhitespace(frame[last])) last--;
  const open = frame[first];
  const close = frame[last];
  return (open === OPEN_BRACE && close === CLOSE_BRACE) || (open === OPEN_BRACKET && close === CLOSE_BRACKET);
}

export class StdioTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;

  readonly #input: Readable;
  readonly #output: Writable;
  readonly #limits: StdioLimits;
  readonly #inputEndGraceMs: number;
  readonly #afterClose: (() => void) | undefined;
  /** fatal: invalid UTF-8 is a parse error rather than silently replaced characters. */
  readonly #utf8 = new TextDecoder("utf-8", { fatal: true });

  // Inbound framing: pieces of the current frame (never more than maxFrameBytes + 1 bytes).
  #pieces: Buffer[] = [];
  #pieceBytes = 0;
  #discarding = false;
  /** Chunks received but not yet scanned because outbound is blocked; the input is paused meanwhile. */
  #backlog: Buffer[] = [];
  #backlogOffset = 0;

  // Error budget for one run of invalid frames.
  #errorRepliesInRun = 0;
  #noticeSent = false;

  // Outbound backpressure.
  #blocked = false;
  #pausedInput = false;
  #sendWaiters: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];

  // Lifecycle.
  #started = false;
  #closed = false;
  #inputEnded = false;
  #inputConsumed = false;
  #outstanding = new Set<string>();
  #graceTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: StdioTransportOptions = {}) {
    this.#input = options.input ?? process.stdin;
    this.#output = options.output ?? process.stdout;
    this.#limits = { ...LIMITS.stdio, outboundHighWaterBytes: OUTBOUND_HIGH_WATER_BYTES, ...options.limits };
    this.#inputEndGraceMs = options.inputEndGraceMs ?? LIMITS.shutdown.graceMs;
    this.#afterClose = options.afterClose;
  }

  /** Bytes of the frame currently being assembled (bounded by maxFrameBytes + 1). */
  get bufferedFrameBytes(): number {
    return this.#pieceBytes;
  }

  /** Whether reading stdin is paused because stdout has too many bytes queued. */
  get outboundBlocked(): boolean {
    return this.#blocked;
  }

  get closed(): boolean {
    return this.#closed;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error("StdioTransport already started; Server.connect() or serveStdio() starts it");
    this.#started = true;
    if (this.#closed) return;
    // Swallow late errors permanently: a stdout that breaks after close must not crash the process.
    this.#input.on("error", this.#onInputError);
    this.#output.on("error", this.#onOutputError);
    this.#input.on("data", this.#onData);
    this.#input.on("end", this.#onInputEnd);
    this.#input.on("close", this.#onInputEnd);
    this.#output.on("drain", this.#onDrain);
    this.#output.on("close", this.#onOutputClose);
    if (this.#output.destroyed || this.#output.writableEnded) {
      queueMicrotask(() => void this.close());
      return;
    }
    this.#input.resume();
  }

  send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("stdio transport is closed"));
    let text: string;
    try {
      text = `${JSON.stringify(message)}\n`;
    } catch (error) {
      return Promise.reject(toError(error));
    }
    this.#writeFrame(text);
    this.#noteAnswered(message);
    if (this.#closed) return Promise.reject(new Error("stdio transport is closed"));
    if (!this.#blocked) return Promise.resolve();
    // Senders that await (progress notifications, for instance) wait for stdout to catch up.
    return new Promise((resolve, reject) => this.#sendWaiters.push({ resolve, reject }));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#graceTimer !== undefined) clearTimeout(this.#graceTimer);
    this.#input.off("data", this.#onData);
    this.#input.off("end", this.#onInputEnd);
    this.#input.off("close", this.#onInputEnd);
    this.#output.off("drain", this.#onDrain);
    this.#output.off("close", this.#onOutputClose);
    if (this.#input.listenerCount("data") === 0) this.#input.pause();
    this.#pieces = [];
    this.#pieceBytes = 0;
    this.#backlog = [];
    this.#outstanding.clear();
    const waiters = this.#sendWaiters.splice(0);
    for (const waiter of waiters) waiter.reject(new Error("stdio transport closed before the frame was flushed"));
    this.onclose?.();
    this.#afterClose?.();
  }

  // ---- inbound ----

  readonly #onData = (chunk: Buffer | string): void => {
    if (this.#closed) return;
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    if (bytes.length === 0) return;
    this.#backlog.push(bytes);
    this.#scan();
  };

  readonly #onInputEnd = (): void => {
    if (this.#inputEnded || this.#closed) return;
    this.#inputEnded = true;
    this.#scan();
  };

  readonly #onInputError = (error: unknown): void => {
    if (this.#closed) return;
    if (!isPeerGone(error)) this.onerror?.(toError(error));
    this.#onInputEnd();
  };

  /** Splits backlog chunks on 0x0A; stops as soon as outbound is blocked so unread input stays in the pipe. */
  #scan(): void {
    while (!this.#closed && !this.#blocked && this.#backlog.length > 0) {
      const chunk = this.#backlog[0] as Buffer;
      const newline = chunk.indexOf(NEWLINE, this.#backlogOffset);
      if (newline === -1) {
        this.#appendToFrame(chunk.subarray(this.#backlogOffset));
        this.#backlog.shift();
        this.#backlogOffset = 0;
        continue;
      }
      this.#appendToFrame(chunk.subarray(this.#backlogOffset, newline));
      this.#backlogOffset = newline + 1;
      if (this.#backlogOffset >= chunk.length) {
        this.#backlog.shift();
        this.#backlogOffset = 0;
      }
      this.#finishFrame();
    }
    if (this.#closed || this.#blocked) return;
    if (this.#inputEnded && !this.#inputConsumed) {
      this.#inputConsumed = true;
      // A last frame without its newline still counts.
      if (this.#pieceBytes > 0 || this.#discarding) this.#finishFrame();
      this.#closeWhenAnswered();
    }
  }

  #appendToFrame(segment: Buffer): void {
    if (this.#discarding || segment.length === 0) return;
    // One spare byte leaves room for the \r of a \r\n line ending.
    if (this.#pieceBytes + segment.length > this.#limits.maxFrameBytes + 1) {
      this.#pieces = [];
      this.#pieceBytes = 0;
      this.#discarding = true;
      this.#rejectOversized();
      return;
    }
    this.#pieces.push(segment);
    this.#pieceBytes += segment.length;
  }

  #finishFrame(): void {
    if (this.#discarding) {
      this.#discarding = false;
      return;
    }
    const pieces = this.#pieces;
    const total = this.#pieceBytes;
    this.#pieces = [];
    this.#pieceBytes = 0;
    if (total === 0) return;
    const frame = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces, total);
    let end = frame.length;
    if (frame[end - 1] === CARRIAGE_RETURN) end--;
    if (end > this.#limits.maxFrameBytes) {
      this.#rejectOversized();
      return;
    }
    const body = frame.subarray(0, end);
    const first = firstNonBlank(body);
    if (first === -1) return;
    // Once replies are suppressed, a frame that cannot be an object or array cannot end the run:
    // skip the costly failing JSON.parse (tens of microseconds per line under V8).
    if (this.#noticeSent && !mayBeObjectOrArray(body, first)) return;
    this.#handleFrame(body);
  }

  #rejectOversized(): void {
    this.#reject(INVALID_REQUEST, `Invalid Request: frame exceeds ${this.#limits.maxFrameBytes} bytes and was discarded`, null);
  }

  #handleFrame(bytes: Buffer): void {
    let text: string;
    try {
      text = this.#utf8.decode(bytes);
    } catch {
      this.#reject(PARSE_ERROR, "Parse error: frame is not valid UTF-8", null);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#reject(PARSE_ERROR, "Parse error: frame is not valid JSON", null);
      return;
    }
    if (!Array.isArray(value)) {
      this.#handleMessage(value);
      return;
    }
    // Batches predate 2025-06-18 but older clients still send them; each element is answered on its own line.
    if (value.length === 0) {
      this.#reject(INVALID_REQUEST, "Invalid Request: empty batch", null);
      return;
    }
    for (const element of value) {
      if (this.#closed) return;
      if (Array.isArray(element)) this.#reject(INVALID_REQUEST, "Invalid Request: batches do not nest", null);
      else this.#handleMessage(element);
    }
  }

  #handleMessage(value: unknown): void {
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      this.#reject(INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message", this.#echoableIdOf(value));
      return;
    }
    const id = "id" in message ? message.id : undefined;
    if (id !== undefined && !this.#isEchoable(id)) {
      // Echoing an attacker-sized id would multiply the output; the request is refused instead.
      this.#reject(INVALID_REQUEST, `Invalid Request: id longer than ${this.#limits.maxEchoedIdChars} characters`, null);
      return;
    }
    this.#errorRepliesInRun = 0;
    this.#noticeSent = false;
    if (id !== undefined && "method" in message) this.#outstanding.add(idKey(id));
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(toError(error));
    }
  }

  #isEchoable(id: RequestId): boolean {
    if (typeof id === "string" && id.length > this.#limits.maxEchoedIdChars) return false;
    return JSON.stringify(id).length <= this.#limits.maxEchoedIdChars;
  }

  #echoableIdOf(value: unknown): RequestId | null {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
    const id: unknown = (value as { id?: unknown }).id;
    if (typeof id === "string" || (typeof id === "number" && Number.isFinite(id))) return this.#isEchoable(id) ? id : null;
    return null;
  }

  /** Error reply within the run's budget, then one notice, then silence until a valid message. */
  #reject(code: number, message: string, id: RequestId | null): void {
    log.debug("stdio frame rejected", { code, message });
    if (this.#errorRepliesInRun < this.#limits.maxErrorRepliesPerRun) {
      this.#errorRepliesInRun++;
      this.#writeFrame(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
      return;
    }
    if (this.#noticeSent) return;
    this.#noticeSent = true;
    const text = `${this.#limits.maxErrorRepliesPerRun} invalid frames in a row; further errors are suppressed until a valid message arrives`;
    log.warn(`stdio: ${text}`);
    this.#writeFrame(
      `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "warning", logger: NOTICE_LOGGER, data: text } })}\n`,
    );
  }

  // ---- outbound ----

  #writeFrame(text: string): void {
    if (this.#closed) return;
    try {
      this.#output.write(text, this.#afterWrite);
    } catch (error) {
      this.#onOutputError(error);
      return;
    }
    if (!this.#blocked && this.#output.writableLength > this.#limits.outboundHighWaterBytes) this.#block();
  }

  #block(): void {
    this.#blocked = true;
    if (!this.#pausedInput) {
      this.#pausedInput = true;
      this.#input.pause();
    }
  }

  readonly #afterWrite = (error?: Error | null): void => {
    if (error) {
      this.#onOutputError(error);
      return;
    }
    // 'drain' only follows a write() that returned false; a stream whose own high-water mark
    // is above ours never emits it, so unblock from the write callback in that case.
    if (this.#blocked && !this.#output.writableNeedDrain && this.#output.writableLength <= this.#limits.outboundHighWaterBytes) {
      this.#unblock();
    }
  };

  readonly #onDrain = (): void => {
    if (this.#blocked && this.#output.writableLength <= this.#limits.outboundHighWaterBytes) this.#unblock();
  };

  #unblock(): void {
    if (this.#closed) return;
    this.#blocked = false;
    for (const waiter of this.#sendWaiters.splice(0)) waiter.resolve();
    this.#scan();
    if (this.#blocked || this.#closed) return;
    if (this.#pausedInput) {
      this.#pausedInput = false;
      if (!this.#inputEnded) this.#input.resume();
    }
  }

  readonly #onOutputError = (error: unknown): void => {
    if (this.#closed) return;
    if (isPeerGone(error)) log.debug("stdout closed by the peer");
    else this.onerror?.(toError(error));
    void this.close();
  };

  readonly #onOutputClose = (): void => {
    void this.close();
  };

  // ---- shutdown after stdin ends ----

  #noteAnswered(message: JSONRPCMessage): void {
    if (!("id" in message) || message.id === undefined || "method" in message) return;
    this.#outstanding.delete(idKey(message.id));
    if (this.#inputConsumed && this.#outstanding.size === 0) void this.close();
  }

  /** stdin is done: answer what was already asked (within the grace period), then close. */
  #closeWhenAnswered(): void {
    if (this.#outstanding.size === 0) {
      void this.close();
      return;
    }
    this.#graceTimer = setTimeout(() => {
      log.warn("stdin closed with requests still unanswered; closing the stdio transport", { unanswered: this.#outstanding.size });
      void this.close();
    }, this.#inputEndGraceMs);
    this.#graceTimer.unref?.();
  }
}
