/** MCP progress: a tool's context.progress becomes paced notifications/progress when the client asked for it. */
import { describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { z } from "zod";
import { createMcpServer } from "../../src/server/mcp.ts";
import { defineTool, READ_ONLY } from "../../src/tools/contract.ts";
import { makeContext, makeTempDir } from "../support/context.ts";

const steps = defineTool({
  name: "steps",
  title: "Steps",
  description: "Reports progress in three steps (test tool), and whether progress reporting was offered.",
  input: z.strictObject({}),
  output: z.object({ offered: z.boolean().describe("Whether context.progress was set.") }),
  annotations: READ_ONLY,
  errors: [],
  handler: async (_args, context) => {
    for (let done = 1; done <= 3; done++) context.progress?.(done, 3);
    return { offered: context.progress !== undefined };
  },
  render: (result) => `offered=${result.offered}`,
});

async function connect() {
  const temp = await makeTempDir();
  const { workspace, config } = await makeContext([temp.dir]);
  const server = createMcpServer({ snapshot: async () => config, workspaceFor: async () => workspace, tools: [steps] }, "progress-test");
  const client = new Client({ name: "test", version: "1" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await temp.cleanup();
    },
  };
}

describe("progress notifications", () => {
  test("are sent for a call with a progress token", async () => {
    const { client, close } = await connect();
    try {
      const seen: Array<{ progress: number; total?: number }> = [];
      const result = await client.callTool({ name: "steps", arguments: {} }, undefined, {
        onprogress: (progress) => seen.push({ progress: progress.progress, ...(progress.total === undefined ? {} : { total: progress.total }) }),
      });
      expect(result.structuredContent).toEqual({ offered: true });
      // Three counts in one instant: the first at once, then the last at 100%, handed to the transport before the answer.
      // (A client drops progress that arrives after the answer.)
      expect(seen).toEqual([{ progress: 1, total: 3 }, { progress: 3, total: 3 }]);
    } finally {
      await close();
    }
  });

  test("are not offered without a progress token", async () => {
    const { client, close } = await connect();
    try {
      const result = await client.callTool({ name: "steps", arguments: {} });
      expect(result.structuredContent).toEqual({ offered: false });
    } finally {
      await close();
    }
  });
});
