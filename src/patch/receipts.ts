/**
 * Preview receipts: a preview writes nothing and hands back a one-use receipt bound to the session,
 * the canonical path, the source hash, the configuration generation and the candidate hash.
 * Committing the receipt reuses the exact reviewed candidate after every recheck. A stateless
 * request has no session to bind it to: its receipt is a bearer handle (the 128-bit random id is
 * the proof), kept in one pool shared by every stateless request and bounded on its own; a client
 * the transport authenticated (an OAuth subject) holds at most a session's budget of it, so one
 * client's previews cannot evict every other client's.
 */
import { randomBytes } from "node:crypto";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { LruMap } from "../helpers/lru-map.ts";

/**
 * Who issues or presents a receipt: a call's context (a legacy session's, or a stateless request's,
 * whose session id lives for that request only), or just a legacy session's id.
 */
export type ReceiptCaller = string | { sessionId: string; stateless: boolean; principal?: string | undefined };

export interface Receipt<Summary = unknown> {
  id: string;
  /** The session the receipt is bound to; null for a stateless request's bearer receipt. */
  sessionId: string | null;
  /** The authenticated client whose share of the stateless pool a bearer receipt counts against; null when none is known. */
  principal: string | null;
  /** Canonical path of the file the candidate replaces or creates. */
  canonicalPath: string;
  /** SHA-256 of the source when previewed; null when the file did not exist. */
  sourceSha256: string | null;
  configGeneration: number;
  candidateSha256: string;
  candidate: Buffer;
  createdAt: number;
  /** What the preview reported (matchers, formatting, syntax), returned again on commit. */
  summary: Summary;
}

/** One file of a multi-file receipt (a structural `run` over many files). */
export interface BatchReceiptFile<Summary = unknown> {
  canonicalPath: string;
  /** SHA-256 of the source when previewed (batch receipts only rewrite existing files). */
  sourceSha256: string;
  candidateSha256: string;
  candidate: Buffer;
  summary: Summary;
}

/** A receipt that binds several files: committing it writes all of them as one batch, or none. */
export interface BatchReceipt<FileSummary = unknown, Summary = unknown> {
  id: string;
  /** As Receipt.sessionId: null for a bearer receipt. */
  sessionId: string | null;
  /** As Receipt.principal. */
  principal: string | null;
  configGeneration: number;
  files: Array<BatchReceiptFile<FileSummary>>;
  createdAt: number;
  summary: Summary;
}

type ReceiptIssue =
  | "unknown"
  | "used"
  | "expired"
  | "evicted"
  | "foreign_session"
  | "stale_config"
  | "wrong_path"
  | "batch_receipt"
  | "single_receipt";

const REASONS: Record<ReceiptIssue, string> = {
  unknown: "no such receipt (it never existed, or it was evicted)",
  used: "the receipt was already used",
  expired: `the receipt expired (receipts live ${LIMITS.patch.receiptTtlMs / 60_000} minutes)`,
  evicted: `the receipt was evicted to keep memory bounded (stateless requests share ${LIMITS.patch.maxStatelessReceipts} receipts and ${
    LIMITS.patch.maxStatelessReceiptBytes / 1024 / 1024
  } MiB of candidates, an authenticated client at most ${LIMITS.patch.maxReceiptsPerSession} and ${
    LIMITS.patch.maxReceiptBytesPerSession / 1024 / 1024
  } MiB of them, oldest evicted first)`,
  foreign_session: "the receipt belongs to another session",
  stale_config: "the configuration changed since the preview",
  wrong_path: "the receipt was issued for a different file",
  batch_receipt: "it binds several files; commit it with run({previewReceipt})",
  single_receipt: "it binds one file; commit it with file_patch",
};

type Stored = Receipt<unknown> | BatchReceipt<unknown, unknown>;

/** The owner of the stateless requests' shared pool (never a session id: those are strings). */
const BEARER = Symbol("stateless receipts");
type Owner = string | typeof BEARER;

/** What became of a receipt no longer stored, remembered so presenting it again is named precisely. */
interface Spent {
  owner: Owner;
  reason: "used" | "expired" | "evicted";
}

/** Ids of spent receipts remembered (the oldest forgotten first; a forgotten one is then refused as unknown). */
const SPENT_REMEMBERED = 4096;

function isBatch(receipt: Stored): receipt is BatchReceipt<unknown, unknown> {
  return "files" in receipt;
}

function bytesOf(receipt: Stored): number {
  return isBatch(receipt) ? receipt.files.reduce((sum, file) => sum + file.candidate.length, 0) : receipt.candidate.length;
}

function ownerOf(receipt: Stored): Owner {
  return receipt.sessionId ?? BEARER;
}

/** A bearer receipt may be presented by anyone who holds its id; a session's only by that session. */
function mayPresent(owner: Owner, caller: ReceiptCaller): boolean {
  return owner === BEARER || owner === sessionOf(caller);
}

/** The session a caller's receipts are bound to; null for a stateless request (its receipts are bearer handles). */
function sessionOf(caller: ReceiptCaller): string | null {
  if (typeof caller === "string") return caller;
  return caller.stateless ? null : caller.sessionId;
}

/** The client a stateless caller's bearer receipts are charged to; null for a session (it has its own budget) or an unknown client. */
function principalOf(caller: ReceiptCaller): string | null {
  return typeof caller === "string" || !caller.stateless ? null : (caller.principal ?? null);
}

/** One owner's live receipts in issue order, and their candidate bytes. */
interface Pool {
  receipts: Map<string, Stored>;
  bytes: number;
}

/**
 * All live receipts of the process, keyed by id, each bound to its session or, for stateless
 * requests, to the shared bearer pool. Bounded per owner in count and bytes (oldest evicted first):
 * a session by the per-session limits, the bearer pool by the stateless ones. A session's receipts
 * go when the session closes; bearer receipts outlive the request that issued them and go when
 * used, expired or evicted. The type parameters are what a preview stores with a file, with a
 * batch's file, and with a batch.
 */
export class ReceiptBook<FileSummary = unknown, BatchFileSummary = unknown, BatchSummary = unknown> {
  private readonly receipts = new Map<string, Stored>();
  private readonly pools = new Map<Owner, Pool>();
  /** Each authenticated client's part of the bearer pool: its receipts count there too. */
  private readonly shares = new Map<string, Pool>();
  private readonly spent = new LruMap<string, Spent>(SPENT_REMEMBERED);

  constructor(private readonly now: () => number = Date.now) {}

  issue(caller: ReceiptCaller, receipt: Omit<Receipt<FileSummary>, "id" | "sessionId" | "principal" | "createdAt">): Receipt<FileSummary> {
    const full: Receipt<FileSummary> = { ...receipt, id: newReceiptId(), sessionId: sessionOf(caller), principal: principalOf(caller), createdAt: this.now() };
    this.store(full);
    return full;
  }

  /**
   * Issues one receipt for a multi-file change. A batch larger than a session's receipt budget is
   * refused rather than stored and evicted at once.
   */
  issueBatch(
    caller: ReceiptCaller,
    receipt: Omit<BatchReceipt<BatchFileSummary, BatchSummary>, "id" | "sessionId" | "principal" | "createdAt">,
  ): BatchReceipt<BatchFileSummary, BatchSummary> {
    const full: BatchReceipt<BatchFileSummary, BatchSummary> = {
      ...receipt,
      id: newReceiptId(),
      sessionId: sessionOf(caller),
      principal: principalOf(caller),
      createdAt: this.now(),
    };
    const bytes = bytesOf(full);
    if (bytes > LIMITS.patch.maxReceiptBytesPerSession) {
      throw new ToolError("too_many_items", `the previewed files hold ${bytes} bytes of new content; a preview receipt keeps at most ${LIMITS.patch.maxReceiptBytesPerSession}.`, {
        hint: "Narrow the change (paths, glob), or write it directly with expectedMatches.",
      });
    }
    this.store(full);
    return full;
  }

  /**
   * Takes a receipt for commit: it must exist, be unused, unexpired, presentable by this caller (its
   * session's, or a bearer receipt), for this file, and from the current configuration generation.
   * Taking it uses it up, even if a later recheck fails.
   */
  take(caller: ReceiptCaller, id: string, expected: { canonicalPath: string; configGeneration: number }): Receipt<FileSummary> {
    return this.takeChecked(id, this.check(caller, id, expected)) as Receipt<FileSummary>;
  }

  /** Takes a multi-file receipt for commit, under the same rules as take() (each file's path is the receipt's own). */
  takeBatch(caller: ReceiptCaller, id: string, expected: { configGeneration: number }): BatchReceipt<BatchFileSummary, BatchSummary> {
    return this.takeChecked(id, this.check(caller, id, { ...expected, batch: true })) as BatchReceipt<BatchFileSummary, BatchSummary>;
  }

  /** Receipts held now and their candidate bytes, for the caller's session or (stateless) the shared pool. */
  held(caller: ReceiptCaller): { receipts: number; bytes: number } {
    const pool = this.pools.get(sessionOf(caller) ?? BEARER);
    return { receipts: pool?.receipts.size ?? 0, bytes: pool?.bytes ?? 0 };
  }

  private takeChecked(id: string, issue: ReceiptIssue | undefined): Stored {
    if (issue) {
      throw new ToolError("receipt_invalid", `previewReceipt ${JSON.stringify(id.slice(0, 64))} cannot be committed: ${REASONS[issue]}.`, {
        details: { reason: issue },
      });
    }
    const receipt = this.receipts.get(id) as Stored;
    this.forget(receipt, "used");
    return receipt;
  }

  private store(receipt: Stored): void {
    const owner = ownerOf(receipt);
    this.receipts.set(receipt.id, receipt);
    const pool = addTo(this.pools, owner, receipt);
    // A client over its share makes room from its own oldest receipts, before the pool's bound is looked at.
    if (owner === BEARER && receipt.principal !== null) {
      const share = addTo(this.shares, receipt.principal, receipt);
      trimOldest(share, LIMITS.patch.maxReceiptsPerSession, LIMITS.patch.maxReceiptBytesPerSession, (oldest) => this.forget(oldest, "evicted"));
    }
    this.evict(owner, pool);
  }

  dropSession(sessionId: string): void {
    const pool = this.pools.get(sessionId);
    for (const receipt of pool?.receipts.values() ?? []) this.receipts.delete(receipt.id);
    // Its spent ids stay in the bounded memory of spent receipts until they age out: nobody can present them now.
    this.pools.delete(sessionId);
  }

  private check(
    caller: ReceiptCaller,
    id: string,
    expected: { canonicalPath: string; configGeneration: number } | { batch: true; configGeneration: number },
  ): ReceiptIssue | undefined {
    const receipt = this.receipts.get(id);
    if (!receipt) {
      const spent = this.spent.get(id);
      if (!spent) return "unknown";
      return mayPresent(spent.owner, caller) ? spent.reason : "foreign_session";
    }
    if (!mayPresent(ownerOf(receipt), caller)) return "foreign_session";
    if (this.now() - receipt.createdAt > LIMITS.patch.receiptTtlMs) return "expired";
    if ("batch" in expected) {
      if (!isBatch(receipt)) return "single_receipt";
    } else {
      if (isBatch(receipt)) return "batch_receipt";
      if (receipt.canonicalPath !== expected.canonicalPath) return "wrong_path";
    }
    if (receipt.configGeneration !== expected.configGeneration) return "stale_config";
    return undefined;
  }

  /**
   * Removes a live receipt, remembering why. A session's expired or evicted receipts are then
   * refused as unknown, as they always were; the bearer pool names why, since a stateless client's
   * receipt may have made room for another client's.
   */
  private forget(receipt: Stored, reason: Spent["reason"]): void {
    if (!this.receipts.delete(receipt.id)) return;
    const owner = ownerOf(receipt);
    removeFrom(this.pools, owner, receipt);
    if (owner === BEARER && receipt.principal !== null) removeFrom(this.shares, receipt.principal, receipt);
    if (reason === "used" || owner === BEARER) this.spent.set(receipt.id, { owner, reason });
  }

  private evict(owner: Owner, pool: Pool): void {
    const now = this.now();
    const [maxCount, maxBytes] = owner === BEARER ?
      [LIMITS.patch.maxStatelessReceipts, LIMITS.patch.maxStatelessReceiptBytes] :
      [LIMITS.patch.maxReceiptsPerSession, LIMITS.patch.maxReceiptBytesPerSession];
    for (const receipt of [...pool.receipts.values()]) {
      if (now - receipt.createdAt > LIMITS.patch.receiptTtlMs) this.forget(receipt, "expired");
    }
    trimOldest(pool, maxCount, maxBytes, (oldest) => this.forget(oldest, "evicted"));
  }
}

/** Adds a receipt to the pool of `key` (made when missing); returns that pool. */
function addTo<Key>(pools: Map<Key, Pool>, key: Key, receipt: Stored): Pool {
  let pool = pools.get(key);
  if (!pool) {
    pool = { receipts: new Map(), bytes: 0 };
    pools.set(key, pool);
  }
  pool.receipts.set(receipt.id, receipt);
  pool.bytes += bytesOf(receipt);
  return pool;
}

/** Takes a receipt out of the pool of `key`; an emptied pool goes. */
function removeFrom<Key>(pools: Map<Key, Pool>, key: Key, receipt: Stored): void {
  const pool = pools.get(key);
  if (!pool?.receipts.delete(receipt.id)) return;
  pool.bytes -= bytesOf(receipt);
  if (pool.receipts.size === 0) pools.delete(key);
}

/** Evicts a pool's oldest receipts until it is within its count and bytes (`evict` must take the receipt out of the pool). */
function trimOldest(pool: Pool, maxCount: number, maxBytes: number, evict: (oldest: Stored) => void): void {
  while (pool.receipts.size > 0 && (pool.receipts.size > maxCount || pool.bytes > maxBytes)) evict(pool.receipts.values().next().value as Stored);
}

function newReceiptId(): string {
  return `rcpt_${randomBytes(16).toString("base64url")}`;
}
