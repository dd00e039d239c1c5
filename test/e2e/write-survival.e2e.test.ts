/**
 * A refused write batch is answered and the server lives on: the built CLI under Node, over stdio.
 * Regression tests for issue #14 defects 1 (a refusal that ended the process), 2 (a write that
 * was never answered) and 8 (a syntax guard that passed what it could not parse).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256Hex } from "../../src/helpers/hash.ts";
import { connectStdio, errorOf, isolatedEnv, tempRoot } from "../support/cli.ts";

let env: Record<string, string>;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ env, cleanup } = await isolatedEnv());
});
afterAll(async () => cleanup());

/** A call that takes longer than this is a hang. */
const CALL_TIMEOUT_MS = 20_000;
/** How long a dying process gets to die after its answer (the rejection came up to seconds later). */
const AFTERLIFE_MS = 2_500;

async function withServer(root: string, work: (client: Client, transport: StdioClientTransport) => Promise<void>, cwd?: string): Promise<void> {
  const { client, transport } = await connectStdio(["mcp", root], env, cwd);
  try {
    await work(client, transport);
  } finally {
    await transport.close();
  }
}

function call(client: Client, name: string, args: Record<string, unknown>) {
  return client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS });
}

function alive(pid: number | null): boolean {
  if (pid === null) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The process is still running a while later and answers a real tool call. */
async function expectAlive(client: Client, transport: StdioClientTransport, root: string): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, AFTERLIFE_MS));
  expect(alive(transport.pid)).toBe(true);
  const probe = await call(client, "file_write", { files: { "probe.txt": { content: "probe\n", expectedSha256: null } } });
  expect(probe.isError).toBeFalsy();
  expect(await readFile(join(root, "probe.txt"), "utf8")).toBe("probe\n");
}

async function hashOf(file: string): Promise<string> {
  return sha256Hex(await readFile(file));
}

describe("a refused batch leaves the server alive", () => {
  test("(a) an entry refused up front beside one that adds syntax errors", async () => {
    const root = await tempRoot();
    await writeFile(join(root, "e.rs"), "fn main() {}\n");
    await withServer(root, async (client, transport) => {
      const answer = await call(client, "file_write", {
        files: { "../x.txt": { content: "x" }, "e.rs": { content: "line a\nline b\n", expectedSha256: await hashOf(join(root, "e.rs")) } },
      });
      expect(errorOf(answer).code).not.toBe("internal_error");
      expect(await readFile(join(root, "e.rs"), "utf8")).toBe("fn main() {}\n");
      // The same with a stale hash up front.
      const stale = await call(client, "file_write", {
        files: { "e.rs": { content: "line a\nline b\n", expectedSha256: await hashOf(join(root, "e.rs")) }, "f.rs": { content: "x", expectedSha256: "0".repeat(64) } },
      });
      expect(errorOf(stale).code).not.toBe("internal_error");
      await expectAlive(client, transport, root);
    });
  }, 60_000);

  test("(b) a valid a.ts beside invalid JSON and YAML", async () => {
    const root = await tempRoot();
    await writeFile(join(root, "a.ts"), "export const a = 0;\n");
    await writeFile(join(root, "b.json"), "{ \"b\": 0 }\n");
    await writeFile(join(root, "c.yaml"), "c: 0\n");
    await withServer(root, async (client, transport) => {
      // An edit first: the next edit of a.ts can format before its parse ends.
      const first = await call(client, "file_write", {
        files: { "a.ts": { content: "export const a = 0;\n\nexport const b = 0;\n", expectedSha256: await hashOf(join(root, "a.ts")) } },
      });
      expect(first.isError).toBeFalsy();
      for (const [key, content] of [["b.json", "{ \"b\": [1,\n"], ["c.yaml", "c: [1,\n  d: }\n"]] as const) {
        const answer = await call(client, "file_write", {
          files: {
            "a.ts": { content: "export const a = 1;\n\nexport const b = 0;\n", expectedSha256: await hashOf(join(root, "a.ts")) },
            [key]: { content, expectedSha256: await hashOf(join(root, key)) },
          },
        });
        expect(errorOf(answer).code).toBe("syntax_regression");
        expect(await readFile(join(root, "a.ts"), "utf8")).toBe("export const a = 0;\n\nexport const b = 0;\n");
      }
      await expectAlive(client, transport, root);
    });
  }, 60_000);
});

describe("a write that adds syntax errors is answered", () => {
  test("after an edit of a formatter-clean file", async () => {
    const root = await tempRoot();
    await writeFile(join(root, "c2.ts"), "export const c2 = 0;\n");
    await withServer(root, async (client, transport) => {
      const first = await call(client, "file_write", { files: { "c2.ts": { content: "export const c2 = 1;\n", expectedSha256: await hashOf(join(root, "c2.ts")) } } });
      expect(first.isError).toBeFalsy();
      const broken = await call(client, "file_write", { files: { "c2.ts": { content: "export const = ;", expectedSha256: await hashOf(join(root, "c2.ts")) } } });
      expect(errorOf(broken).code).toBe("syntax_regression");
      expect(await readFile(join(root, "c2.ts"), "utf8")).toBe("export const c2 = 1;\n");
      await expectAlive(client, transport, root);
    });
  }, 60_000);

  test("write, undo, undo, then a two-file write whose first file fails the guard", async () => {
    const root = await tempRoot();
    await writeFile(join(root, "u1.ts"), "export const u1 = 0;\n");
    await writeFile(join(root, "u2.ts"), "export const u2 = 0;\n");
    await withServer(root, async (client, transport) => {
      const written = await call(client, "file_write", { files: { "u1.ts": { content: "export const u1 = 1;\n", expectedSha256: await hashOf(join(root, "u1.ts")) } } });
      expect(written.isError).toBeFalsy();
      const batchId = (written.structuredContent as { batchId: string }).batchId;
      expect((await call(client, "file_undo", { batchId })).isError).toBeFalsy();
      // Undoing the undo puts the edit back.
      expect((await call(client, "file_undo", {})).isError).toBeFalsy();
      const broken = await call(client, "file_write", {
        files: {
          "u1.ts": { content: "export const = ;", expectedSha256: await hashOf(join(root, "u1.ts")) },
          "u2.ts": { content: "export const u2 = 2;\n", expectedSha256: await hashOf(join(root, "u2.ts")) },
        },
      });
      expect(errorOf(broken).code).toBe("syntax_regression");
      expect(await readFile(join(root, "u2.ts"), "utf8")).toBe("export const u2 = 0;\n");
      await expectAlive(client, transport, root);
    });
  }, 60_000);
});

describe("the syntax guard does not depend on the working directory", () => {
  test("a server whose working directory was removed and recreated before the first parse still refuses broken Python", async () => {
    const root = await tempRoot();
    const cwd = await mkdtemp(join(tmpdir(), "ast-mcp-cwd-"));
    try {
      await withServer(
        root,
        async (client, transport) => {
          await rm(cwd, { recursive: true, force: true });
          await mkdir(cwd);
          const broken = await call(client, "file_write", { files: { "c.py": { content: "def (((:\n", expectedSha256: null } } });
          expect(errorOf(broken).code).toBe("syntax_regression");
          const good = await call(client, "file_write", { files: { "d.py": { content: "def f():\n    return 1\n", expectedSha256: null } } });
          const facts = (good.structuredContent as { files: Record<string, { syntax?: { checked: boolean } }> }).files["d.py"];
          expect(facts?.syntax?.checked).toBe(true);
          await expectAlive(client, transport, root);
        },
        cwd,
      );
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  }, 60_000);
});
