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

describe("ReceiptBook without sessions (stateless requests)", () => {
  const request = (n: number) => ({ sessionId: `req_${n}`, stateless: true });
  const forA = { canonicalPath: "/repo/a.ts", configGeneration: 3 };

  test("a stateless request's receipt is a bearer handle: another request commits it by id alone, once", () => {
    const book = new ReceiptBook();
    const receipt = book.issue(request(1), base);
    expect(receipt.sessionId).toBeNull();
    book.dropSession("req_1"); // the issuing request ended, as the server ends every stateless request
    expect(book.take(request(2), receipt.id, forA).candidate.toString()).toBe("x");
    expect(reasonOf(() => book.take(request(3), receipt.id, forA))).toBe("used");
    expect(reasonOf(() => book.take(request(2), receipt.id, forA))).toBe("used");
  });

  test("a bearer receipt is still checked against its file and configuration generation", () => {
    const book = new ReceiptBook();
    const receipt = book.issue(request(1), base);
    expect(reasonOf(() => book.take(request(2), receipt.id, { canonicalPath: "/repo/b.ts", configGeneration: 3 }))).toBe("wrong_path");
    expect(reasonOf(() => book.take(request(2), receipt.id, { canonicalPath: "/repo/a.ts", configGeneration: 4 }))).toBe("stale_config");
    expect(reasonOf(() => book.takeBatch(request(2), receipt.id, { configGeneration: 3 }))).toBe("single_receipt");
  });

  test("a stateless request cannot commit a session's receipt, used or not", () => {
    const book = new ReceiptBook();
    const fresh = book.issue("s1", base);
    expect(reasonOf(() => book.take(request(1), fresh.id, forA))).toBe("foreign_session");
    const spent = book.issue("s1", base);
    book.take("s1", spent.id, forA);
    expect(reasonOf(() => book.take(request(1), spent.id, forA))).toBe("foreign_session");
    // The session itself still commits its own.
    expect(book.take("s1", fresh.id, forA).id).toBe(fresh.id);
  });

  test("an expired bearer receipt is refused as expired, also once a later issue swept it away", () => {
    const time = clock();
    const book = new ReceiptBook(time.now);
    const old = book.issue(request(1), base);
    time.advance(LIMITS.patch.receiptTtlMs + 1);
    expect(reasonOf(() => book.take(request(2), old.id, forA))).toBe("expired");
    const older = book.issue(request(3), base);
    time.advance(LIMITS.patch.receiptTtlMs + 1);
    book.issue(request(4), base); // sweeps the expired ones out of memory
    expect(book.held(request(5)).receipts).toBe(1);
    expect(reasonOf(() => book.take(request(2), older.id, forA))).toBe("expired");
  });

  test("the stateless pool is bounded in count and bytes with no session to charge, oldest evicted and named so", () => {
    const book = new ReceiptBook();
    const ids = Array.from({ length: LIMITS.patch.maxStatelessReceipts + 3 }, (_, n) => book.issue(request(n), base).id);
    expect(book.held(request(0)).receipts).toBe(LIMITS.patch.maxStatelessReceipts);
    expect(reasonOf(() => book.take(request(9), ids[0] as string, forA))).toBe("evicted");
    expect(book.take(request(9), ids.at(-1) as string, forA).id).toBe(ids.at(-1) as string);

    const big = Buffer.alloc(Math.ceil(LIMITS.patch.maxStatelessReceiptBytes / 3) + 1);
    const first = book.issue(request(1), { ...base, candidate: big }).id;
    for (let n = 0; n < 2; n++) book.issue(request(2 + n), { ...base, candidate: big });
    expect(book.held(request(0)).bytes).toBeLessThanOrEqual(LIMITS.patch.maxStatelessReceiptBytes);
    expect(reasonOf(() => book.take(request(9), first, forA))).toBe("evicted");
  });

  test("an authenticated client's flood of previews evicts its own oldest receipts, never another client's", () => {
    const book = new ReceiptBook();
    const as = (principal: string, n: number) => ({ ...request(n), principal });
    const alices = book.issue(as("alice", 1), base);
    const anonymous = book.issue(request(2), base);
    const bobs = Array.from({ length: LIMITS.patch.maxStatelessReceipts + 10 }, (_, n) => book.issue(as("bob", n), base).id);
    // Bob holds at most a session's count; the rest of the pool is untouched.
    expect(book.held(request(0)).receipts).toBe(LIMITS.patch.maxReceiptsPerSession + 2);
    expect(reasonOf(() => book.take(request(9), bobs[0] as string, forA))).toBe("evicted");
    expect(book.take(request(9), bobs.at(-1) as string, forA).id).toBe(bobs.at(-1) as string);
    expect(book.take(as("carol", 9), alices.id, forA).id).toBe(alices.id);
    expect(book.take(request(9), anonymous.id, forA).id).toBe(anonymous.id);

    // The same in bytes: a client holds at most a session's bytes of candidates.
    const big = Buffer.alloc(Math.ceil(LIMITS.patch.maxReceiptBytesPerSession / 2) + 1);
    const kept = book.issue(as("alice", 3), { ...base, candidate: big });
    const first = book.issue(as("bob", 1), { ...base, candidate: big }).id;
    book.issue(as("bob", 2), { ...base, candidate: big });
    expect(reasonOf(() => book.take(request(9), first, forA))).toBe("evicted");
    expect(book.take(request(9), kept.id, forA).id).toBe(kept.id);
  });

  test("sessions and stateless requests have separate budgets: a session's flood evicts no bearer receipt", () => {
    const book = new ReceiptBook();
    const bearer = book.issue(request(1), base);
    for (let n = 0; n < LIMITS.patch.maxReceiptsPerSession + 5; n++) book.issue("s1", base);
    expect(book.held("s1").receipts).toBe(LIMITS.patch.maxReceiptsPerSession);
    expect(book.take(request(2), bearer.id, forA).id).toBe(bearer.id);
  });

  test("a legacy session may present a bearer receipt (whoever holds the id may commit it once)", () => {
    const book = new ReceiptBook();
    const receipt = book.issue(request(1), base);
    expect(book.take("s1", receipt.id, forA).id).toBe(receipt.id);
    expect(reasonOf(() => book.take(request(2), receipt.id, forA))).toBe("used");
  });
});
