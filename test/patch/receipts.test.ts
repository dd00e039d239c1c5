import { describe, expect, test } from "bun:test";
import { ToolError } from "../../src/core/errors.ts";
import { LIMITS } from "../../src/core/limits.ts";
import { ReceiptBook } from "../../src/patch/receipts.ts";

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

const base = { canonicalPath: "/repo/a.ts", sourceSha256: "a".repeat(64), configGeneration: 3, candidateSha256: "b".repeat(64), candidate: Buffer.from("x"), summary: {} };

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

describe("ReceiptBook", () => {
  test("a receipt is taken once, by its session, for its file and configuration generation", () => {
    const time = clock();
    const book = new ReceiptBook(time.now);
    const receipt = book.issue("s1", base);
    expect(receipt.id).toMatch(/^rcpt_/);
    expect(reasonOf(() => book.take("s2", receipt.id, { canonicalPath: "/repo/a.ts", configGeneration: 3 }))).toBe("foreign_session");
    expect(reasonOf(() => book.take("s1", receipt.id, { canonicalPath: "/repo/b.ts", configGeneration: 3 }))).toBe("wrong_path");
    expect(reasonOf(() => book.take("s1", receipt.id, { canonicalPath: "/repo/a.ts", configGeneration: 4 }))).toBe("stale_config");
    expect(book.take("s1", receipt.id, { canonicalPath: "/repo/a.ts", configGeneration: 3 }).candidate.toString()).toBe("x");
    expect(reasonOf(() => book.take("s1", receipt.id, { canonicalPath: "/repo/a.ts", configGeneration: 3 }))).toBe("used");
    expect(reasonOf(() => book.take("s1", "rcpt_nope", { canonicalPath: "/repo/a.ts", configGeneration: 3 }))).toBe("unknown");
  });

  test("receipts expire after ten minutes", () => {
    const time = clock();
    const book = new ReceiptBook(time.now);
    const receipt = book.issue("s1", base);
    time.advance(LIMITS.patch.receiptTtlMs + 1);
    expect(reasonOf(() => book.take("s1", receipt.id, { canonicalPath: "/repo/a.ts", configGeneration: 3 }))).toBe("expired");
  });

  test("a session keeps a bounded number of receipts and bytes, oldest evicted", () => {
    const book = new ReceiptBook();
    const ids = Array.from({ length: LIMITS.patch.maxReceiptsPerSession + 5 }, () => book.issue("s1", base).id);
    expect(reasonOf(() => book.take("s1", ids[0] as string, { canonicalPath: "/repo/a.ts", configGeneration: 3 }))).toBe("unknown");
    expect(book.take("s1", ids.at(-1) as string, { canonicalPath: "/repo/a.ts", configGeneration: 3 }).id).toBe(ids.at(-1) as string);

    const big = Buffer.alloc(Math.ceil(LIMITS.patch.maxReceiptBytesPerSession / 2) + 1);
    const first = book.issue("s2", { ...base, candidate: big }).id;
    const second = book.issue("s2", { ...base, candidate: big }).id;
    expect(reasonOf(() => book.take("s2", first, { canonicalPath: "/repo/a.ts", configGeneration: 3 }))).toBe("unknown");
    expect(book.take("s2", second, { canonicalPath: "/repo/a.ts", configGeneration: 3 }).id).toBe(second);
  });

  test("dropping a session forgets its receipts", () => {
    const book = new ReceiptBook();
    const receipt = book.issue("s1", base);
    book.dropSession("s1");
    expect(reasonOf(() => book.take("s1", receipt.id, { canonicalPath: "/repo/a.ts", configGeneration: 3 }))).toBe("unknown");
  });
});
