import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { cp, link, mkdir, readFile, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ToolError } from "../../src/core/errors.ts";
import { commitBatch, type CommitOp } from "../../src/patch/commit.ts";
import { isBatchId, JOURNAL_LIST_INTERVAL_MS, Journals, newBatchId, SPARE_DIRECTORIES } from "../../src/patch/journal-store.ts";
import { listBatches, showBatch, undoOps } from "../../src/patch/journal.ts";
import { type CommitFixture, journalEntries, makeCommitFixture, sha, snapshot } from "./commit-fixture.ts";

let fx: CommitFixture;
/** The journal stores of this test's commits, as the writes service holds them. */
let journals: Journals;
beforeEach(async () => {
  fx = await makeCommitFixture();
  journals = new Journals();
});
const store = () => journals.at(fx.stateDir);
afterEach(async () => {
  await fx.cleanup();
});

const journal = () => ({ stateDir: fx.stateDir });

async function commit(ops: CommitOp[], meta = fx.meta, limits?: { max_batches: number; max_bytes: number; max_age_days: number }) {
  return commitBatch(ops, meta, { stateDir: fx.stateDir, journals, ...(limits ? { journalLimits: limits } : {}) });
}

async function bump(relative: string, text: string) {
  const current = (await fx.text(relative)) ?? "";
  return commit([{ kind: "write", path: fx.at(relative), expectedBefore: sha(current), after: Buffer.from(text) }]);
}

describe("batch ids", () => {
  test("ids sort by time and are unique within a process even in the same millisecond", () => {
    const ids = [newBatchId(1_000), newBatchId(1_000), newBatchId(999), newBatchId(5_000)];
    expect(ids.every(isBatchId)).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(4);
    expect(isBatchId("../../etc")).toBe(false);
  });
});

describe("list and show", () => {
  test("list is oldest first and filters by session; show has ops, hashes, time, session and tool", async () => {
    await fx.put("a.txt", "a");
    const first = await bump("a.txt", "b");
    const second = await commit([{ kind: "write", path: fx.at("n.txt"), expectedBefore: null, after: Buffer.from("n") }], {
      ...fx.meta,
      sessionId: "other",
      tool: "file_write",
      description: "make n",
    });
    expect((await listBatches({}, journal())).map((batch) => batch.batchId)).toEqual([first.batchId, second.batchId]);
    expect((await listBatches({ sessionId: "other" }, journal())).map((batch) => batch.batchId)).toEqual([second.batchId]);
    const shown = await showBatch(second.batchId, journal());
    expect(shown).toMatchObject({ batchId: second.batchId, state: "committed", sessionId: "other", tool: "file_write", description: "make n", files: [fx.at("n.txt")] });
    expect(shown.ops).toEqual([{ kind: "write", path: fx.at("n.txt"), to: null, before: null, after: sha("n"), beforeMode: null, afterMode: null }]);
    expect(Date.parse(shown.createdAt)).toBeGreaterThan(0);
    expect(shown.writer.pid).toBe(process.pid);
  });

  test("show refuses ids that are malformed or unknown", async () => {
    await expect(showBatch("../x", journal())).rejects.toThrow("not a batch id");
    await expect(showBatch(newBatchId(), journal())).rejects.toThrow("never existed or was pruned");
  });
});

/** Gives a copied batch directory its own id in its record. */
async function rewriteForeign(id: string): Promise<void> {
  const file = path.join(fx.stateDir, "journal", id, "committed.json");
  const record = JSON.parse(await readFile(file, "utf8"));
  record.id = id;
  await writeFile(file, JSON.stringify(record));
}

describe("pruning", () => {
  test("the oldest batches beyond max_batches are removed", async () => {
    await fx.put("a.txt", "0");
    const ids: string[] = [];
    for (let i = 1; i <= 5; i += 1) {
      ids.push(
        (await commit([{ kind: "write", path: fx.at("a.txt"), expectedBefore: sha(String(i - 1)), after: Buffer.from(String(i)) }], fx.meta, {
          max_batches: 3,
          max_bytes: 1 << 30,
          max_age_days: 30,
        })).batchId,
      );
    }
    expect((await listBatches({}, journal())).map((batch) => batch.batchId)).toEqual(ids.slice(2));
  });

  test("while the batches it knows leave room, pruning lists the journal only now and then; others' batches count at the next listing", async () => {
    await fx.put("a.txt", "0");
    const limits = { max_batches: 2, max_bytes: 1 << 30, max_age_days: 30 };
    const mine = await commit([{ kind: "write", path: fx.at("a.txt"), expectedBefore: sha("0"), after: Buffer.from("1") }], fx.meta, limits);
    // Two batches another process committed earlier, which this one has not listed yet.
    const foreign = [newBatchId(), newBatchId()];
    for (const id of foreign) {
      await cp(path.join(fx.stateDir, "journal", mine.batchId), path.join(fx.stateDir, "journal", id), { recursive: true });
      await rewriteForeign(id);
    }
    const now = Date.now();
    expect(await store().prune(limits, now)).toEqual([]);
    expect((await listBatches({}, journal())).length).toBe(3);
    // Listed again, the oldest of the three goes.
    expect(await store().prune(limits, now + JOURNAL_LIST_INTERVAL_MS)).toEqual([mine.batchId]);
    expect((await listBatches({}, journal())).map((batch) => batch.batchId)).toEqual(foreign);
  });

  test("at its limits, pruning goes by the batches it knows until the next listing", async () => {
    await fx.put("a.txt", "0");
    const limits = { max_batches: 2, max_bytes: 1 << 30, max_age_days: 30 };
    const mine: string[] = [];
    const bumpTo = async (n: number) =>
      mine.push((await commit([{ kind: "write", path: fx.at("a.txt"), expectedBefore: sha(String(n - 1)), after: Buffer.from(String(n)) }], fx.meta, limits)).batchId);
    await bumpTo(1);
    // Two batches another process added after this one listed the journal.
    const foreign = [newBatchId(), newBatchId()];
    for (const id of foreign) {
      await cp(path.join(fx.stateDir, "journal", mine[0] as string), path.join(fx.stateDir, "journal", id), { recursive: true });
      await rewriteForeign(id);
    }
    await bumpTo(2);
    await bumpTo(3);
    // Three batches known here: the oldest goes; the foreign ones are not counted yet.
    expect((await listBatches({}, journal())).map((batch) => batch.batchId)).toEqual([...foreign, ...mine.slice(1)].sort());
    expect(await store().prune(limits, Date.now() + JOURNAL_LIST_INTERVAL_MS)).toEqual(foreign);
    expect((await listBatches({}, journal())).map((batch) => batch.batchId)).toEqual(mine.slice(1));
  });

  test("before-image bytes beyond max_bytes prune the oldest, and a batch alone over the limit is not undoable", async () => {
    await fx.put("big.txt", "x".repeat(1000));
    const limits = { max_batches: 100, max_bytes: 2500, max_age_days: 30 };
    const results = [];
    for (let i = 0; i < 4; i += 1) {
      const current = (await fx.text("big.txt")) as string;
      results.push(await commit([{ kind: "write", path: fx.at("big.txt"), expectedBefore: sha(current), after: Buffer.from(String(i).repeat(1000)) }], fx.meta, limits));
    }
    expect((await listBatches({}, journal())).map((batch) => batch.batchId)).toEqual(results.slice(2).map((result) => result.batchId));
    const huge = await commit([{ kind: "write", path: fx.at("big.txt"), expectedBefore: sha((await fx.text("big.txt")) as string), after: Buffer.from("small") }], fx.meta, {
      ...limits,
      max_bytes: 500,
    });
    expect(huge.undoable).toBe(false);
    expect(await listBatches({}, journal())).toEqual([]);
  });

  test("batches older than max_age_days are removed; batches in flight never are", async () => {
    await fx.put("a.txt", "a");
    const old = await bump("a.txt", "b");
    const day = 86_400_000;
    expect(await store().prune({ max_batches: 100, max_bytes: 1 << 30, max_age_days: 1 }, Date.now() + day / 2)).toEqual([]);
    expect(await store().prune({ max_batches: 100, max_bytes: 1 << 30, max_age_days: 1 }, Date.now() + 2 * day)).toEqual([old.batchId]);
    // A batch still being written (state "prepared") is left to its writer or to recovery.
    const recordDir = path.join(fx.stateDir, "journal", newBatchId());
    await mkdir(recordDir);
    const record = {
      format: 1,
      id: path.basename(recordDir),
      state: "prepared",
      createdAt: new Date(0).toISOString(),
      committedAt: null,
      writer: { pid: process.pid, startTime: null, host: "h" },
      sessionId: "s",
      tool: "t",
      roots: [],
      description: null,
      ops: [],
      imageBytes: 0,
      recovery: null,
    };
    await writeFile(path.join(recordDir, "batch.json"), JSON.stringify(record));
    expect(await store().prune({ max_batches: 1, max_bytes: 1, max_age_days: 1 })).toEqual([]);
    expect(await journalEntries(fx.stateDir)).toEqual([path.basename(recordDir)]);
  });
});

describe("undo", () => {
  test("undo restores every kind of op, and is itself an undoable batch", async () => {
    const a = await fx.put("a.txt", "a", 0o640);
    const gone = await fx.put("d/gone.txt", "gone", 0o600);
    const moved = await fx.put("m.txt", "m");
    const mode = await fx.put("x.sh", "x", 0o644);
    const original = await snapshot(fx.root);
    const batch = await commit([
      { kind: "write", path: fx.at("a.txt"), expectedBefore: a, after: Buffer.from("A"), mode: 0o644 },
      { kind: "write", path: fx.at("new/deep/n.txt"), expectedBefore: null, after: Buffer.from("n"), mkdirParents: true },
      { kind: "delete", path: fx.at("d/gone.txt"), expectedBefore: gone, removeEmptyParentsUpTo: fx.root },
      { kind: "rename", from: fx.at("m.txt"), to: fx.at("into/m.txt"), expectedBefore: moved, mkdirParents: true },
      { kind: "chmod", path: fx.at("x.sh"), expectedBefore: mode, mode: 0o755 },
    ]);
    const changed = await snapshot(fx.root);
    expect(changed).not.toEqual(original);

    const plan = await undoOps(batch.batchId, journal());
    expect(plan.conflicts).toEqual([]);
    expect(plan.ops.map((op) => op.kind)).toEqual(["chmod", "rename", "write", "delete", "write"]);
    const undo = await commit(plan.ops, { ...fx.meta, description: `undo of ${batch.batchId}` });
    expect(await snapshot(fx.root)).toEqual(original);

    const redo = await undoOps(undo.batchId, journal());
    expect(redo.conflicts).toEqual([]);
    await commit(redo.ops);
    expect(await snapshot(fx.root)).toEqual(changed);
  });

  test("undo reports files changed since the batch, and commitBatch refuses the stale ops anyway", async () => {
    await fx.put("a.txt", "a");
    await fx.put("b.txt", "b");
    const batch = await commit([
      { kind: "write", path: fx.at("a.txt"), expectedBefore: sha("a"), after: Buffer.from("A") },
      { kind: "write", path: fx.at("b.txt"), expectedBefore: sha("b"), after: Buffer.from("B") },
    ]);
    await writeFile(fx.at("b.txt"), "changed by someone");
    const plan = await undoOps(batch.batchId, journal());
    expect(plan.conflicts).toEqual([fx.at("b.txt")]);
    const error = await commit(plan.ops).catch((caught: unknown) => caught);
    expect((error as ToolError).code).toBe("stale_hash");
    expect(await fx.text("a.txt")).toBe("A");
    expect(await fx.text("b.txt")).toBe("changed by someone");
  });

  test("undoing the same batch twice conflicts the second time", async () => {
    await fx.put("a.txt", "a");
    const batch = await bump("a.txt", "A");
    await commit((await undoOps(batch.batchId, journal())).ops);
    expect((await undoOps(batch.batchId, journal())).conflicts).toEqual([fx.at("a.txt")]);
  });

  test("a write that only changed the mode can be undone", async () => {
    const a = await fx.put("a.txt", "same", 0o644);
    const batch = await commit([{ kind: "write", path: fx.at("a.txt"), expectedBefore: a, after: Buffer.from("same"), mode: 0o600 }]);
    const plan = await undoOps(batch.batchId, journal());
    expect(plan.conflicts).toEqual([]);
    await commit(plan.ops);
    expect((await stat(fx.at("a.txt"))).mode & 0o777).toBe(0o644);
  });
});

describe("spare batch directories", () => {
  const journalDir = () => path.join(fx.stateDir, "journal");
  const spares = async () => (await readdir(journalDir())).filter((name) => name.startsWith(".spare."));

  test("after each commit, spares are made in the background; every next batch is staged in one of them", async () => {
    await fx.put("a.txt", "0");
    await bump("a.txt", "1");
    // More commits than spares: the pool must be refilled, not used up once.
    for (let round = 2; round <= 2 * SPARE_DIRECTORIES + 1; round++) {
      await store().refillSpares();
      const made = await spares();
      expect(made.length).toBe(SPARE_DIRECTORIES);
      const inodes = new Set(await Promise.all(made.map(async (name) => (await stat(path.join(journalDir(), name))).ino)));
      const placeholders = new Set<number>();
      for (const name of made) placeholders.add((await stat(path.join(journalDir(), name, "batch.json"))).ino);
      const batch = await bump("a.txt", String(round));
      // The batch's directory is a former spare (same inode), and holds only the batch.
      const dir = path.join(journalDir(), batch.batchId);
      expect(inodes.has((await stat(dir)).ino)).toBe(true);
      expect((await readdir(dir)).sort()).toEqual(["0.img", "committed.json"]);
      // The record is the spare's placeholder, filled in and renamed when the batch committed.
      expect(placeholders.has((await stat(path.join(dir, "committed.json"))).ino)).toBe(true);
    }
    const last = (await listBatches({}, journal())).at(-1);
    await commit((await undoOps(last?.batchId as string, journal())).ops);
    expect(await fx.text("a.txt")).toBe(String(2 * SPARE_DIRECTORIES));
  });

  test("a pruned batch's directory becomes a spare: images gone, record files ready, and the next batch is staged in it", async () => {
    const limits = { max_batches: 2, max_bytes: 1 << 30, max_age_days: 30 };
    await fx.put("a.txt", "0");
    const bumpTo = async (n: number) =>
      (await commit([{ kind: "write", path: fx.at("a.txt"), expectedBefore: sha(String(n - 1)), after: Buffer.from(String(n)) }], fx.meta, limits)).batchId;
    const first = await bumpTo(1);
    await bumpTo(2);
    await store().refillSpares();
    const firstDir = (await stat(path.join(journalDir(), first))).ino;
    const third = await bumpTo(3);
    expect((await listBatches({}, journal())).map((batch) => batch.batchId)).not.toContain(first);
    // The first batch's directory is now a spare, holding only its record files (the image, a.txt's old inode, is gone).
    const retired = [];
    for (const name of await spares()) if ((await stat(path.join(journalDir(), name))).ino === firstDir) retired.push(name);
    expect(retired.length).toBe(1);
    const spareDir = path.join(journalDir(), retired[0] as string);
    expect(await readdir(spareDir)).toEqual(["batch.json"]);
    const placeholder = (await stat(path.join(spareDir, "batch.json"))).ino;
    // The next batch is staged in it (the directory and the record file's inode), and reads back whole.
    const fourth = await bumpTo(4);
    const dir = path.join(journalDir(), fourth);
    expect((await stat(dir)).ino).toBe(firstDir);
    expect((await stat(path.join(dir, "committed.json"))).ino).toBe(placeholder);
    expect(await showBatch(fourth, journal())).toMatchObject({ state: "committed", files: [fx.at("a.txt")] });
    expect((await listBatches({}, journal())).map((batch) => batch.batchId)).toEqual([third, fourth]);
    await commit((await undoOps(fourth, journal())).ops, fx.meta, limits);
    expect(await fx.text("a.txt")).toBe("3");
  });

  test("no more spares are kept than the limit: beyond it, pruned batches are removed", async () => {
    await fx.put("a.txt", "0");
    const rounds = 2 * SPARE_DIRECTORIES;
    for (let round = 1; round <= rounds; round++) await bump("a.txt", String(round));
    await store().refillSpares();
    // One commit prunes all but itself at once.
    await commit([{ kind: "write", path: fx.at("a.txt"), expectedBefore: sha(String(rounds)), after: Buffer.from("last") }], fx.meta, {
      max_batches: 1,
      max_bytes: 1 << 30,
      max_age_days: 30,
    });
    await store().refillSpares();
    expect((await spares()).length).toBe(SPARE_DIRECTORIES);
    expect((await listBatches({}, journal())).length).toBe(1);
    expect(await journalEntries(fx.stateDir)).toHaveLength(1);
  });

  test("a commit without the writes service's journal stores keeps no spares (they would outlive it unused)", async () => {
    await fx.put("a.txt", "one");
    await commitBatch([{ kind: "write", path: fx.at("a.txt"), expectedBefore: sha("one"), after: Buffer.from("two") }], fx.meta, { stateDir: fx.stateDir });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await spares()).toEqual([]);
    expect(await fx.text("a.txt")).toBe("two");
  });

  test("a spare removed behind the process's back is skipped", async () => {
    await fx.put("a.txt", "one");
    await bump("a.txt", "two");
    await store().refillSpares();
    for (const name of await spares()) await rm(path.join(journalDir(), name), { recursive: true });
    const batch = await bump("a.txt", "three");
    expect(await fx.text("a.txt")).toBe("three");
    expect((await readdir(path.join(journalDir(), batch.batchId))).sort()).toEqual(["0.img", "committed.json"]);
  });
});

describe("before-images", () => {
  const imageFile = (batchId: string, index: number) => path.join(fx.stateDir, "journal", batchId, `${index}.img`);

  test("a file with no other name is kept by a hard link: its old inode, nothing copied", async () => {
    await fx.put("a.txt", "old");
    const inode = (await stat(fx.at("a.txt"))).ino;
    const batch = await bump("a.txt", "new");
    const image = await stat(imageFile(batch.batchId, 0));
    expect(image.ino).toBe(inode);
    expect(image.nlink).toBe(1);
    expect((await stat(fx.at("a.txt"))).ino).not.toBe(inode);
    await commit((await undoOps(batch.batchId, journal())).ops);
    expect(await fx.text("a.txt")).toBe("old");
  });

  test("a file with another name is copied, so a change through that name cannot reach the image", async () => {
    await fx.put("a.txt", "old");
    const outside = path.join(fx.base, "other-name.txt");
    await link(fx.at("a.txt"), outside);
    const batch = await bump("a.txt", "new");
    expect((await stat(imageFile(batch.batchId, 0))).ino).not.toBe((await stat(outside)).ino);
    await writeFile(outside, "changed through the other name");
    await commit((await undoOps(batch.batchId, journal())).ops);
    expect(await fx.text("a.txt")).toBe("old");
  });

  test("an image changed in place after the commit is refused, never restored", async () => {
    await fx.put("a.txt", "old");
    const batch = await bump("a.txt", "new");
    // A writer holding the old inode open keeps writing to it.
    await writeFile(imageFile(batch.batchId, 0), "tampered");
    const error = await undoOps(batch.batchId, journal()).catch((caught: unknown) => caught);
    expect((error as ToolError).code).toBe("io_error");
    expect((error as ToolError).message).toContain("damaged");
    expect(await fx.text("a.txt")).toBe("new");
  });

  test("a batch of the first record format (images in an images/ folder) is still undone", async () => {
    await fx.put("a.txt", "old");
    const batch = await bump("a.txt", "new");
    const dir = path.join(fx.stateDir, "journal", batch.batchId);
    await mkdir(path.join(dir, "images"));
    await rename(imageFile(batch.batchId, 0), path.join(dir, "images", "0"));
    const record = JSON.parse(await readFile(path.join(dir, "committed.json"), "utf8")) as { format: number };
    record.format = 1;
    await writeFile(path.join(dir, "committed.json"), JSON.stringify(record));
    await commit((await undoOps(batch.batchId, journal())).ops);
    expect(await fx.text("a.txt")).toBe("old");
  });

  test("a committed batch keeps only its record, renamed to committed.json when it committed, and its images", async () => {
    await fx.put("a.txt", "old");
    const batch = await bump("a.txt", "new");
    const dir = path.join(fx.stateDir, "journal", batch.batchId);
    expect((await readdir(dir)).sort()).toEqual(["0.img", "committed.json"]);
    // Written as prepared, committed by its name.
    expect(JSON.parse(await readFile(path.join(dir, "committed.json"), "utf8")).state).toBe("prepared");
    expect(await showBatch(batch.batchId, journal())).toMatchObject({ state: "committed" });
    expect((await showBatch(batch.batchId, journal())).committedAt).toBe((await showBatch(batch.batchId, journal())).createdAt);
  });

  test("a batch an older writer committed (its committed record renamed onto batch.json) is still read and undone", async () => {
    await fx.put("a.txt", "old");
    const batch = await bump("a.txt", "new");
    const dir = path.join(fx.stateDir, "journal", batch.batchId);
    const record = JSON.parse(await readFile(path.join(dir, "committed.json"), "utf8"));
    await writeFile(path.join(dir, "batch.json"), JSON.stringify({ ...record, state: "committed", committedAt: record.createdAt }));
    await rm(path.join(dir, "committed.json"));
    expect(await showBatch(batch.batchId, journal())).toMatchObject({ state: "committed" });
    await commit((await undoOps(batch.batchId, journal())).ops);
    expect(await fx.text("a.txt")).toBe("old");
  });
});
