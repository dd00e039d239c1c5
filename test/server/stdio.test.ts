import { describe, expect, test } from "bun:test";
import { once } from "node:events";
import { PassThrough, Writable } from "node:stream";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { JSONRPCNotificationSchema, ListToolsRequestSchema, LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { LIMITS } from "../../src/core/limits.ts";
import { type StdioLimits, StdioTransport } from "../../src/server/stdio.ts";
import { createEchoServer } from "../support/echo-mcp-server.ts";

type Frame = {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

const INIT = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } },
};

const line = (value: unknown): string => `${JSON.stringify(value)}\n`;

/** A real SDK server with a tools/list handler; `gate` lets a test hold a response back. */
function makeServer(gate?: () => Promise<void>) {
  const counts = { toolsList: 0, initialized: 0, closed: 0 };
  const server = new Server({ name: "stdio-test", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    counts.toolsList++;
    if (gate) await gate();
    return { tools: [{ name: "echo", inputSchema: { type: "object" as const } }] };
  });
  server.oninitialized = () => void counts.initialized++;
  server.onclose = () => void counts.closed++;
  return { server, counts };
}

/** Collects newline-framed output; keeps raw lines so tests can check one JSON object per line. */
class FrameReader {
  readonly lines: string[] = [];
  readonly frames: Frame[] = [];
  #partial = "";
  #waiters: Array<() => void> = [];

  constructor(private readonly output: PassThrough) {}

  start(): this {
    this.output.on("data", (chunk: Buffer) => {
      this.#partial += chunk.toString("utf8");
      let newline = this.#partial.indexOf("\n");
      while (newline !== -1) {
        const text = this.#partial.slice(0, newline);
        this.#partial = this.#partial.slice(newline + 1);
        this.lines.push(text);
        this.frames.push(JSON.parse(text) as Frame);
        newline = this.#partial.indexOf("\n");
      }
      for (const wake of this.#waiters.splice(0)) wake();
    });
    return this;
  }

  async until(predicate: (frames: Frame[]) => boolean, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.frames)) {
      if (Date.now() > deadline) throw new Error(`timed out; got ${JSON.stringify(this.frames).slice(0, 1500)}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  /** Frames up to and including the reply to `id`. */
  async reply(id: string | number): Promise<Frame> {
    await this.until((frames) => frames.some((f) => f.id === id && (f.result !== undefined || f.error !== undefined)));
    return this.frames.find((f) => f.id === id && (f.result !== undefined || f.error !== undefined)) as Frame;
  }
}

async function setup(options: { limits?: Partial<StdioLimits>; outputHighWaterMark?: number; gate?: () => Promise<void>; inputEndGraceMs?: number } = {}) {
  const input = new PassThrough();
  const output = new PassThrough(options.outputHighWaterMark === undefined ? {} : { highWaterMark: options.outputHighWaterMark });
  const { server, counts } = makeServer(options.gate);
  const transport = new StdioTransport({
    input,
    output,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.inputEndGraceMs === undefined ? {} : { inputEndGraceMs: options.inputEndGraceMs }),
  });
  await server.connect(transport);
  return { input, output, server, counts, transport, reader: new FrameReader(output) };
}

const errorCode = (frame: Frame | undefined) => frame?.error?.code;

describe("StdioTransport framing", () => {
  test("initialize and tools/list round trip, with \\r\\n and blank lines tolerated", async () => {
    const { input, reader, transport, counts } = await setup();
    reader.start();
    input.write(`\n   \r\n${JSON.stringify(INIT)}\r\n\n`);
    const init = await reader.reply(0);
    expect((init.result as { serverInfo: { name: string } }).serverInfo.name).toBe("stdio-test");
    input.write(line({ jsonrpc: "2.0", method: "notifications/initialized" }));
    // Split a frame across writes to exercise incremental framing.
    const list = JSON.stringify({ jsonrpc: "2.0", id: "list-1", method: "tools/list" });
    input.write(list.slice(0, 10));
    input.write(`${list.slice(10)}\n`);
    const tools = await reader.reply("list-1");
    expect((tools.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(["echo"]);
    expect(counts.initialized).toBe(1);
    // Blank lines earn no replies.
    expect(reader.frames.length).toBe(2);
    await transport.close();
  });

  test("batch of [request, notification, request] gets exactly two responses, each on its own line", async () => {
    const { input, reader, transport, counts } = await setup();
    reader.start();
    // 2025-06-18 dropped batching; batches are answered anyway.
    input.write(line(INIT));
    await reader.reply(0);
    input.write(
      line([
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "ping" },
      ]),
    );
    // A sentinel after the batch proves nothing else was written for it.
    input.write(line({ jsonrpc: "2.0", id: "sentinel", method: "ping" }));
    await reader.reply("sentinel");
    const batchFrames = reader.frames.slice(1, -1);
    expect(batchFrames.map((f) => f.id).sort()).toEqual([1, 2]);
    for (const text of reader.lines) expect(Array.isArray(JSON.parse(text))).toBe(false);
    expect(counts.initialized).toBe(1);
    await transport.close();
  });

  test("invalid batch elements get their own error replies while valid ones are dispatched", async () => {
    const { input, reader, transport } = await setup();
    reader.start();
    input.write(line([{ jsonrpc: "2.0", id: 1, method: "ping" }, { id: "bad", method: 5 }, 42, [{ jsonrpc: "2.0", id: 3, method: "ping" }]]));
    input.write(line({ jsonrpc: "2.0", id: "sentinel", method: "ping" }));
    await reader.reply("sentinel");
    const before = reader.frames.slice(0, -1);
    expect(before.length).toBe(4);
    expect(before.find((f) => f.id === 1)?.result).toEqual({});
    expect(errorCode(before.find((f) => f.id === "bad"))).toBe(-32600);
    expect(before.filter((f) => f.id === null).map(errorCode)).toEqual([-32600, -32600]);
    await transport.close();
  });

  test("an empty batch is -32600 with id null", async () => {
    const { input, reader, transport } = await setup();
    reader.start();
    input.write("[]\n");
    input.write(line({ jsonrpc: "2.0", id: 5, method: "ping" }));
    await reader.reply(5);
    expect(reader.frames[0]).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    await transport.close();
  });

  test("invalid JSON is -32700 with id null and the stream continues", async () => {
    const { input, reader, transport } = await setup();
    reader.start();
    input.write("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\n");
    input.write(Buffer.concat([Buffer.from("{\"jsonrpc\":\"2.0\",\"id\":\""), Buffer.from([0xff, 0xfe]), Buffer.from("\",\"method\":\"ping\"}\n")]));
    input.write(line({ jsonrpc: "2.0", id: 9, method: "ping" }));
    const reply = await reader.reply(9);
    expect(reply.result).toEqual({});
    expect(reader.frames.slice(0, 2)).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: expect.any(String) } },
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: expect.stringContaining("UTF-8") } },
    ]);
    await transport.close();
  });

  test("valid JSON that is not JSON-RPC is -32600, echoing a usable id", async () => {
    const { input, reader, transport, counts } = await setup();
    reader.start();
    input.write(line({ id: "abc", method: "tools/list" }));
    input.write(line({ jsonrpc: "2.0", id: 17, method: 5 }));
    input.write(line({ jsonrpc: "2.0", id: { nested: true }, method: "tools/list" }));
    input.write(line("just a string"));
    input.write(line({ jsonrpc: "2.0", id: "end", method: "ping" }));
    await reader.reply("end");
    expect(reader.frames.slice(0, 4).map((f) => [f.id, errorCode(f)])).toEqual([
      ["abc", -32600],
      [17, -32600],
      [null, -32600],
      [null, -32600],
    ]);
    expect(counts.toolsList).toBe(0);
    await transport.close();
  });

  test("an id longer than maxEchoedIdChars is never echoed and the request is not dispatched", async () => {
    const { input, reader, transport, counts } = await setup();
    reader.start();
    const longId = "x".repeat(LIMITS.stdio.maxEchoedIdChars);
    input.write(line({ jsonrpc: "2.0", id: longId, method: "tools/list" }));
    input.write(line({ jsonrpc: "2.0", id: longId, method: 5 }));
    input.write(line({ jsonrpc: "2.0", id: 123456789012345, method: "tools/list" }));
    const numeric = await reader.reply(123456789012345);
    expect(numeric.result?.tools).toBeDefined();
    expect(reader.frames.length).toBe(3);
    for (const frame of reader.frames.slice(0, 2)) {
      expect(frame.id).toBeNull();
      expect(errorCode(frame)).toBe(-32600);
    }
    expect(reader.lines.some((text) => text.includes(longId))).toBe(false);
    expect(counts.toolsList).toBe(1);
    await transport.close();
  });

  test("an 11 MiB frame is discarded with bounded buffering, answered with -32600, and the next frame is answered", async () => {
    const { input, reader, transport } = await setup();
    reader.start();
    let peakBuffered = 0;
    // Registered after the transport's listener, so it observes the state after each chunk is consumed.
    input.on("data", () => {
      peakBuffered = Math.max(peakBuffered, transport.bufferedFrameBytes);
    });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const total = 11 * 1024 * 1024;
    input.write("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"pad\":\"");
    for (let written = 0; written < total; written += chunk.length) {
      if (!input.write(chunk)) await once(input, "drain");
    }
    input.write("\"}}\n");
    input.write(line({ jsonrpc: "2.0", id: "after", method: "ping" }));
    await reader.reply("after");
    expect(reader.frames[0]).toMatchObject({ id: null, error: { code: -32600 } });
    expect(reader.frames.length).toBe(2);
    expect(peakBuffered).toBeGreaterThan(LIMITS.stdio.maxFrameBytes / 2);
    expect(peakBuffered).toBeLessThanOrEqual(LIMITS.stdio.maxFrameBytes + 1);
    expect(transport.bufferedFrameBytes).toBe(0);
    await transport.close();
  });

  test("a frame of exactly maxFrameBytes (plus \\r) is accepted and one byte more is rejected", async () => {
    const maxFrameBytes = 200;
    const { input, reader, transport } = await setup({ limits: { maxFrameBytes } });
    reader.start();
    const padded = (id: number, size: number) => {
      const base = JSON.stringify({ jsonrpc: "2.0", id, method: "ping", params: { pad: "" } });
      return JSON.stringify({ jsonrpc: "2.0", id, method: "ping", params: { pad: "p".repeat(size - base.length) } });
    };
    expect(Buffer.byteLength(padded(1, maxFrameBytes))).toBe(maxFrameBytes);
    input.write(`${padded(1, maxFrameBytes)}\r\n`);
    input.write(`${padded(2, maxFrameBytes + 1)}\n`);
    input.write(line({ jsonrpc: "2.0", id: 3, method: "ping" }));
    await reader.reply(3);
    // The rejection is written synchronously, the responses once the server answers.
    expect(reader.frames.map((f) => [f.id, errorCode(f)])).toEqual([
      [null, -32600],
      [1, undefined],
      [3, undefined],
    ]);
    await transport.close();
  });
});

describe("StdioTransport floods and backpressure", () => {
  test("200,000 malformed lines with an unread stdout: bounded replies, paused input, then recovery and a fresh budget", async () => {
    const outboundHighWaterBytes = 4096;
    const { input, output, reader, transport } = await setup({ limits: { outboundHighWaterBytes }, outputHighWaterMark: 1024 });
    const maxReplies = LIMITS.stdio.maxErrorRepliesPerRun;

    const paused = once(input, "pause");
    const junk = Buffer.from("this is not json\n".repeat(10_000));
    for (let i = 0; i < 20; i++) input.write(junk);
    input.write(line({ jsonrpc: "2.0", id: "after-flood-1", method: "ping" }));
    await paused;

    // Nobody reads stdout: reading stdin stopped, and the queue stays near the high-water mark.
    expect(transport.outboundBlocked).toBe(true);
    expect(input.isPaused()).toBe(true);
    expect(input.readableLength).toBeGreaterThan(0);
    expect(output.writableLength).toBeGreaterThan(outboundHighWaterBytes);
    expect(output.writableLength).toBeLessThan(outboundHighWaterBytes + 512);
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(input.isPaused()).toBe(true);
    expect(output.writableLength).toBeLessThan(outboundHighWaterBytes + 512);

    reader.start();
    const first = await reader.reply("after-flood-1");
    expect(first.result).toEqual({});
    expect(transport.outboundBlocked).toBe(false);
    const firstRun = reader.frames.slice(0, -1);
    expect(firstRun.filter((f) => errorCode(f) === -32700).length).toBe(maxReplies);
    const notices = firstRun.filter((f) => f.method !== undefined);
    expect(notices.length).toBe(1);
    expect(firstRun.length).toBe(maxReplies + 1);
    // The notice is a well-formed MCP logging notification.
    expect(JSONRPCNotificationSchema.safeParse(notices[0]).success).toBe(true);
    expect(LoggingMessageNotificationSchema.safeParse(notices[0]).success).toBe(true);
    expect(notices[0]?.params).toMatchObject({ level: "warning" });

    // The valid message ended the run: a second flood gets a fresh budget.
    const seen = reader.frames.length;
    input.write(Buffer.from("{oops\n".repeat(1_000)));
    input.write(line({ jsonrpc: "2.0", id: "after-flood-2", method: "ping" }));
    await reader.reply("after-flood-2");
    const secondRun = reader.frames.slice(seen, -1);
    expect(secondRun.filter((f) => errorCode(f) === -32700).length).toBe(maxReplies);
    expect(secondRun.filter((f) => f.method === "notifications/message").length).toBe(1);
    expect(secondRun.length).toBe(maxReplies + 1);
    await transport.close();
  }, 30_000);

  test("send() waits while stdout is over the high-water mark and resolves once it drains", async () => {
    const { output, transport, reader } = await setup({ limits: { outboundHighWaterBytes: 1024 }, outputHighWaterMark: 256 });
    const big = { jsonrpc: "2.0" as const, method: "notifications/message", params: { level: "info" as const, data: "d".repeat(4096) } };
    let settled = false;
    const sent = transport.send(big).then(() => void (settled = true));
    await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    expect(transport.outboundBlocked).toBe(true);
    expect(output.writableLength).toBeGreaterThan(1024);
    reader.start();
    await sent;
    expect(settled).toBe(true);
    await reader.until((frames) => frames.length === 1);
    await transport.close();
  });
});

describe("StdioTransport lifecycle", () => {
  test("an output EPIPE closes the transport once without throwing", async () => {
    const input = new PassThrough();
    const output = new Writable({
      write(_chunk, _encoding, callback) {
        callback(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
      },
    });
    const { server, counts } = makeServer();
    const transport = new StdioTransport({ input, output });
    const errors: Error[] = [];
    server.onerror = (error) => void errors.push(error);
    const closed = new Promise<void>((resolve) => {
      server.onclose = () => {
        counts.closed++;
        resolve();
      };
    });
    await server.connect(transport);
    input.write(line({ jsonrpc: "2.0", id: 1, method: "ping" }));
    await closed;
    // Let the stream's trailing 'error'/'close' events fire.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    output.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    await transport.close();
    expect(counts.closed).toBe(1);
    expect(transport.closed).toBe(true);
    expect(input.listeners("data").length).toBe(0);
    expect(errors.filter((e) => e.message.includes("EPIPE") && !e.message.includes("Failed to send"))).toEqual([]);
    await expect(transport.send({ jsonrpc: "2.0", method: "notifications/initialized" })).rejects.toThrow("closed");
  });

  test("a destroyed stdout closes the transport once", async () => {
    const { output, transport, counts, input } = await setup();
    output.destroy();
    await once(output, "close");
    await new Promise((resolve) => setImmediate(resolve));
    expect(counts.closed).toBe(1);
    expect(transport.closed).toBe(true);
    expect(input.listeners("data").length).toBe(0);
  });

  test("stdin ending closes the transport; close() is idempotent", async () => {
    const { input, transport, counts } = await setup();
    const closed = new Promise<void>((resolve) => (transport.onclose = chain(transport.onclose, resolve)));
    input.end();
    await closed;
    await transport.close();
    await transport.close();
    expect(counts.closed).toBe(1);
  });

  test("after stdin ends, requests already dispatched are still answered before closing", async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const { input, reader, transport, counts } = await setup({ gate: () => released });
    reader.start();
    // The last frame has no trailing newline and still counts.
    input.end(JSON.stringify({ jsonrpc: "2.0", id: "slow", method: "tools/list" }));
    await new Promise((resolve) => setImmediate(resolve));
    await reader.until(() => counts.toolsList === 1);
    expect(counts.closed).toBe(0);
    release();
    const reply = await reader.reply("slow");
    expect(reply.result?.tools).toBeDefined();
    await reader.until(() => counts.closed === 1);
    expect(transport.closed).toBe(true);
  });

  test("after stdin ends, an unanswered request no longer holds the transport open past the grace period", async () => {
    const { input, transport, counts } = await setup({ gate: () => new Promise<void>(() => {}), inputEndGraceMs: 50 });
    const closed = new Promise<void>((resolve) => (transport.onclose = chain(transport.onclose, resolve)));
    input.end(line({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
    await closed;
    expect(counts.toolsList).toBe(1);
    expect(counts.closed).toBe(1);
  });

  test("Server.connect starts the transport on the given streams, once", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const { server } = makeServer();
    const transport = new StdioTransport({ input, output });
    await server.connect(transport);
    const reader = new FrameReader(output).start();
    input.write(line(INIT));
    const init = await reader.reply(0);
    expect(init.result?.protocolVersion).toBe("2025-06-18");
    await transport.close();
    await expect(transport.start()).rejects.toThrow("already started");
  });
});

function chain(first: (() => void) | undefined, then: () => void): () => void {
  return () => {
    first?.();
    then();
  };
}

describe("the 2026-07-28 wire over the hardened transport", () => {
  const ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "abuse", version: "1" },
  };
  const modern = (id: string | number, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: "2.0", id, method, params: { ...params, _meta: ENVELOPE } });

  /** The transport driven by the SDK's era-pinning stdio entry, serving the echo server to whichever era opens. */
  async function setupModern() {
    const input = new PassThrough();
    const output = new PassThrough();
    const transport = new StdioTransport({ input, output, inputEndGraceMs: 2_000 });
    const eras: string[] = [];
    const connection = serveStdio(({ era }) => {
      eras.push(era);
      return createEchoServer(`stdio-${era}`);
    }, { transport });
    const reader = new FrameReader(output).start();
    return { input, reader, transport, eras, close: () => connection.close() };
  }

  test("a flood of malformed lines before the first stateless request: bounded replies, then the request is served", async () => {
    const { input, reader, eras, close } = await setupModern();
    input.write(Buffer.from("not json at all\n".repeat(5_000)));
    input.write(line(modern("after-flood", "tools/call", { name: "echo", arguments: { text: "still here" } })));
    const answer = await reader.reply("after-flood");
    expect(answer.result?.content).toEqual([{ type: "text", text: "stdio-modern:still here" }]);
    expect(answer.result?.resultType).toBe("complete");
    expect(reader.frames.filter((f) => errorCode(f) === -32700).length).toBe(LIMITS.stdio.maxErrorRepliesPerRun);
    expect(eras).toEqual(["modern"]);
    await close();
  }, 30_000);

  test("an oversized frame is refused and the stateless request after it is answered", async () => {
    const { input, reader, close } = await setupModern();
    input.write(`${JSON.stringify(modern(1, "tools/list")).slice(0, -1)},"pad":"${"a".repeat(LIMITS.stdio.maxFrameBytes)}"}\n`);
    input.write(line(modern("after", "tools/list")));
    const answer = await reader.reply("after");
    expect(reader.frames[0]).toMatchObject({ id: null, error: { code: -32600 } });
    expect((answer.result?.tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual(["echo"]);
    await close();
  }, 30_000);

  test("a batch of stateless requests is answered one line per request; a bad element gets its own error", async () => {
    const { input, reader, close } = await setupModern();
    input.write(line([modern("a", "tools/list"), { jsonrpc: "2.0", id: "b" }, modern("c", "tools/call", { name: "echo", arguments: { text: "x" } })]));
    const [a, b, c] = [await reader.reply("a"), await reader.reply("b"), await reader.reply("c")];
    expect(a.result?.tools).toBeDefined();
    expect(b.error?.code).toBe(-32600);
    expect(c.result?.content).toEqual([{ type: "text", text: "stdio-modern:x" }]);
    for (const text of reader.lines) expect(() => JSON.parse(text)).not.toThrow();
    await close();
  }, 30_000);

  test("once the connection is stateless, a late initialize is refused naming the revisions served, and ping is gone", async () => {
    const { input, reader, close } = await setupModern();
    input.write(line(modern(1, "tools/list")));
    await reader.reply(1);
    input.write(line({ ...INIT, id: 2 }));
    input.write(line(modern(3, "ping")));
    const refused = await reader.reply(2);
    expect(refused.error?.code).toBe(-32022);
    expect(JSON.stringify(refused.error)).toContain("2026-07-28");
    expect((await reader.reply(3)).error?.code).toBe(-32601);
    await close();
  }, 30_000);
});
