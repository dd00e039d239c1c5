import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { link, lstat, mkdir, mkdtemp, readFile, readdir, realpath, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ToolError } from "../../src/core/errors.ts";
import { commitBatch, type CommitOp } from "../../src/patch/commit.ts";
import { overwriteInPlaceSync } from "../../src/patch/durable-fs.ts";
import { setDescriptorPathsForTest } from "../../src/policy/beneath.ts";
import { listBatches } from "../../src/patch/journal.ts";
import { stateDirectory } from "../../src/config/state-dir.ts";
import { type CommitFixture, leftoverTemps, makeCommitFixture, sha, snapshot } from "./commit-fixture.ts";

let fx: CommitFixture;
beforeEach(async () => {
  fx = await makeCommitFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

async function commit(ops: CommitOp[], options: Parameters<typeof commitBatch>[2] = {}) {
  return commitBatch(ops, fx.meta, { stateDir: fx.stateDir, ...options });
}

async function refusal(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("writes", () => {
  test("a single write replaces the bytes, keeps the mode and journals the batch", async () => {
    const before = await fx.put("a.txt", "old\n", 0o640);
    const result = await commit([{ kind: "write", path: fx.at("a.txt"), expectedBefore: before, after: Buffer.from("new\n") }]);
    expect(await fx.text("a.txt")).toBe("new\n");
    expect((await stat(fx.at("a.txt"))).mode & 0o777).toBe(0o640);
    expect(result.files).toEqual([{ path: fx.at("a.txt"), before, after: sha("new\n") }]);
    expect(result.undoable).toBe(true);
    const [summary] = await listBatches({}, { stateDir: fx.stateDir });
    expect(summary?.batchId).toBe(result.batchId);
    expect(summary?.state).toBe("committed");
    expect(await leftoverTemps(fx.root)).toEqual([]);
  });

  test("a multi-file batch writes every file; result entries follow op order", async () => {
    const a = await fx.put("a.txt", "a");
    const b = await fx.put("sub/b.txt", "b");
    const result = await commit([
      { kind: "write", path: fx.at("sub/b.txt"), expectedBefore: b, after: Buffer.from("B") },
      { kind: "write", path: fx.at("a.txt"), expectedBefore: a, after: Buffer.from("A") },
      { kind: "write", path: fx.at("c.txt"), expectedBefore: null, after: Buffer.from("C"), mode: 0o600 },
    ]);
    expect([await fx.text("a.txt"), await fx.text("sub/b.txt"), await fx.text("c.txt")]).toEqual(["A", "B", "C"]);
    expect((await stat(fx.at("c.txt"))).mode & 0o777).toBe(0o600);
    expect(result.files.map((file) => file.path)).toEqual([fx.at("sub/b.txt"), fx.at("a.txt"), fx.at("c.txt")]);
    expect(result.files[2]?.before).toBeNull();
  });

  test("a new file gets its missing parents only below the bound (mkdirParents: the containing root)", async () => {
    await commit([{ kind: "write", path: fx.at("x/y/z.txt"), expectedBefore: null, after: Buffer.from("z"), mkdirParents: true }]);
    expect(await fx.text("x/y/z.txt")).toBe("z");
    const missingParent = await refusal(commit([{ kind: "write", path: fx.at("p/q.txt"), expectedBefore: null, after: Buffer.from("q") }]));
    expect(missingParent.code).toBe("file_not_found");
    await mkdir(fx.at("bound"));
    await commit([{ kind: "write", path: fx.at("bound/d/e.txt"), expectedBefore: null, after: Buffer.from("e"), createParentsUpTo: fx.at("bound") }]);
    expect(await fx.text("bound/d/e.txt")).toBe("e");
    const unboundedBound = await refusal(commit([{ kind: "write", path: fx.at("nope/d/e.txt"), expectedBefore: null, after: Buffer.from("e"), createParentsUpTo: fx.at("nope") }]));
    expect(unboundedBound.code).toBe("file_not_found");
    expect(await lstat(fx.at("nope")).catch(() => undefined)).toBeUndefined();
  });

  test("exclusive create: expectedBefore null on an existing file is refused with its current hash", async () => {
    const current = await fx.put("a.txt", "exists");
    const before = await snapshot(fx.root);
    const error = await refusal(commit([{ kind: "write", path: fx.at("a.txt"), expectedBefore: null, after: Buffer.from("x") }]));
    expect(error.code).toBe("stale_hash");
    expect(error.details).toMatchObject({ path: fx.at("a.txt"), currentSha256: current });
    expect(await snapshot(fx.root)).toEqual(before);
  });

  test("a stale hash refuses the whole batch and leaves every byte as it was", async () => {
    const a = await fx.put("a.txt", "a");
    await fx.put("b.txt", "b");
    const before = await snapshot(fx.root);
    const error = await refusal(
      commit([
        { kind: "write", path: fx.at("a.txt"), expectedBefore: a, after: Buffer.from("A") },
        { kind: "write", path: fx.at("b.txt"), expectedBefore: sha("not b"), after: Buffer.from("B") },
      ]),
    );
    expect(error.code).toBe("stale_hash");
    expect(error.retryable).toBe(true);
    expect(error.details).toMatchObject({ path: fx.at("b.txt"), currentSha256: sha("b") });
    expect(await snapshot(fx.root)).toEqual(before);
    expect(await listBatches({}, { stateDir: fx.stateDir })).toEqual([]);
  });

  test("a missing file with an expected hash is stale with currentSha256 null", async () => {
    const error = await refusal(commit([{ kind: "write", path: fx.at("gone.txt"), expectedBefore: sha("x"), after: Buffer.from("y") }]));
    expect(error.code).toBe("stale_hash");
    expect(error.details).toMatchObject({ currentSha256: null });
  });

  test("bad batches are refused before anything is touched", async () => {
    const a = await fx.put("a.txt", "a");
    const write = (file: string): CommitOp => ({ kind: "write", path: file, expectedBefore: a, after: Buffer.from("x") });
    expect((await refusal(commit([]))).code).toBe("invalid_input");
    expect((await refusal(commit([write("relative.txt")]))).code).toBe("invalid_input");
    expect((await refusal(commit([write(fx.at("a.txt")), write(fx.at("a.txt"))]))).code).toBe("invalid_input");
    expect((await refusal(commit([write(path.join(fx.base, "outside.txt"))]))).code).toBe("path_outside_roots");
    expect((await refusal(commit([{ kind: "write", path: fx.at("a.txt"), expectedBefore: "ABC", after: Buffer.from("x") }]))).code).toBe("invalid_input");
    expect((await refusal(commitBatch([write(fx.at("a.txt"))], { ...fx.meta, roots: [] }, { stateDir: fx.stateDir }))).code).toBe("invalid_input");
    expect(await fx.text("a.txt")).toBe("a");
  });

  test("file-system failures come back as io_error with the errno", async () => {
    const error = await refusal(commit([{ kind: "write", path: fx.at("n".repeat(300)), expectedBefore: null, after: Buffer.from("x") }]));
    expect(error.code).toBe("io_error");
    expect(error.details).toEqual({ errno: "ENAMETOOLONG" });
  });

  test("a symlink at the target is not written through", async () => {
    await fx.put("real.txt", "real");
    await symlink(fx.at("real.txt"), fx.at("link.txt"));
    const error = await refusal(commit([{ kind: "write", path: fx.at("link.txt"), expectedBefore: sha("real"), after: Buffer.from("x") }]));
    expect(error.code).toBe("path_denied");
    expect(await fx.text("real.txt")).toBe("real");
  });
});

describe("parent verification", () => {
  test("verifyParent false aborts the batch and restores every earlier op", async () => {
    const a = await fx.put("a.txt", "a");
    const b = await fx.put("dir/b.txt", "b");
    const before = await snapshot(fx.root);
    const error = await refusal(
      commit(
        [
          { kind: "write", path: fx.at("a.txt"), expectedBefore: a, after: Buffer.from("A") },
          { kind: "write", path: fx.at("new.txt"), expectedBefore: null, after: Buffer.from("N") },
          { kind: "write", path: fx.at("dir/b.txt"), expectedBefore: b, after: Buffer.from("B") },
        ],
        { verifyParent: async (dirReal) => dirReal !== fx.at("dir") },
      ),
    );
    expect(error.code).toBe("path_outside_roots");
    expect(await snapshot(fx.root)).toEqual(before);
    expect(await listBatches({}, { stateDir: fx.stateDir })).toEqual([]);
  });

  test("verifyParent is asked with the real path of each parent right before its op", async () => {
    const a = await fx.put("d1/a.txt", "a");
    const b = await fx.put("d2/b.txt", "b");
    const asked: string[] = [];
    await commit(
      [
        { kind: "write", path: fx.at("d1/a.txt"), expectedBefore: a, after: Buffer.from("A") },
        { kind: "rename", from: fx.at("d2/b.txt"), to: fx.at("d3/b.txt"), expectedBefore: b, mkdirParents: true },
      ],
      {
        verifyParent: async (dirReal) => {
          asked.push(dirReal);
          return true;
        },
      },
    );
    expect(asked).toEqual([fx.at("d1"), fx.at("d2"), fx.at("d3")]);
  });

  test("a parent that is a symlink at the recheck is path_changed (retryable) and nothing is written through it", async () => {
    const elsewhere = path.join(fx.base, "elsewhere");
    await mkdir(elsewhere);
    await writeFile(path.join(elsewhere, "x.txt"), "outside");
    await symlink(elsewhere, fx.at("d"));
    for (
      const op of [
        { kind: "write", path: fx.at("d/x.txt"), expectedBefore: sha("outside"), after: Buffer.from("X") },
        { kind: "write", path: fx.at("d/new.txt"), expectedBefore: null, after: Buffer.from("N") },
        { kind: "chmod", path: fx.at("d/x.txt"), expectedBefore: sha("outside"), mode: 0o777 },
        { kind: "delete", path: fx.at("d/x.txt"), expectedBefore: sha("outside") },
      ] satisfies CommitOp[]
    ) {
      const error = await refusal(commit([op]));
      expect(error.code).toBe("path_changed");
      expect(error.retryable).toBe(true);
      expect(error.message).not.toContain("/proc/");
    }
    expect((await readdir(elsewhere)).sort()).toEqual(["x.txt"]);
    expect(await readFile(path.join(elsewhere, "x.txt"), "utf8")).toBe("outside");
    expect((await stat(path.join(elsewhere, "x.txt"))).mode & 0o777).toBe(0o644);
  });

  test("without /proc/self/fd (the checked fallback) commits, creates, renames and rollbacks still work and a link parent is refused", async () => {
    setDescriptorPathsForTest(false);
    try {
      const a = await fx.put("d/a.txt", "a");
      const r = await fx.put("d/r.txt", "r");
      await commit([
        { kind: "write", path: fx.at("d/a.txt"), expectedBefore: a, after: Buffer.from("A") },
        { kind: "write", path: fx.at("d/new/b.txt"), expectedBefore: null, after: Buffer.from("B"), mkdirParents: true },
        { kind: "rename", from: fx.at("d/r.txt"), to: fx.at("e/r.txt"), expectedBefore: r, mkdirParents: true },
      ]);
      expect(await fx.text("d/a.txt")).toBe("A");
      expect(await fx.text("d/new/b.txt")).toBe("B");
      expect(await fx.text("d/r.txt")).toBeUndefined();
      expect(await fx.text("e/r.txt")).toBe("r");
      // A failing later op rolls the earlier ones back, created directories included.
      const failed = await refusal(
        commit([
          { kind: "write", path: fx.at("f/g/c.txt"), expectedBefore: null, after: Buffer.from("C"), mkdirParents: true },
          { kind: "write", path: fx.at("d/a.txt"), expectedBefore: a, after: Buffer.from("stale") },
        ]),
      );
      expect(failed.code).toBe("stale_hash");
      expect(await fx.text("f/g/c.txt")).toBeUndefined();
      expect(await leftoverTemps(fx.root)).toEqual([]);
      const elsewhere = path.join(fx.base, "elsewhere");
      await mkdir(elsewhere);
      await symlink(elsewhere, fx.at("l"));
      const error = await refusal(commit([{ kind: "write", path: fx.at("l/x.txt"), expectedBefore: null, after: Buffer.from("X") }]));
      expect(error.code).toBe("path_changed");
      expect(await readdir(elsewhere)).toEqual([]);
    } finally {
      setDescriptorPathsForTest(undefined);
    }
  });

  test("a directory swapped for a symlink after the recheck is refused and the batch rolled back", async () => {
    const a = await fx.put("a.txt", "a");
    const b = await fx.put("dir/b.txt", "b");
    const elsewhere = path.join(fx.base, "elsewhere");
    await mkdir(elsewhere);
    await writeFile(path.join(elsewhere, "b.txt"), "b");
    const error = await refusal(
      commit(
        [
          { kind: "write", path: fx.at("a.txt"), expectedBefore: a, after: Buffer.from("A") },
          { kind: "write", path: fx.at("dir/b.txt"), expectedBefore: b, after: Buffer.from("B") },
        ],
        {
          // The swap happens between the policy/recheck and the rename of the second op.
          verifyParent: async (dirReal) => {
            if (dirReal === fx.root) {
              await rename(fx.at("dir"), fx.at("dir-moved"));
              await symlink(elsewhere, fx.at("dir"));
            }
            return true;
          },
        },
      ),
    );
    expect(error.code).toBe("path_changed");
    expect(error.retryable).toBe(true);
    expect(error.message).not.toContain("/proc/");
    expect(await fx.text("a.txt")).toBe("a");
    expect(await fx.text("dir-moved/b.txt")).toBe("b");
    expect((await readdir(elsewhere)).sort()).toEqual(["b.txt"]);
    expect(await fx.text("dir/b.txt")).toBe("b");
  });
});

describe("renames", () => {
  test("a rename moves the file and never replaces an existing destination", async () => {
    const a = await fx.put("a.txt", "a", 0o751);
    const result = await commit([{ kind: "rename", from: fx.at("a.txt"), to: fx.at("sub/b.txt"), expectedBefore: a, mkdirParents: true }]);
    expect(await fx.text("a.txt")).toBeUndefined();
    expect(await fx.text("sub/b.txt")).toBe("a");
    expect((await stat(fx.at("sub/b.txt"))).mode & 0o777).toBe(0o751);
    expect(result.files).toEqual([{ path: fx.at("sub/b.txt"), from: fx.at("a.txt"), before: a, after: a }]);

    const c = await fx.put("c.txt", "c");
    const before = await snapshot(fx.root);
    const error = await refusal(commit([{ kind: "rename", from: fx.at("c.txt"), to: fx.at("sub/b.txt"), expectedBefore: c }]));
    expect(error.code).toBe("destination_exists");
    expect(await snapshot(fx.root)).toEqual(before);
  });

  test("a failing later op moves earlier renames back", async () => {
    const a = await fx.put("a.txt", "a");
    const b = await fx.put("b.txt", "b");
    await fx.put("guarded/c.txt", "c");
    const before = await snapshot(fx.root);
    const error = await refusal(
      commit(
        [
          { kind: "rename", from: fx.at("a.txt"), to: fx.at("moved/a.txt"), expectedBefore: a, mkdirParents: true },
          { kind: "rename", from: fx.at("b.txt"), to: fx.at("b2.txt"), expectedBefore: b },
          { kind: "write", path: fx.at("guarded/c.txt"), expectedBefore: sha("c"), after: Buffer.from("C") },
        ],
        { verifyParent: async (dirReal) => dirReal !== fx.at("guarded") },
      ),
    );
    expect(error.code).toBe("path_outside_roots");
    // Moved back, and the directory created for the move is gone again.
    expect(await snapshot(fx.root)).toEqual(before);
  });
});

describe("renames across file systems", () => {
  // /dev/shm is a tmpfs on Linux: a second root there puts source and destination on different devices.
  const otherDevice = "/dev/shm";
  const available = (() => {
    try {
      return statSync(otherDevice).dev !== statSync(tmpdir()).dev;
    } catch {
      return false;
    }
  })();

  test.skipIf(!available)("a cross-device rename copies (mode kept), and is moved back when a later op fails", async () => {
    const second = await realpath(await mkdtemp(path.join(otherDevice, "ast-mcp-xdev-")));
    try {
      const meta = { ...fx.meta, roots: [fx.root, second] };
      const a = await fx.put("a.txt", "across", 0o640);
      const b = await fx.put("guarded/b.txt", "b");
      const before = await snapshot(fx.root);
      const failed = await refusal(
        commitBatch(
          [
            { kind: "rename", from: fx.at("a.txt"), to: path.join(second, "a.txt"), expectedBefore: a },
            { kind: "write", path: fx.at("guarded/b.txt"), expectedBefore: b, after: Buffer.from("B") },
          ],
          meta,
          { stateDir: fx.stateDir, verifyParent: async (dirReal) => dirReal !== fx.at("guarded") },
        ),
      );
      expect(failed.code).toBe("path_outside_roots");
      expect(await snapshot(fx.root)).toEqual(before);
      expect(await readdir(second)).toEqual([]);

      await commitBatch([{ kind: "rename", from: fx.at("a.txt"), to: path.join(second, "a.txt"), expectedBefore: a }], meta, { stateDir: fx.stateDir });
      expect(await fx.text("a.txt")).toBeUndefined();
      expect((await stat(path.join(second, "a.txt"))).mode & 0o777).toBe(0o640);
      expect(await readdir(second)).toEqual(["a.txt"]);
    } finally {
      await rm(second, { recursive: true, force: true });
    }
  });
});

describe("deletes", () => {
  test("a delete removes the file and parents left empty, never the bound itself", async () => {
    const file = await fx.put("keep/a/b/c.txt", "c");
    await fx.put("keep/a/sibling.txt", "s");
    await commit([{ kind: "delete", path: fx.at("keep/a/b/c.txt"), expectedBefore: file, removeEmptyParentsUpTo: fx.root }]);
    expect(await lstat(fx.at("keep/a/b")).catch(() => undefined)).toBeUndefined();
    expect(await fx.text("keep/a/sibling.txt")).toBe("s");

    const deep = await fx.put("only/x/y.txt", "y");
    await commit([{ kind: "delete", path: fx.at("only/x/y.txt"), expectedBefore: deep, removeEmptyParentsUpTo: fx.at("only") }]);
    expect((await lstat(fx.at("only"))).isDirectory()).toBe(true);
    expect(await readdir(fx.at("only"))).toEqual([]);
  });

  test("a delete without a bound leaves the empty directory", async () => {
    const file = await fx.put("d/a.txt", "a");
    await commit([{ kind: "delete", path: fx.at("d/a.txt"), expectedBefore: file }]);
    expect(await readdir(fx.at("d"))).toEqual([]);
  });

  test("a rolled-back delete restores content, mode and the removed parents", async () => {
    const file = await fx.put("p/q/r.txt", "r", 0o604);
    const a = await fx.put("z/a.txt", "a");
    const before = await snapshot(fx.root);
    const error = await refusal(
      commit(
        [
          { kind: "delete", path: fx.at("p/q/r.txt"), expectedBefore: file, removeEmptyParentsUpTo: fx.root },
          { kind: "write", path: fx.at("z/a.txt"), expectedBefore: a, after: Buffer.from("A") },
        ],
        { verifyParent: async (dirReal) => dirReal !== fx.at("z") },
      ),
    );
    expect(error.code).toBe("path_outside_roots");
    const after = await snapshot(fx.root);
    expect(after["p/q/r.txt"]).toBe(before["p/q/r.txt"] as string);
    expect(after["z/a.txt"]).toBe(before["z/a.txt"] as string);
  });
});

describe("chmod", () => {
  test("chmod changes the mode of a singly linked file", async () => {
    const file = await fx.put("run.sh", "#!/bin/sh\n", 0o644);
    const result = await commit([{ kind: "chmod", path: fx.at("run.sh"), expectedBefore: file, mode: 0o755 }]);
    expect((await stat(fx.at("run.sh"))).mode & 0o777).toBe(0o755);
    expect(result.files[0]).toEqual({ path: fx.at("run.sh"), before: file, after: file });
  });

  test("chmod is refused for a file with more than one hard link", async () => {
    const file = await fx.put("shared.sh", "x", 0o644);
    await link(fx.at("shared.sh"), path.join(fx.base, "outside-name.sh"));
    const error = await refusal(commit([{ kind: "chmod", path: fx.at("shared.sh"), expectedBefore: file, mode: 0o777 }]));
    expect(error.code).toBe("path_denied");
    expect(error.details).toMatchObject({ nlink: 2 });
    expect((await stat(path.join(fx.base, "outside-name.sh"))).mode & 0o777).toBe(0o644);
  });

  test("a rolled-back chmod restores the mode", async () => {
    const file = await fx.put("run.sh", "x", 0o644);
    const other = await fx.put("d/o.txt", "o");
    const error = await refusal(
      commit(
        [
          { kind: "chmod", path: fx.at("run.sh"), expectedBefore: file, mode: 0o700 },
          { kind: "write", path: fx.at("d/o.txt"), expectedBefore: other, after: Buffer.from("O") },
        ],
        { verifyParent: async (dirReal) => dirReal !== fx.at("d") },
      ),
    );
    expect(error.code).toBe("path_outside_roots");
    expect((await stat(fx.at("run.sh"))).mode & 0o777).toBe(0o644);
  });
});

describe("state directory placement", () => {
  test("a state directory inside a root is refused", async () => {
    const a = await fx.put("a.txt", "a");
    const inside = await stateDirectory({ AST_MCP_STATE_DIR: fx.at(".state") });
    const error = await refusal(commitBatch([{ kind: "write", path: fx.at("a.txt"), expectedBefore: a, after: Buffer.from("A") }], fx.meta, { stateDir: inside }));
    expect(error.message).toContain("inside the workspace root");
    expect(await fx.text("a.txt")).toBe("a");
    await rm(fx.at(".state"), { recursive: true });
  });
});

describe("small files rewritten in place", () => {
  test("overwriteInPlaceSync keeps the inode, replaces every byte, and leaves nothing of a longer former content", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "ast-mcp-inplace-"));
    try {
      const file = path.join(dir, "record.json");
      overwriteInPlaceSync(file, Buffer.from("a much longer first content\n"));
      const inode = (await stat(file)).ino;
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      overwriteInPlaceSync(file, Buffer.from("short\n"));
      expect(await readFile(file, "utf8")).toBe("short\n");
      expect((await stat(file)).ino).toBe(inode);
      overwriteInPlaceSync(file, Buffer.alloc(0));
      expect((await stat(file)).size).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
