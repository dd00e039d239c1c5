import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { realServerFactory } from "../support/real-server.ts";

let client: Client;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const factory = await realServerFactory();
  cleanup = factory.cleanup;
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await factory.createServer("schemas").connect(serverSide);
  client = new Client({ name: "schemas", version: "0" });
  await client.connect(clientSide);
});
afterAll(async () => {
  await client.close();
  await cleanup();
});

function hasKey(value: unknown, key: string): boolean {
  if (Array.isArray(value)) return value.some((v) => hasKey(v, key));
  if (value === null || typeof value !== "object") return false;
  return Object.entries(value).some(([k, v]) => (k === key && typeof v === "string") || hasKey(v, key));
}

describe("published tool schemas", () => {
  test("input schemas document every parameter; output schemas carry no prose", async () => {
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(6);
    for (const tool of tools) {
      expect(tool.outputSchema).toBeDefined();
      expect(hasKey(tool.outputSchema, "description")).toBe(false);
      if (Object.keys(tool.inputSchema.properties ?? {}).length > 0) expect(hasKey(tool.inputSchema, "description")).toBe(true);
    }
  });

  test("structured results still validate against the published output schemas", async () => {
    const result = await client.callTool({ name: "config_status", arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toBeDefined();
  });
});
