/** The guarded write path through the built CLI under Node, over real stdio. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sha256Hex } from "../../src/helpers/hash.ts";
import { connectStdio, errorOf, isolatedEnv, runCli, tempRoot } from "../support/cli.ts";

let env: Record<string, string>;
let cleanup: () => Promise<void>;
let root: string;

beforeAll(async () => {
  ({ env, cleanup } = await isolatedEnv());
  root = await tempRoot();
  await writeFile(join(root, "app.ts"), "export function greet(name: string) {\r\n\treturn 'hi ' + name;\r\n}\r\n");
});
afterAll(async () => cleanup());

type Structured = { batchId: string | null; committed: boolean; files: Record<string, { sha256: string | null; preview?: { previewReceipt: string; diff: string } }> };

describe("guarded writes end to end", () => {
  test("preview, commit by receipt, undo; journal listed by the CLI", async () => {
    const { client, transport } = await connectStdio(["mcp", root], env);
    try {
      const tools = (await client.listTools()).tools;
      const patch = tools.find((t) => t.name === "file_patch");
      expect(patch?.annotations?.readOnlyHint).toBe(false);
      expect(patch?.annotations?.destructiveHint).toBe(true);

      const original = await readFile(join(root, "app.ts"));
      const sha = sha256Hex(original);
      const previewed = await client.callTool({
        name: "file_patch",
        arguments: {
          files: {
            "app.ts": {
              expectedSha256: sha,
              patchStrategy: "aider_block",
              aiderBlocks: [{ search: "\treturn 'hi ' + name;\n", replace: "\treturn `hello ${name}`;\n" }],
              preview: true,
            },
          },
        },
      });
      expect(previewed.isError).toBeFalsy();
      const preview = (previewed.structuredContent as Structured).files["app.ts"]?.preview;
      expect(preview?.diff).toContain("+\treturn `hello ${name}`;");
      expect(await readFile(join(root, "app.ts"))).toEqual(original);

      const committed = await client.callTool({ name: "file_patch", arguments: { files: { "app.ts": { previewReceipt: preview?.previewReceipt } } } });
      expect(committed.isError).toBeFalsy();
      const batch = committed.structuredContent as Structured;
      expect(batch.committed).toBe(true);
      expect(await readFile(join(root, "app.ts"), "utf8")).toBe("export function greet(name: string) {\r\n\treturn `hello ${name}`;\r\n}\r\n");

      const listed = await runCli(["journal", "list", "--json"], env);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain(batch.batchId as string);

      const stale = errorOf(await client.callTool({ name: "file_write", arguments: { files: { "app.ts": { content: "x", expectedSha256: sha } } } }));
      expect(stale.code).toBe("stale_hash");
      expect(stale.retryable).toBe(true);

      const undone = await client.callTool({ name: "file_undo", arguments: {} });
      expect(undone.isError).toBeFalsy();
      expect(await readFile(join(root, "app.ts"))).toEqual(original);
    } finally {
      await transport.close();
    }
  });
});
