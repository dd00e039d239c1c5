/** The initialize answer carries the generated instructions: the reading tools first, `run` as structural search. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { INSTRUCTIONS } from "../../src/server/instructions.ts";
import { realServerFactory } from "../support/real-server.ts";

let client: Client;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const factory = await realServerFactory();
  cleanup = factory.cleanup;
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await factory.createServer("instructions").connect(serverSide);
  client = new Client({ name: "instructions", version: "0" });
  await client.connect(clientSide);
});
afterAll(async () => {
  await client.close();
  await cleanup();
});

test("a client's initialize answer leads the model to digest, map, show, search and callers", () => {
  const instructions = client.getInstructions() ?? "";
  expect(instructions).toBe(INSTRUCTIONS);
  expect(instructions).toContain(
    "digest a folder (`digest`) → map a file (`map`) → show a symbol (`show`) → search a concept (`search`) → callers before changing a signature (`callers`)",
  );
  expect(instructions).toContain("`run` is structural search and rewrite");
});
