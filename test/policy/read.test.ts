/** The one reader of resolved files: it reads only the entry the policy resolved, reached without a link. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { lstatSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DEFAULT_RULES } from "../../src/config/schema.ts";
import { isToolError, type ToolError } from "../../src/core/errors.ts";
import { setDescriptorPathsForTest } from "../../src/policy/beneath.ts";
import { openRegularFile, readBoundedSync, readRegularFile, readSmallRegularFileSync, realTarget, resolvedTarget } from "../../src/policy/open.ts";
import { Workspace } from "../../src/policy/workspace.ts";
import { link, makeTree, type Tree } from "./fixture.ts";

let tree: Tree;
let workspace: Workspace;

beforeEach(async () => {
  tree = await makeTree({ "repo/d/x.txt": "inside\n", "repo/d/other.txt": "other\n", "outside/x.txt": "outside\n" });
  workspace = await Workspace.create({ workspace: { roots: [tree.repo] }, paths: DEFAULT_RULES });
});

afterEach(async () => {
  setDescriptorPathsForTest(undefined);
  await tree.cleanup();
});

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    if (isToolError(error)) return error;
    throw error;
  }
  throw new Error("expected a ToolError");
}

function swapForLink(directory: string, target: string): void {
  renameSync(directory, `${directory}-aside`);
  symlinkSync(target, directory);
}

for (const mode of ["descriptor paths", "fallback"] as const) {
  describe(`resolved reads (${mode})`, () => {
    beforeEach(() => {
      if (mode === "fallback") setDescriptorPathsForTest(false);
    });

    test("the policy records what the path named: device and inode of the final entry", async () => {
      const resolved = await workspace.resolve("d/x.txt", "read");
      const stats = lstatSync(path.join(tree.repo, "d/x.txt"));
      expect(resolved.identity).toEqual({ dev: stats.dev, ino: stats.ino });
      expect((await workspace.resolve("d/missing.txt", "read")).identity).toBeUndefined();
    });

    test("a directory swapped for a link to outside after the check is path_changed, never the outside bytes", async () => {
      const resolved = await workspace.resolve("d/x.txt", "read");
      swapForLink(path.join(tree.repo, "d"), tree.outside);
      for (const read of [async () => (await readRegularFile(resolved, 1024)).bytes, async () => readSmallRegularFileSync(resolved)]) {
        const error = await failure(read());
        expect(error.code).toBe("path_changed");
        expect(error.retryable).toBe(true);
      }
      expect(readBoundedSync(resolvedTarget(resolved), 1024)).toBe("gone");
      // A listing entry (no identity) is read beneath its root the same way.
      expect(readBoundedSync(realTarget(resolved.real, resolved.display, workspace.roots), 1024)).toBe("gone");
      expect(readBoundedSync(realTarget(resolved.real, resolved.display), 1024)).toBe("gone");
    });

    test("a file replaced by another since the check is path_changed (it is not the entry the policy resolved)", async () => {
      const resolved = await workspace.resolve("d/x.txt", "read");
      renameSync(path.join(tree.repo, "d/other.txt"), path.join(tree.repo, "d/x.txt"));
      expect((await failure(readRegularFile(resolved, 1024))).code).toBe("path_changed");
      // Resolved anew, the same path reads the file that is there now.
      expect((await readRegularFile(await workspace.resolve("d/x.txt", "read"), 1024)).bytes.toString()).toBe("other\n");
    });

    test("a file swapped for a link at its own name is path_changed; one deleted is file_not_found", async () => {
      const resolved = await workspace.resolve("d/x.txt", "read");
      renameSync(path.join(tree.repo, "d/x.txt"), path.join(tree.repo, "d/x-aside.txt"));
      expect((await failure(readRegularFile(resolved, 1024))).code).toBe("file_not_found");
      symlinkSync(path.join(tree.outside, "x.txt"), path.join(tree.repo, "d/x.txt"));
      expect((await failure(readRegularFile(resolved, 1024))).code).toBe("path_changed");
    });

    test("a path through an in-root link reads the link's target, checked as the policy resolved it", async () => {
      await link(tree, "repo/alias", "d");
      const resolved = await workspace.resolve("alias/x.txt", "read");
      expect(resolved.relative).toBe("d/x.txt");
      expect((await readRegularFile(resolved, 1024)).bytes.toString()).toBe("inside\n");
      const file = openRegularFile(resolved);
      try {
        expect(file.size).toBe(7);
        expect((await file.readHead(3)).toString()).toBe("ins");
      } finally {
        file.close();
      }
    });

    test("a directory listed after its name became a link to outside is refused, never listed", async () => {
      swapForLink(path.join(tree.repo, "d"), tree.outside);
      let listed: unknown;
      try {
        listed = workspace.listDirectory("d");
      } catch (error) {
        expect(isToolError(error) && error.code).toBe("path_outside_roots");
      }
      expect(listed).toBeUndefined();
    });
  });
}

test("a regular file larger than the limit is refused before reading; a growing one too", async () => {
  writeFileSync(path.join(tree.repo, "d/x.txt"), "x".repeat(100));
  const resolved = await workspace.resolve("d/x.txt", "read");
  expect((await failure(readRegularFile(resolved, 10))).code).toBe("file_too_large");
  expect(readBoundedSync(resolvedTarget(resolved), 10)).toMatchObject({ skipped: "tooLarge" });
});
