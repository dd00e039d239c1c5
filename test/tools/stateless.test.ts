/**
 * State without sessions: what a stateless (2026-07-28) request keeps as handles the client passes
 * back (receipt ids, batch ids), across separate requests that share only the process's services,
 * each ended the way the server ends a stateless request (its per-request session closed).
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { LIMITS } from "../../src/core/limits.ts";
import { sha256Hex } from "../../src/helpers/hash.ts";
import { capText } from "../../src/helpers/text-cap.ts";
import type { ToolContext } from "../../src/tools/contract.ts";
import { filePatchTool } from "../../src/tools/file-patch.ts";
import { fileUndoTool } from "../../src/tools/file-undo.ts";
import { fileWriteTool } from "../../src/tools/file-write.ts";
import { createToolServices } from "../../src/tools/index.ts";
import { journalListTool } from "../../src/tools/journal-list.ts";
import { MutationOutput, renderMutation } from "../../src/tools/mutation.ts";
import type { ToolServices } from "../../src/tools/services.ts";
import { makeContext, makeTempDir, runTool, type TempDir, toolFailure as failure } from "../support/context.ts";
import { usePrivateStateDir } from "../support/state-dir.ts";

let temp: TempDir;
let services: ToolServices;
let requests = 0;
usePrivateStateDir();
beforeEach(async () => {
  await temp?.cleanup();
  temp = await makeTempDir();
  services = createToolServices();
});

const file = (name: string) => path.join(temp.dir, name);
const hashOf = async (name: string) => sha256Hex(await readFile(file(name)));

/** One stateless request: a fresh per-request session id, over the shared services. */
function statelessRequest(roots = [temp.dir], principal?: string): Promise<ToolContext> {
  requests += 1;
  return makeContext(roots, { services, stateless: true, sessionId: `req_${requests}`, ...(principal === undefined ? {} : { principal }) });
}

/** Runs one tool call as its own stateless request (from an authenticated client, if named), closing the request's session afterwards as the server does. */
async function inRequest(tool: Parameters<typeof runTool>[0], args: unknown, roots?: string[], principal?: string): Promise<any> {
  const context = await statelessRequest(roots, principal);
  try {
    return await runTool(tool, args, context);
  } finally {
    services.closeSession(context.sessionId);
  }
}

async function write(name: string, content: string): Promise<string> {
  const exists = await stat(file(name)).then(() => true, () => false);
  const result = await inRequest(fileWriteTool, { files: { [name]: { content, expectedSha256: exists ? await hashOf(name) : null } } });
  return result.batchId as string;
}

describe("receipts across stateless requests", () => {
  test("an authenticated client's flood of previews costs its own receipts, and another client's still commits", async () => {
    await temp.write("a.txt", "one\n");
    const previewBy = async (principal: string) => {
      const preview = await inRequest(
        filePatchTool,
        {
          files: { "a.txt": { expectedSha256: await hashOf("a.txt"), patchStrategy: "aider_block", aiderBlocks: [{ search: "one\n", replace: `${principal}\n` }], preview: true } },
        },
        undefined,
        principal,
      );
      return preview.files["a.txt"].preview.previewReceipt as string;
    };
    const alices = await previewBy("sub:alice");
    const bobs: string[] = [];
    for (let n = 0; n <= LIMITS.patch.maxReceiptsPerSession; n++) bobs.push(await previewBy("sub:bob"));
    const evicted = await failure(inRequest(filePatchTool, { files: { "a.txt": { previewReceipt: bobs[0] } } }));
    expect([evicted.code, evicted.details?.reason]).toEqual(["receipt_invalid", "evicted"]);
    const committed = await inRequest(filePatchTool, { files: { "a.txt": { previewReceipt: alices } } });
    expect(committed.committed).toBe(true);
    expect(await readFile(file("a.txt"), "utf8")).toBe("sub:alice\n");
  });

  test("a preview in one request is committed from another by its receipt alone", async () => {
    await temp.write("a.txt", "one\n");
    const preview = await inRequest(filePatchTool, {
      files: { "a.txt": { expectedSha256: await hashOf("a.txt"), patchStrategy: "aider_block", aiderBlocks: [{ search: "one\n", replace: "two\n" }], preview: true } },
    });
    const receipt = preview.files["a.txt"].preview.previewReceipt;
    expect(await readFile(file("a.txt"), "utf8")).toBe("one\n");
    const committed = await inRequest(filePatchTool, { files: { "a.txt": { previewReceipt: receipt } } });
    expect(committed.committed).toBe(true);
    expect(await readFile(file("a.txt"), "utf8")).toBe("two\n");

    const again = await failure(inRequest(filePatchTool, { files: { "a.txt": { previewReceipt: receipt } } }));
    expect([again.code, again.details?.reason]).toEqual(["receipt_invalid", "used"]);
  });

  test("a receipt is refused for another file, and a legacy session's receipt is refused to a stateless request", async () => {
    await temp.write("a.txt", "one\n");
    await temp.write("b.txt", "one\n");
    const preview = await inRequest(filePatchTool, {
      files: { "a.txt": { expectedSha256: await hashOf("a.txt"), patchStrategy: "aider_block", aiderBlocks: [{ search: "one\n", replace: "two\n" }], preview: true } },
    });
    const wrongFile = await failure(inRequest(filePatchTool, { files: { "b.txt": { previewReceipt: preview.files["a.txt"].preview.previewReceipt } } }));
    expect(wrongFile.details?.reason).toBe("wrong_path");

    const session = await makeContext([temp.dir], { services, sessionId: "legacy-1" });
    const legacy = await runTool(
      filePatchTool,
      { files: { "b.txt": { expectedSha256: await hashOf("b.txt"), patchStrategy: "aider_block", aiderBlocks: [{ search: "one\n", replace: "two\n" }], preview: true } } },
      session,
    );
    const foreign = await failure(inRequest(filePatchTool, { files: { "b.txt": { previewReceipt: legacy.files["b.txt"].preview.previewReceipt } } }));
    expect(foreign.details?.reason).toBe("foreign_session");
    expect(await readFile(file("b.txt"), "utf8")).toBe("one\n");
  });

  test("a receipt issued under another configuration generation is refused", async () => {
    await temp.write("a.txt", "one\n");
    const preview = await inRequest(filePatchTool, {
      files: { "a.txt": { expectedSha256: await hashOf("a.txt"), patchStrategy: "aider_block", aiderBlocks: [{ search: "one\n", replace: "two\n" }], preview: true } },
    });
    const later = await makeContext([temp.dir], { services, stateless: true, sessionId: "req_later", snapshot: { generation: 2 } });
    const stale = await failure(runTool(filePatchTool, { files: { "a.txt": { previewReceipt: preview.files["a.txt"].preview.previewReceipt } } }, later));
    expect(stale.details?.reason).toBe("stale_config");
    expect(await readFile(file("a.txt"), "utf8")).toBe("one\n");
  });
});

describe("undo without a session", () => {
  test("file_undo takes a batch back by its id from another request", async () => {
    await temp.write("u.txt", "before\n");
    const batchId = await write("u.txt", "after\n");
    const undone = await inRequest(fileUndoTool, { batchId });
    expect(undone.committed).toBe(true);
    expect(await readFile(file("u.txt"), "utf8")).toBe("before\n");
  });

  test("file_undo without a batchId is refused with the recent batches and the call that lists them, and writes nothing", async () => {
    await temp.write("u.txt", "v0\n");
    const first = await write("u.txt", "v1\n");
    const second = await write("u.txt", "v2\n");
    const refused = await failure(inRequest(fileUndoTool, {}));
    expect(refused.code).toBe("invalid_input");
    expect(refused.suggestedNextCall).toEqual({ tool: "journal_list", arguments: {} });
    expect((refused.details?.recentBatches as Array<{ batchId: string }>).map((batch) => batch.batchId)).toEqual([second, first]);
    expect(refused.message).toContain(second);
    expect(await readFile(file("u.txt"), "utf8")).toBe("v2\n");
  });

  test("a legacy session still undoes its own last batch without an id", async () => {
    await temp.write("u.txt", "v0\n");
    const session = await makeContext([temp.dir], { services, sessionId: "legacy-2" });
    await runTool(fileWriteTool, { files: { "u.txt": { content: "v1\n", expectedSha256: await hashOf("u.txt") } } }, session);
    await write("u.txt", "v2\n"); // a stateless request's batch is not the session's
    await runTool(fileWriteTool, { files: { "other.txt": { content: "o\n", expectedSha256: null } } }, session);
    await runTool(fileUndoTool, {}, session);
    expect(await stat(file("other.txt")).catch(() => null)).toBeNull();
    expect(await readFile(file("u.txt"), "utf8")).toBe("v2\n");
  });

  test("a commit's text names its batch id and the undo call on its first line, which the text cap keeps", async () => {
    await temp.write("big.txt", "x\n");
    const result = await inRequest(fileWriteTool, { files: { "big.txt": { content: "y\n", expectedSha256: await hashOf("big.txt") } } });
    const padded = { ...result, files: Object.fromEntries(Array.from({ length: 2000 }, (_, n) => [`f${n}.txt`, result.files["big.txt"]])) };
    const text = capText(renderMutation(padded), LIMITS.output.maxTextChars);
    expect(text.length).toBeLessThanOrEqual(LIMITS.output.maxTextChars);
    expect(text.split("\n")[0]).toContain(`batch ${result.batchId}; undo: file_undo {"batchId": "${result.batchId}"}`);
  });
});

describe("journal_list", () => {
  test("lists the workspace's batches newest first, with the undo that took one back", async () => {
    await temp.write("a.txt", "a0\n");
    const first = await write("a.txt", "a1\n");
    const undo = (await inRequest(fileUndoTool, { batchId: first })).batchId as string;
    const listed = await inRequest(journalListTool, {});
    expect(listed.batches.map((batch: { batchId: string }) => batch.batchId)).toEqual([undo, first]);
    expect(listed.batches[0]).toMatchObject({ undoes: first, undoneBy: null, tool: "file_undo", files: ["a.txt"], thisSession: false });
    expect(listed.batches[1]).toMatchObject({ undoes: null, undoneBy: undo, tool: "file_write", state: "committed" });
    expect(listed.complete).toBe(true);
  });

  test("leaves out batches outside the workspace or the given directory, and says when the limit cut the list", async () => {
    const elsewhere = await makeTempDir();
    try {
      await elsewhere.write("e.txt", "e\n");
      await inRequest(fileWriteTool, { files: { "e.txt": { content: "e2\n", expectedSha256: sha256Hex(Buffer.from("e\n")) } } }, [elsewhere.dir]);
    } finally {
      await elsewhere.cleanup();
    }
    await temp.write("src/in.txt", "i\n");
    await temp.write("out.txt", "o\n");
    const inside = await write("src/in.txt", "i2\n");
    const outside = await write("out.txt", "o2\n");
    const all = await inRequest(journalListTool, {});
    expect(all.batches.map((batch: { batchId: string }) => batch.batchId)).toEqual([outside, inside]);
    const under = await inRequest(journalListTool, { path: "src" });
    expect(under.batches.map((batch: { batchId: string }) => batch.batchId)).toEqual([inside]);
    const cut = await inRequest(journalListTool, { limit: 1 });
    expect([cut.batches.length, cut.more, cut.complete]).toEqual([1, 1, false]);
    expect(cut.limits[0]).toContain("limit = 1");
  });

  test("a path that is not a directory is refused, naming the field", async () => {
    await temp.write("a.txt", "a\n");
    const refused = await failure(inRequest(journalListTool, { path: "a.txt" }));
    expect(refused.code).toBe("invalid_input");
    expect(refused.message).toStartWith("path:");
  });

  test("a legacy session sees which batches it wrote", async () => {
    await temp.write("a.txt", "a\n");
    const session = await makeContext([temp.dir], { services, sessionId: "legacy-3" });
    const mine = await runTool(fileWriteTool, { files: { "a.txt": { content: "b\n", expectedSha256: await hashOf("a.txt") } } }, session);
    const theirs = await write("a.txt", "c\n");
    const listed = await runTool(journalListTool, {}, session);
    expect(listed.batches.map((batch: { batchId: string; thisSession: boolean }) => [batch.batchId, batch.thisSession])).toEqual([
      [theirs, false],
      [mine.batchId, true],
    ]);
  });
});

describe("what the schemas tell a client to pass back", () => {
  test("file_undo, the commit's batchId and the preview's receipt each say how a stateless client uses them", () => {
    expect(fileUndoTool.description).toContain("stateless");
    expect(fileUndoTool.input.shape.batchId.description).toContain("Required in a stateless request");
    expect(MutationOutput.shape.batchId.description).toContain("file_undo({batchId})");
    const preview = JSON.stringify(z.toJSONSchema(MutationOutput));
    expect(preview).toContain("bearer handle, usable by its id alone");
    expect(journalListTool.annotations.readOnlyHint).toBe(true);
  });
});

describe("the code index without sessions", () => {
  test("stateless requests over the same roots share one code index, which outlives each request", async () => {
    const first = await statelessRequest();
    const index = services.indexes.forContext(first);
    services.closeSession(first.sessionId);
    const second = await statelessRequest();
    expect(services.indexes.forContext(second)).toBe(index);
    expect(index.closed).toBe(false);
  });
});
