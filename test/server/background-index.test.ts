/** The index of a session's roots starts building when the client has initialized, unless [index].background is off. */
import { describe, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { DEFAULT_CONFIG } from "../../src/config/schema.ts";
import { createMcpServer } from "../../src/server/mcp.ts";
import { createToolServices } from "../../src/tools/index.ts";
import { makeContext, makeTempDir } from "../support/context.ts";

async function session(background: boolean) {
  const temp = await makeTempDir();
  for (let i = 0; i < 3; i++) await writeFile(path.join(temp.dir, `f${i}.ts`), `export function f${i}() {}\n`);
  const base = await makeContext([temp.dir]);
  const config = { ...base.config, config: { ...base.config.config, index: { ...DEFAULT_CONFIG.index, persist: false, background } } };
  const services = createToolServices();
  const warmed: string[][] = [];
  const warm = services.warm.bind(services);
  services.warm = (context) => {
    warmed.push(context.workspace.roots.map((root) => root.real));
    warm(context);
  };
  const server = createMcpServer({ snapshot: async () => config, workspaceFor: async () => base.workspace, services }, "background-test");
  const client = new Client({ name: "test", version: "1" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    warmed,
    index: () => services.indexes.forContext({ workspace: base.workspace, config }),
    root: temp.dir,
    close: async () => {
      await client.close();
      services.indexes.closeAll();
      await temp.cleanup();
    },
  };
}

describe("background indexing", () => {
  test("starts for the session's roots once the client has initialized, before any call", async () => {
    const s = await session(true);
    try {
      for (let waited = 0; s.warmed.length === 0 && waited < 2_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(s.warmed).toHaveLength(1);
      const index = s.index();
      for (let waited = 0; index.files().length < 3 && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(index.files().map((file) => file.relative).sort()).toEqual(["f0.ts", "f1.ts", "f2.ts"]);
    } finally {
      await s.close();
    }
  });

  test("does not start when [index].background is off", async () => {
    const s = await session(false);
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(s.warmed).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
