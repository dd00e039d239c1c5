import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdir, readFile, readdir, rename, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { commitBatch } from "../../src/patch/commit.ts";
import { listBatches, showBatch } from "../../src/patch/journal.ts";
import { withPathLocks } from "../../src/patch/locks.ts";
import { currentProcess } from "../../src/patch/process-identity.ts";
import { recoverJournal } from "../../src/patch/recover.ts";
import { type CommitFixture, deadIdentity, journalEntries, leftoverTemps, makeCommitFixture, runChild, sha, snapshot } from "./commit-fixture.ts";

let fx: CommitFixture;
beforeEach(async () => {
  fx = await makeCommitFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

/** A five-op batch covering every kind; its parent checks are numbered 1..6 (the rename checks two directories). */
async function everyKindBatch() {
  const a = await fx.put("a.txt", "a", 0o640);
  const gone = await fx.put("d/gone.txt", "gone");
  const moved = await fx.put("m.txt", "m");
  const mode = await fx.put("x.sh", "x", 0o644);
  return [
    { kind: "write", path: fx.at("a.txt"), expectedBefore: a, afterBase64: Buffer.from("A").toString("base64") },
    { kind: "write", path: fx.at("new/deep/n.txt"), expectedBefore: null, afterBase64: Buffer.from("n").toString("base64"), mkdirParents: true },
    { kind: "delete", path: fx.at("d/gone.txt"), expectedBefore: gone, removeEmptyParentsUpTo: fx.root },
    { kind: "rename", from: fx.at("m.txt"), to: fx.at("into/m.txt"), expectedBefore: moved, mkdirParents: true },
    { kind: "chmod", path: fx.at("x.sh"), expectedBefore: mode, mode: 0o755 },
  ];
}

async function crashAt(ops: unknown[], dieAtCheck: number): Promise<void> {
  const spec = path.join(fx.base, "spec.json");
  await writeFile(spec, JSON.stringify({ stateDir: fx.stateDir, roots: [fx.root], dieAtCheck, ops }));
  const result = await runChild("die-during-commit.ts", [spec]);
  expect(result.stdout).not.toContain("committed");
}

/** Rewrites a batch's record as one not committed yet: a committed batch's record (committed.json) goes back to batch.json, as it stood before its commit. */
async function rewriteRecord(batchId: string, change: (record: Record<string, unknown>) => void): Promise<void> {
  const dir = path.join(fx.stateDir, "journal", batchId);
  const committed = path.join(dir, "committed.json");
  const file = path.join(dir, "batch.json");
  const record = JSON.parse(await readFile((await readdir(dir)).includes("committed.json") ? committed : file, "utf8")) as Record<string, unknown>;
  change(record);
  await writeFile(file, JSON.stringify(record));
  await rm(committed, { force: true });
}

describe("recovery of a dead writer's batch", () => {
  test("a crash right before any op rolls everything back, whatever the point", async () => {
    const ops = await everyKindBatch();
    const original = await snapshot(fx.root);
    for (const check of [1, 2, 3, 4, 5, 6]) {
      await crashAt(ops, check);
      const report = await recoverJournal({ stateDir: fx.stateDir });
      expect(report.batches.map((batch) => batch.action)).toEqual(["rolled_back"]);
      expect(await snapshot(fx.root)).toEqual(original);
      expect(await leftoverTemps(fx.root)).toEqual([]);
      expect(await listBatches({}, { stateDir: fx.stateDir })).toEqual([]);
      expect(await journalEntries(fx.stateDir)).toEqual([]);
    }
    // The dead writer's locks do not block the next writer.
    const next = await commitBatch([{ kind: "write", path: fx.at("a.txt"), expectedBefore: sha("a"), after: Buffer.from("next") }], fx.meta, {
      stateDir: fx.stateDir,
      lockTimeoutMs: 1_000,
    });
    expect(next.files[0]?.after).toBe(sha("next"));
  });

  test("a batch whose ops all landed before the crash is rolled forward", async () => {
    const a = await fx.put("a.txt", "a");
    const gone = await fx.put("d/e/gone.txt", "gone");
    const batch = await commitBatch(
      [
        { kind: "write", path: fx.at("a.txt"), expectedBefore: a, after: Buffer.from("A") },
        { kind: "delete", path: fx.at("d/e/gone.txt"), expectedBefore: gone, removeEmptyParentsUpTo: fx.root },
      ],
      fx.meta,
      { stateDir: fx.stateDir },
    );
    const writer = await deadIdentity();
    // As if the writer died right before its record was renamed to committed.json; an older writer
    // would have left its commit mark (prepared beside the record) too.
    const batchDir = path.join(fx.stateDir, "journal", batch.batchId);
    await writeFile(path.join(batchDir, "batch.committed.json"), await readFile(path.join(batchDir, "committed.json")));
    await rewriteRecord(batch.batchId, (record) => {
      record.state = "prepared";
      record.committedAt = null;
      record.writer = writer;
    });
    const after = await snapshot(fx.root);
    const report = await recoverJournal({ stateDir: fx.stateDir });
    expect(report.batches).toEqual([{ id: batch.batchId, action: "rolled_forward", files: [fx.at("a.txt"), fx.at("d/e/gone.txt")], conflicts: [] }]);
    expect(await snapshot(fx.root)).toEqual(after);
    const [listed] = await listBatches({}, { stateDir: fx.stateDir });
    expect(listed?.state).toBe("committed");
    // Recovery wrote its own record; the dead writer's commit mark is gone.
    expect((await readdir(batchDir)).sort()).toEqual(["0.img", "1.img", "batch.json"]);
    expect((await showBatch(batch.batchId, { stateDir: fx.stateDir })).recovery?.action).toBe("rolled_forward");
  });

  test("a file changed by someone else after the crash is left alone and reported; the rest is rolled back", async () => {
    const ops = await everyKindBatch();
    const original = await snapshot(fx.root);
    await crashAt(ops, 4);
    await writeFile(fx.at("a.txt"), "someone else");
    const report = await recoverJournal({ stateDir: fx.stateDir });
    expect(report.batches).toHaveLength(1);
    expect(report.batches[0]?.action).toBe("conflict");
    expect(report.batches[0]?.conflicts.map((entry) => entry.path)).toEqual([fx.at("a.txt")]);
    const now = await snapshot(fx.root);
    expect(await fx.text("a.txt")).toBe("someone else");
    const restored: Record<string, string> = { ...now, "a.txt": original["a.txt"] as string };
    expect(restored).toEqual(original);
    const [listed] = await listBatches({}, { stateDir: fx.stateDir });
    expect(listed?.state).toBe("conflict");
    // A second run does not touch it again.
    expect((await recoverJournal({ stateDir: fx.stateDir })).batches).toEqual([]);
  });

  test("directories of a half-created parent chain are removed on rollback", async () => {
    const batch = await commitBatch([{ kind: "write", path: fx.at("x/y/n.txt"), expectedBefore: null, after: Buffer.from("n"), mkdirParents: true }], fx.meta, {
      stateDir: fx.stateDir,
    });
    const writer = await deadIdentity();
    await rewriteRecord(batch.batchId, (record) => {
      record.state = "prepared";
      record.writer = writer;
    });
    // As if the writer died after creating x/ but before x/y/.
    await rm(fx.at("x/y"), { recursive: true });
    const report = await recoverJournal({ stateDir: fx.stateDir });
    expect(report.batches.map((entry) => entry.action)).toEqual(["rolled_back"]);
    expect(await readdir(fx.root)).toEqual([]);
  });

  test("a removed parent replaced by a symlink is not written through when rolling back", async () => {
    const gone = await fx.put("a/b/c.txt", "c");
    const stays = await fx.put("z.txt", "z");
    const batch = await commitBatch(
      [
        { kind: "delete", path: fx.at("a/b/c.txt"), expectedBefore: gone, removeEmptyParentsUpTo: fx.root },
        { kind: "write", path: fx.at("z.txt"), expectedBefore: stays, after: Buffer.from("Z") },
      ],
      fx.meta,
      { stateDir: fx.stateDir },
    );
    const writer = await deadIdentity();
    await rewriteRecord(batch.batchId, (record) => {
      record.state = "prepared";
      record.writer = writer;
    });
    // After the crash, a/ (removed as empty) reappears as a symlink to a directory outside the root.
    const elsewhere = path.join(fx.base, "elsewhere");
    await mkdir(elsewhere);
    await writeFile(fx.at("z.txt"), "z");
    await symlink(elsewhere, fx.at("a"));
    const report = await recoverJournal({ stateDir: fx.stateDir });
    expect(report.batches[0]?.action).toBe("conflict");
    expect(report.batches[0]?.conflicts.map((entry) => entry.path)).toEqual([fx.at("a/b/c.txt")]);
    expect(await readdir(elsewhere)).toEqual([]);
  });

  test("a recorded parent that is now a symlink is refused, never followed, and left for a later recovery", async () => {
    const before = await fx.put("d/x.txt", "old");
    const batch = await commitBatch([{ kind: "write", path: fx.at("d/x.txt"), expectedBefore: before, after: Buffer.from("new") }], fx.meta, { stateDir: fx.stateDir });
    const writer = await deadIdentity();
    await rewriteRecord(batch.batchId, (record) => {
      record.state = "prepared";
      record.writer = writer;
    });
    // After the crash d/ is moved aside and a link to an outside directory holding x.txt ("new") takes its name.
    const elsewhere = path.join(fx.base, "elsewhere");
    await mkdir(elsewhere);
    await writeFile(path.join(elsewhere, "x.txt"), "new");
    await rename(fx.at("d"), fx.at("d-aside"));
    await symlink(elsewhere, fx.at("d"));
    const report = await recoverJournal({ stateDir: fx.stateDir });
    expect(report.batches[0]?.action).toBe("conflict");
    expect(report.batches[0]?.conflicts.map((entry) => entry.path)).toEqual([fx.at("d/x.txt")]);
    expect(JSON.stringify(report)).not.toContain("/proc/");
    expect(await readFile(path.join(elsewhere, "x.txt"), "utf8")).toBe("new");
    expect((await readdir(elsewhere)).sort()).toEqual(["x.txt"]);
    expect(await readFile(fx.at("d-aside/x.txt"), "utf8")).toBe("new");
  });

  test("journal directories a dead process left half-created, half-deleted or spare are removed; a live one's are not", async () => {
    const dead = await deadIdentity();
    const journalDir = path.join(fx.stateDir, "journal");
    const id = "20260101T000000000Z-0123456789";
    const deadDebris = [`.${id}.${dead.pid}-aa.new`, `.${id}.${dead.pid}-bb.gone`, `.spare.${dead.pid}-dd`];
    const liveDebris = [`.${id}.${process.pid}-cc.new`, `.spare.${process.pid}-ee`];
    for (const name of [...deadDebris, ...liveDebris]) await mkdir(path.join(journalDir, name, "images"), { recursive: true });
    const report = await recoverJournal({ stateDir: fx.stateDir });
    expect(report.debrisRemoved).toBe(3);
    expect((await readdir(journalDir)).sort()).toEqual(liveDebris.sort());
  });

  test("a batch of a live writer is left to it; one still being prepared by a dead writer is discarded", async () => {
    const a = await fx.put("a.txt", "a");
    const batch = await commitBatch([{ kind: "write", path: fx.at("a.txt"), expectedBefore: a, after: Buffer.from("A") }], fx.meta, { stateDir: fx.stateDir });
    await rewriteRecord(batch.batchId, (record) => {
      record.state = "prepared";
      record.writer = currentProcess();
    });
    expect((await recoverJournal({ stateDir: fx.stateDir })).batches).toEqual([]);
    const writer = await deadIdentity();
    await rewriteRecord(batch.batchId, (record) => {
      record.state = "preparing";
      record.writer = writer;
    });
    const report = await recoverJournal({ stateDir: fx.stateDir });
    expect(report.batches.map((entry) => entry.action)).toEqual(["discarded"]);
    expect(await journalEntries(fx.stateDir)).toEqual([]);
    expect(await fx.text("a.txt")).toBe("A");
  });

  test("a batch its writer failed to roll back is recovered even while that writer lives", async () => {
    const a = await fx.put("a.txt", "a");
    const batch = await commitBatch([{ kind: "write", path: fx.at("a.txt"), expectedBefore: a, after: Buffer.from("A") }], fx.meta, { stateDir: fx.stateDir });
    await rewriteRecord(batch.batchId, (record) => {
      record.state = "failed";
      record.writer = currentProcess();
    });
    const report = await recoverJournal({ stateDir: fx.stateDir });
    expect(report.batches.map((entry) => entry.action)).toEqual(["rolled_back"]);
    expect(await fx.text("a.txt")).toBe("a");
  });

  test("a batch whose files are locked by a live writer is skipped, not waited on forever", async () => {
    const ops = await everyKindBatch();
    await crashAt(ops, 2);
    let release!: () => void;
    const holding = withPathLocks([fx.at("a.txt")], () => new Promise<void>((resolve) => (release = resolve)), { stateDir: fx.stateDir });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const report = await recoverJournal({ stateDir: fx.stateDir, lockTimeoutMs: 200 });
    expect(report.batches.map((entry) => entry.action)).toEqual(["skipped"]);
    expect(report.batches[0]?.reason).toContain("Another writer holds");
    release();
    await holding;
    expect((await recoverJournal({ stateDir: fx.stateDir })).batches.map((entry) => entry.action)).toEqual(["rolled_back"]);
  });
});
