import { describe, expect, test } from "bun:test";
import { ToolError } from "../../src/core/errors.ts";
import { LIMITS } from "../../src/core/limits.ts";
import { ReceiptBook } from "../../src/patch/receipts.ts";

function file(name: string, bytes = 1) {
  return { canonicalPath: `/repo/${name}`, sourceSha256: "a".repeat(64), candidateSha256: "b".repeat(64), candidate: Buffer.alloc(bytes), summary: { name } };
}

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe("receipt_invalid");
    return String((error as ToolError).details?.reason);
  }
  throw new Error("expected receipt_invalid");
}

describe("batch receipts", () => {
  test("one receipt binds several files and is taken once, by its session and configuration", () => {
    const book = new ReceiptBook();
    const receipt = book.issueBatch("s1", { configGeneration: 2, files: [file("a.ts"), file("b.ts")], summary: { matchCount: 3 } });
    expect(reasonOf(() => book.takeBatch("s2", receipt.id, { configGeneration: 2 }))).toBe("foreign_session");
    expect(reasonOf(() => book.takeBatch("s1", receipt.id, { configGeneration: 3 }))).toBe("stale_config");
    // A single-file commit cannot use it, and a failed attempt does not use it up.
    expect(reasonOf(() => book.take("s1", receipt.id, { canonicalPath: "/repo/a.ts", configGeneration: 2 }))).toBe("batch_receipt");
    const taken = book.takeBatch("s1", receipt.id, { configGeneration: 2 });
    expect(taken.files.map((entry) => entry.canonicalPath)).toEqual(["/repo/a.ts", "/repo/b.ts"]);
    expect(taken.summary).toEqual({ matchCount: 3 });
    expect(reasonOf(() => book.takeBatch("s1", receipt.id, { configGeneration: 2 }))).toBe("used");
  });

  test("a single-file receipt is not a batch receipt", () => {
    const book = new ReceiptBook();
    const single = book.issue("s1", { ...file("a.ts"), sourceSha256: "a".repeat(64), configGeneration: 1 });
    expect(reasonOf(() => book.takeBatch("s1", single.id, { configGeneration: 1 }))).toBe("single_receipt");
    expect(book.take("s1", single.id, { canonicalPath: "/repo/a.ts", configGeneration: 1 }).id).toBe(single.id);
  });

  test("batch receipts count toward the session's byte budget; an oversized batch is refused", () => {
    const book = new ReceiptBook();
    const half = Math.ceil(LIMITS.patch.maxReceiptBytesPerSession / 2) + 1;
    const first = book.issueBatch("s1", { configGeneration: 1, files: [file("a.ts", half)], summary: {} });
    const second = book.issueBatch("s1", { configGeneration: 1, files: [file("b.ts", half)], summary: {} });
    expect(reasonOf(() => book.takeBatch("s1", first.id, { configGeneration: 1 }))).toBe("unknown");
    expect(book.takeBatch("s1", second.id, { configGeneration: 1 }).id).toBe(second.id);
    let refused: unknown;
    try {
      book.issueBatch("s1", { configGeneration: 1, files: [file("a.ts", half), file("b.ts", half)], summary: {} });
    } catch (error) {
      refused = error;
    }
    expect((refused as ToolError).code).toBe("too_many_items");
  });

  test("dropping the session forgets its batch receipts", () => {
    const book = new ReceiptBook();
    const receipt = book.issueBatch("s1", { configGeneration: 1, files: [file("a.ts")], summary: {} });
    book.dropSession("s1");
    expect(reasonOf(() => book.takeBatch("s1", receipt.id, { configGeneration: 1 }))).toBe("unknown");
  });
});
