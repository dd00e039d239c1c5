import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFile, readdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../../src/core/errors.ts";
import { existsSync } from "node:fs";
import { cleanLockLeftovers, lockDirectoryFor, settleLockReleases, withPathLocks } from "../../src/patch/locks.ts";
import { commitBatch } from "../../src/patch/commit.ts";
import { type CommitFixture, exited, makeCommitFixture, sha, spawnChild, waitForLine } from "./commit-fixture.ts";

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
  });

  test("a waiter gives up with lock_timeout (retryable) when the holder keeps the lock", async () => {
    const target = fx.at("a.txt");
    let release!: () => void;
    const holding = withPathLocks([target], () => new Promise<void>((resolve) => (release = resolve)), { stateDir: fx.stateDir });
    await delay(5);
    const started = Date.now();
    const error = await withPathLocks([target], async () => "never", { stateDir: fx.stateDir, timeoutMs: 150 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe("lock_timeout");
    expect((error as ToolError).retryable).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    release();
    await holding;
    expect(await withPathLocks([target], async () => "free", { stateDir: fx.stateDir, timeoutMs: 150 })).toBe("free");
  });

  test("locks are released when the function throws", async () => {
    const target = fx.at("a.txt");
    await expect(withPathLocks([target], async () => Promise.reject(new Error("boom")), { stateDir: fx.stateDir })).rejects.toThrow("boom");
    expect(await withPathLocks([target], async () => 1, { stateDir: fx.stateDir, timeoutMs: 100 })).toBe(1);
    // No lock is left; released lock directories may stay as this process's spares (debris names).
    expect((await readdir(path.join(fx.stateDir, "locks"))).filter((name) => name.endsWith(".lock"))).toEqual([]);
  });

  test("with releaseAfterAnswer the result comes before the release, which follows on the next turn", async () => {
    const target = fx.at("a.txt");
    const lockFiles = async () => (await readdir(path.join(fx.stateDir, "locks"))).filter((name) => name.endsWith(".lock"));
    expect(await withPathLocks([target], async () => "done", { stateDir: fx.stateDir, releaseAfterAnswer: true })).toBe("done");
    // Answered, and the cross-process lock is still held.
    expect(existsSync(lockDirectoryFor(fx.stateDir, target))).toBe(true);
    // A writer in this process queues behind the release.
    const next = withPathLocks([target], async () => "next", { stateDir: fx.stateDir, timeoutMs: 1_000 });
    await settleLockReleases();
    expect(await next).toBe("next");
    expect(await lockFiles()).toEqual([]);
    // A failure still releases before it is thrown.
    await expect(withPathLocks([target], async () => Promise.reject(new Error("boom")), { stateDir: fx.stateDir, releaseAfterAnswer: true })).rejects.toThrow("boom");
    expect(await lockFiles()).toEqual([]);
  });
});

describe("cross-process locks", () => {
  test("a released lock directory is reused for the next lock with a fresh mtime and the new owner", async () => {
    await withPathLocks([fx.at("a.txt")], async () => {}, { stateDir: fx.stateDir });
    const locksDir = path.join(fx.stateDir, "locks");
    const spares = (await readdir(locksDir)).filter((name) => name.includes(`.lock.${process.pid}-`));
    expect(spares.length).toBe(1);
    // An old mtime would make the reused lock look stale to other processes at once.
    const old = new Date(Date.now() - 3_600_000);
    await utimes(path.join(locksDir, spares[0] as string), old, old);
    await withPathLocks([fx.at("b.txt")], async () => {
      const lockDir = lockDirectoryFor(fx.stateDir, fx.at("b.txt"));
      expect((await stat(lockDir)).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
      const owner = JSON.parse(await readFile(path.join(lockDir, "owner.json"), "utf8")) as { pid: number; path: string };
      expect(owner).toMatchObject({ pid: process.pid, path: fx.at("b.txt") });
      expect((await readdir(locksDir)).filter((name) => name.includes(`.lock.${process.pid}-`))).toEqual([]);
    }, { stateDir: fx.stateDir });
  });

  test("a release leaves alone a lock another writer took over meanwhile (another token in its record)", async () => {
    const lockDir = lockDirectoryFor(fx.stateDir, fx.at("a.txt"));
    const record = path.join(lockDir, "owner.json");
    const foreign = await withPathLocks([fx.at("a.txt")], async () => {
      // As if another writer had judged the lock stale and taken it: same directory, its own record.
      const taken = { ...JSON.parse(await readFile(record, "utf8")), token: "someone-else" };
      await writeFile(record, JSON.stringify(taken));
      return JSON.stringify(taken);
    }, { stateDir: fx.stateDir });
    expect(await readFile(record, "utf8")).toBe(foreign);
    expect((await readdir(path.join(fx.stateDir, "locks"))).filter((name) => name.includes(`.lock.${process.pid}-`))).toEqual([]);
    await rm(lockDir, { recursive: true });
  });

  test("locking the same path again reuses its spare without rewriting the owner record; another path gets a new record and token", async () => {
    const locksDir = path.join(fx.stateDir, "locks");
    const ownerOf = async (file: string) => {
      const lockDir = lockDirectoryFor(fx.stateDir, fx.at(file));
      const record = path.join(lockDir, "owner.json");
      return { text: await readFile(record, "utf8"), inode: (await stat(record)).ino, mtimeMs: (await stat(record)).mtimeMs, dirMtimeMs: (await stat(lockDir)).mtimeMs };
    };
    const first = await withPathLocks([fx.at("a.txt")], () => ownerOf("a.txt"), { stateDir: fx.stateDir });
    // An old mtime on the spare: the reuse must refresh the directory's, even with nothing to write.
    const spare = (await readdir(locksDir)).find((name) => name.includes(`.lock.${process.pid}-`)) as string;
    const old = new Date(Date.now() - 3_600_000);
    await utimes(path.join(locksDir, spare), old, old);
    await utimes(path.join(locksDir, spare, "owner.json"), old, old);
    const again = await withPathLocks([fx.at("a.txt")], () => ownerOf("a.txt"), { stateDir: fx.stateDir });
    expect(again.text).toBe(first.text);
    expect(again.inode).toBe(first.inode);
    // Not rewritten: the record keeps the old mtime given above; the directory's is fresh.
    expect(again.mtimeMs).toBe(old.getTime());
    expect(again.dirMtimeMs).toBeGreaterThan(Date.now() - 60_000);
    const other = await withPathLocks([fx.at("b.txt")], () => ownerOf("b.txt"), { stateDir: fx.stateDir });
    const [a, b] = [JSON.parse(first.text), JSON.parse(other.text)] as Array<{ token: string; path: string }>;
    expect(b?.path).toBe(fx.at("b.txt"));
    expect(b?.token).not.toBe(a?.token);
  });

  test("a spare removed behind the process's back does not break the next lock", async () => {
    await withPathLocks([fx.at("a.txt")], async () => {}, { stateDir: fx.stateDir });
    const locksDir = path.join(fx.stateDir, "locks");
    for (const name of await readdir(locksDir)) await rm(path.join(locksDir, name), { recursive: true });
    expect(await withPathLocks([fx.at("b.txt")], async () => "locked", { stateDir: fx.stateDir })).toBe("locked");
  });

  test("lock files live in the state directory, named by a hash of the path, never beside the file", async () => {
    const target = fx.at("a.txt");
    await withPathLocks([target], async () => {
      const lockDir = lockDirectoryFor(fx.stateDir, target);
      expect(path.dirname(lockDir)).toBe(path.join(fx.stateDir, "locks"));
      expect(path.basename(lockDir)).toMatch(/^[0-9a-f]{64}\.lock$/);
      expect((await stat(lockDir)).isDirectory()).toBe(true);
      expect(await readdir(fx.root)).toEqual([]);
    }, { stateDir: fx.stateDir });
  });

  test("a lock held by another process times out; once that process is killed the lock is taken at once", async () => {
    const target = fx.at("a.txt");
    const holder = spawnChild("hold-lock.ts", [fx.stateDir, target]);
    try {
      await waitForLine(holder, (line) => line === "locked");
      const error = await withPathLocks([target], async () => "never", { stateDir: fx.stateDir, timeoutMs: 300 }).catch((caught: unknown) => caught);
      expect((error as ToolError).code).toBe("lock_timeout");
      expect((error as ToolError).details).toEqual({ path: target });
    } finally {
      holder.kill("SIGKILL");
      await exited(holder);
    }
    // The dead holder's lock is still on disk, but it names a process that is gone.
    const started = Date.now();
    expect(await withPathLocks([target], async () => "taken", { stateDir: fx.stateDir, timeoutMs: 2_000 })).toBe("taken");
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  test("cleanLockLeftovers removes the locks of dead holders and keeps live ones", async () => {
    const dead = fx.at("dead.txt");
    const live = fx.at("live.txt");
    const holder = spawnChild("hold-lock.ts", [fx.stateDir, dead]);
    await waitForLine(holder, (line) => line === "locked");
    holder.kill("SIGKILL");
    await exited(holder);
    let release!: () => void;
    const holding = withPathLocks([live], () => new Promise<void>((resolve) => (release = resolve)), { stateDir: fx.stateDir });
    await delay(20);
    expect(await cleanLockLeftovers(fx.stateDir)).toBe(1);
    expect(await readdir(path.join(fx.stateDir, "locks"))).toEqual([path.basename(lockDirectoryFor(fx.stateDir, live))]);
    release();
    await holding;
  });
});
