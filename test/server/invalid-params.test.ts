/** A malformed tools/call request is invalid params (-32602), not an internal error (-32603). */
import { describe, expect, test } from "bun:test";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer } from "../../src/server/mcp.ts";
import { makeContext, makeTempDir } from "../support/context.ts";

async function rawSession() {
  const temp = await makeTempDir();
  const { workspace, config } = await makeContext([temp.dir]);
  const server = createMcpServer({ snapshot: async () => config, workspaceFor: async () => workspace }, "invalid-params-test");
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const received: JSONRPCMessage[] = [];
  clientSide.onmessage = (message) => received.push(message);
  await server.connect(serverSide);
  await clientSide.start();
  const answerTo = async (id: number, timeoutMs = 5_000): Promise<Record<string, unknown>> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = received.find((message) => "id" in message && message.id === id);
      if (found) return found as unknown as Record<string, unknown>;
      if (Date.now() > deadline) throw new Error(`no answer to ${id}: ${JSON.stringify(received)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  await clientSide.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
  await answerTo(0);
  await clientSide.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    send: (message: JSONRPCMessage) => clientSide.send(message),
    answerTo,
    close: async () => {
      await server.close();
      await temp.cleanup();
    },
  };
}

describe("tools/call with malformed params", () => {
  for (
    const [label, params] of [
      ["arguments: null", { name: "file_read", arguments: null }],
      ["arguments: a string", { name: "file_read", arguments: "x" }],
      ["no name", { arguments: {} }],
    ] as const
  ) {
    test(`${label} answers -32602`, async () => {
      const session = await rawSession();
      try {
        await session.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: params as Record<string, unknown> });
        const answer = await session.answerTo(1);
        expect((answer.error as { code: number }).code).toBe(-32602);
        // The server still answers well-formed calls afterwards.
        await session.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "config_status", arguments: {} } });
        expect((await session.answerTo(2)).result).toBeDefined();
      } finally {
        await session.close();
      }
    });
  }
});
