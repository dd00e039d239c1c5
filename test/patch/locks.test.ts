import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, readdir, stat, symlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../../src/core/errors.ts";
import { commitBatch } from "../../src/patch/commit.ts";
import { undoOps } from "../../src/patch/journal.ts";
import { LOCK_ENTRY_PATTERN, LOCK_TUNING, lockEntryPath, withPathLocks } from "../../src/patch/locks.ts";
import { currentProcess } from "../../src/patch/process-identity.ts";
import { type CommitFixture, deadIdentity, exited, makeCommitFixture, sha, snapshot, spawnChild, waitForLine } from "./commit-fixture.ts";

let fx: CommitFixture;
beforeEach(async () => {
  fx = await makeCommitFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Entries of the commit machinery (lock entries, staged files) anywhere under `dir`. */
async function machineryEntries(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).filter((entry) => path.basename(entry).startsWith(".ast-mcp-"));
}

function entryOf(relative: string): string {
  return lockEntryPath(path.dirname(fx.at(relative)), path.basename(relative));
}

async function plantLock(relative: string, record: unknown): Promise<string> {
  const entry = entryOf(relative);
  await writeFile(entry, typeof record === "string" ? record : JSON.stringify(record));
  return entry;
}

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  const caught = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(caught).toBeInstanceOf(ToolError);
  return caught as ToolError;
}

describe("in-process locks", () => {
  test("holders of the same path run one at a time, in arrival order", async () => {
    const order: string[] = [];
    const target = fx.at("a.txt");
    const run = (name: string) =>
      withPathLocks([target], async () => {
        order.push(`${name}+`);
        await delay(10);
        order.push(`${name}-`);
      }, { stateDir: fx.stateDir });
    await Promise.all([run("one"), run("two"), run("three")]);
    expect(order).toEqual(["one+", "one-", "two+", "two-", "three+", "three-"]);
  });

  test("two batches over the same two paths in opposite order both complete", async () => {
    const a = fx.at("a.txt");
    const b = fx.at("b.txt");
    await fx.put("a.txt", "0");
    await fx.put("b.txt", "0");
    const swap = async (first: string, second: string, rounds: number) => {
      for (let i = 0; i < rounds; i += 1) {
        for (;;) {
          const current = [await fx.text(path.basename(first)), await fx.text(path.basename(second))] as [string, string];
          try {
            await commitBatch(
              [
                { kind: "write", path: first, expectedBefore: sha(current[0]), after: Buffer.from(String(Number(current[0]) + 1)) },
                { kind: "write", path: second, expectedBefore: sha(current[1]), after: Buffer.from(String(Number(current[1]) + 1)) },
              ],
              fx.meta,
              { stateDir: fx.stateDir, lockTimeoutMs: 5_000 },
            );
            break;
          } catch (error) {
            if (!(error instanceof ToolError) || error.code !== "stale_hash") throw error;
          }
        }
      }
    };
    await Promise.all([swap(a, b, 15), swap(b, a, 15)]);
    expect([await fx.text("a.txt"), await fx.text("b.txt")]).toEqual(["30", "30"]);
    expect(await machineryEntries(fx.root)).toEqual([]);
  });

  test("a waiter gives up with lock_timeout (retryable) when the holder keeps the lock", async () => {
    const target = fx.at("a.txt");
    let release!: () => void;
    const holding = withPathLocks([target], () => new Promise<void>((resolve) => (release = resolve)), { stateDir: fx.stateDir });
    await delay(5);
    const started = Date.now();
    const error = await failure(withPathLocks([target], async () => "never", { stateDir: fx.stateDir, timeoutMs: 150 }));
    expect(error.code).toBe("lock_timeout");
    expect(error.retryable).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    release();
    await holding;
    expect(await withPathLocks([target], async () => "free", { stateDir: fx.stateDir, timeoutMs: 150 })).toBe("free");
  });

  test("locks are released when the function throws, and no entry is left", async () => {
    const target = fx.at("a.txt");
    await expect(withPathLocks([target], async () => Promise.reject(new Error("boom")), { stateDir: fx.stateDir })).rejects.toThrow("boom");
    expect(await readdir(fx.root)).toEqual([]);
    expect(await withPathLocks([target], async () => 1, { stateDir: fx.stateDir, timeoutMs: 100 })).toBe(1);
  });
});

describe("lock entries beside the target", () => {
  test("the entry lives in the target's directory, holds the owner record, and goes with the release", async () => {
    const target = fx.at("a.txt");
    const entry = entryOf("a.txt");
    expect(path.dirname(entry)).toBe(fx.root);
    expect(path.basename(entry)).toMatch(LOCK_ENTRY_PATTERN);
    await withPathLocks([target], async () => {
      const owner = JSON.parse(await readFile(entry, "utf8")) as Record<string, unknown>;
      expect(owner).toMatchObject({ pid: process.pid, host: currentProcess().host, startTime: currentProcess().startTime });
      expect(typeof owner.token).toBe("string");
      expect(await readdir(fx.root)).toEqual([path.basename(entry)]);
    }, { stateDir: fx.stateDir });
    expect(await readdir(fx.root)).toEqual([]);
  });

  test("a normal commit leaves the root byte-identical apart from the committed change, and nothing in the state directory's old locks place", async () => {
    await fx.put("dir/a.txt", "a");
    await fx.put("dir/b.txt", "b");
    const before = await snapshot(fx.root);
    await commitBatch([{ kind: "write", path: fx.at("dir/a.txt"), expectedBefore: sha("a"), after: Buffer.from("A") }], fx.meta, { stateDir: fx.stateDir });
    const after = await snapshot(fx.root);
    expect(after).toEqual({ ...before, "dir/a.txt": after["dir/a.txt"] as string });
    expect(after["dir/a.txt"]).toContain(sha("A"));
    expect(existsSync(path.join(fx.stateDir, "locks"))).toBe(false);
  });

  test("a lock held by another live process is not stolen: the waiter times out and the entry stays as it was", async () => {
    const target = fx.at("a.txt");
    const holder = spawnChild("hold-lock.ts", [fx.stateDir, target]);
    try {
      await waitForLine(holder, (line) => line === "locked");
      const entry = entryOf("a.txt");
      const record = await readFile(entry, "utf8");
      const error = await failure(withPathLocks([target], async () => "never", { stateDir: fx.stateDir, timeoutMs: 300 }));
      expect(error.code).toBe("lock_timeout");
      expect(error.retryable).toBe(true);
      expect(error.message).toContain(`process ${holder.pid}`);
      expect(error.details).toEqual({ path: target });
      expect(await readFile(entry, "utf8")).toBe(record);
      expect(await readdir(fx.root)).toEqual([path.basename(entry)]);
    } finally {
      holder.kill("SIGKILL");
      await exited(holder);
    }
  });

  test("a lock left by a killed process is recovered at once by the next writer", async () => {
    const target = fx.at("a.txt");
    const holder = spawnChild("hold-lock.ts", [fx.stateDir, target]);
    await waitForLine(holder, (line) => line === "locked");
    holder.kill("SIGKILL");
    await exited(holder);
    // The dead holder's entry is still on disk, but it names a process that is gone.
    expect(existsSync(entryOf("a.txt"))).toBe(true);
    const started = Date.now();
    expect(await withPathLocks([target], async () => "taken", { stateDir: fx.stateDir, timeoutMs: 5_000 })).toBe("taken");
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await readdir(fx.root)).toEqual([]);
  });

  test("a process that exits while holding a lock removes its entry", async () => {
    const holder = spawnChild("hold-lock.ts", [fx.stateDir, fx.at("a.txt")]);
    await waitForLine(holder, (line) => line === "locked");
    expect(existsSync(entryOf("a.txt"))).toBe(true);
    holder.kill("SIGUSR2");
    expect((await exited(holder)).code).toBe(0);
    expect(await readdir(fx.root)).toEqual([]);
  });

  test("an entry whose pid now names another process (a different start time) is recovered", async () => {
    // Our parent is alive, but its start time is not "1": the pid was reused.
    const entry = await plantLock("a.txt", { pid: process.ppid, startTime: "1", host: currentProcess().host, token: "old", path: fx.at("a.txt") });
    expect(await withPathLocks([fx.at("a.txt")], async () => JSON.parse(await readFile(entry, "utf8")).pid, { stateDir: fx.stateDir, timeoutMs: 1_000 })).toBe(process.pid);
  });

  test("an entry of a dead writer is recovered; one of a live process (with its real start time) is not", async () => {
    await plantLock("dead.txt", { ...(await deadIdentity()), token: "dead", path: fx.at("dead.txt") });
    expect(await withPathLocks([fx.at("dead.txt")], async () => "taken", { stateDir: fx.stateDir, timeoutMs: 1_000 })).toBe("taken");
    const parent = process.ppid;
    const startTime = (await readFile(`/proc/${parent}/stat`, "utf8").catch(() => "")).split(") ")[1]?.split(" ")[19] ?? null;
    const live = await plantLock("live.txt", { pid: parent, startTime, host: currentProcess().host, token: "live", path: fx.at("live.txt") });
    expect((await failure(withPathLocks([fx.at("live.txt")], async () => "stolen", { stateDir: fx.stateDir, timeoutMs: 200 }))).code).toBe("lock_timeout");
    expect(JSON.parse(await readFile(live, "utf8")).token).toBe("live");
  });

  test("an entry without a readable record is waited on while young, recovered once older than the grace", async () => {
    const entry = await plantLock("a.txt", "");
    expect((await failure(withPathLocks([fx.at("a.txt")], async () => "stolen", { stateDir: fx.stateDir, timeoutMs: 200 }))).code).toBe("lock_timeout");
    const old = new Date(Date.now() - LOCK_TUNING.unreadableGraceMs - 1_000);
    await utimes(entry, old, old);
    expect(await withPathLocks([fx.at("a.txt")], async () => "taken", { stateDir: fx.stateDir, timeoutMs: 1_000 })).toBe("taken");
    expect(await readdir(fx.root)).toEqual([]);
  });

  test("an entry of a writer on another host is stale only when its mtime is older than the stale time", async () => {
    const entry = await plantLock("a.txt", { pid: 4242, startTime: null, host: `not-${currentProcess().host}`, token: "remote", path: fx.at("a.txt") });
    expect((await failure(withPathLocks([fx.at("a.txt")], async () => "stolen", { stateDir: fx.stateDir, timeoutMs: 200 }))).code).toBe("lock_timeout");
    const old = new Date(Date.now() - LOCK_TUNING.staleMs - 1_000);
    await utimes(entry, old, old);
    expect(await withPathLocks([fx.at("a.txt")], async () => "taken", { stateDir: fx.stateDir, timeoutMs: 1_000 })).toBe("taken");
  });

  test("processes recovering one stale lock at once hold it one at a time", async () => {
    await plantLock("a.txt", { ...(await deadIdentity()), token: "dead", path: fx.at("a.txt") });
    const logFile = path.join(fx.base, "log.txt");
    await writeFile(logFile, "");
    const startAt = String(Date.now() + 1_500);
    const children = Array.from({ length: 4 }, () => spawnChild("lock-and-log.ts", [fx.stateDir, fx.at("a.txt"), logFile, "25", startAt]));
    const codes = await Promise.all(children.map(async (child) => (await exited(child)).code));
    expect(codes).toEqual([0, 0, 0, 0]);
    const lines = (await readFile(logFile, "utf8")).trim().split("\n");
    expect(lines.length).toBe(4 * 25 * 2);
    for (let index = 0; index < lines.length; index += 2) {
      const entered = lines[index] as string;
      expect(entered.startsWith("+")).toBe(true);
      expect(lines[index + 1]).toBe(`-${entered.slice(1)}`);
    }
    expect(await readdir(fx.root)).toEqual([]);
  }, 60_000);

  test("a lock whose entry was replaced meanwhile is lost: assertHeld refuses, and the release leaves the replacement alone", async () => {
    const entry = entryOf("a.txt");
    const error = await failure(
      withPathLocks([fx.at("a.txt")], async (held) => {
        held.assertHeld();
        // As if another writer had judged the lock stale and taken it.
        await writeFile(`${entry}.other`, "someone else's");
        const { rename } = await import("node:fs/promises");
        await rename(`${entry}.other`, entry);
        held.assertHeld();
      }, { stateDir: fx.stateDir }),
    );
    expect(error.code).toBe("lock_timeout");
    expect(error.message).toContain("was lost");
    expect(await readFile(entry, "utf8")).toBe("someone else's");
  });

  test("a link planted under the entry's name is never followed", async () => {
    const outside = path.join(fx.base, "outside.txt");
    await writeFile(outside, "outside");
    await symlink(outside, entryOf("a.txt"));
    expect((await failure(withPathLocks([fx.at("a.txt")], async () => "taken", { stateDir: fx.stateDir, timeoutMs: 200 }))).code).toBe("lock_timeout");
    expect(await readFile(outside, "utf8")).toBe("outside");
  });

  test("a target whose directory is missing is refused with file_not_found, creating nothing", async () => {
    const error = await failure(withPathLocks([fx.at("no/such/a.txt")], async () => "never", { stateDir: fx.stateDir }));
    expect(error.code).toBe("file_not_found");
    expect(await readdir(fx.root)).toEqual([]);
  });

  test("a directory the writer cannot write in is refused with a clear io_error, not retryable", async () => {
    const dir = fx.at("locked");
    await fx.put("locked/a.txt", "a");
    await chmod(dir, 0o555);
    let immutable = false;
    try {
      // chmod alone does not stop root; the immutable flag does, where the file system supports it.
      if (process.getuid?.() === 0) {
        execFileSync("chattr", ["+i", dir], { stdio: "ignore" });
        immutable = true;
      }
    } catch {
      // No chattr here: probed below.
    }
    try {
      const writable = await writeFile(path.join(dir, "probe"), "").then(
        () => true,
        () => false,
      );
      if (writable) {
        console.warn("skipped: this user can write in a read-only directory here");
        return;
      }
      const error = await failure(
        commitBatch([{ kind: "write", path: fx.at("locked/a.txt"), expectedBefore: sha("a"), after: Buffer.from("A") }], fx.meta, { stateDir: fx.stateDir }),
      );
      expect(error.code).toBe("io_error");
      expect(error.retryable).toBe(false);
      expect(error.message).toContain(`Cannot write in the directory ${dir}`);
      expect(error.hint).toContain("write permission on the file's directory");
      expect(await fx.text("locked/a.txt")).toBe("a");
    } finally {
      if (immutable) execFileSync("chattr", ["-i", dir], { stdio: "ignore" });
      await chmod(dir, 0o755);
    }
  });
});

describe("commits and the directories of lock entries", () => {
  test("a write into new directories (made for its lock entry) journals them: its undo removes them, and no entry is left", async () => {
    const target = fx.at("new/deep/a.txt");
    const batch = await commitBatch([{ kind: "write", path: target, expectedBefore: null, after: Buffer.from("a"), mkdirParents: true }], fx.meta, { stateDir: fx.stateDir });
    expect(await fx.text("new/deep/a.txt")).toBe("a");
    expect(await machineryEntries(fx.root)).toEqual([]);
    const undo = await undoOps(batch.batchId, { stateDir: fx.stateDir });
    expect(undo.ops).toEqual([{ kind: "delete", path: target, expectedBefore: sha("a"), removeEmptyParentsUpTo: fx.root }]);
    await commitBatch(undo.ops, fx.meta, { stateDir: fx.stateDir });
    expect(await readdir(fx.root)).toEqual([]);
  });

  test("a refused write into new directories leaves no directory and no entry behind", async () => {
    await mkdir(fx.at("keep"));
    const before = await snapshot(fx.root);
    const error = await failure(
      commitBatch([{ kind: "write", path: fx.at("keep/new/deep/a.txt"), expectedBefore: sha("not there"), after: Buffer.from("a"), mkdirParents: true }], fx.meta, {
        stateDir: fx.stateDir,
      }),
    );
    expect(error.code).toBe("stale_hash");
    expect(await snapshot(fx.root)).toEqual(before);
  });

  test("a write whose parent may not be created is refused before anything is made", async () => {
    const error = await failure(commitBatch([{ kind: "write", path: fx.at("missing/a.txt"), expectedBefore: null, after: Buffer.from("a") }], fx.meta, { stateDir: fx.stateDir }));
    expect(error.code).toBe("file_not_found");
    expect(await readdir(fx.root)).toEqual([]);
  });

  test("the lock entries of a multi-file batch are all gone after it, committed or refused", async () => {
    await fx.put("x/a.txt", "a");
    await fx.put("y/b.txt", "b");
    await commitBatch(
      [
        { kind: "write", path: fx.at("x/a.txt"), expectedBefore: sha("a"), after: Buffer.from("A") },
        { kind: "rename", from: fx.at("y/b.txt"), to: fx.at("z/b.txt"), expectedBefore: sha("b"), mkdirParents: true, removeEmptyParentsUpTo: fx.root },
      ],
      fx.meta,
      { stateDir: fx.stateDir },
    );
    expect(await machineryEntries(fx.root)).toEqual([]);
    expect((await readdir(fx.root)).sort()).toEqual(["x", "z"]);
    const refused = await failure(
      commitBatch(
        [
          { kind: "write", path: fx.at("x/a.txt"), expectedBefore: sha("A"), after: Buffer.from("AA") },
          { kind: "chmod", path: fx.at("z/b.txt"), expectedBefore: sha("stale"), mode: 0o600 },
        ],
        fx.meta,
        { stateDir: fx.stateDir },
      ),
    );
    expect(refused.code).toBe("stale_hash");
    expect(await machineryEntries(fx.root)).toEqual([]);
    expect(await fx.text("x/a.txt")).toBe("A");
    expect((await stat(fx.at("z/b.txt"))).mode & 0o777).not.toBe(0o600);
  });
});
