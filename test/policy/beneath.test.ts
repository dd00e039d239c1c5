/** Held directories: once a directory beneath a root is held, swapping its name for a link leads nothing outside. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { closeSync, constants, existsSync, readFileSync, readSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isToolError } from "../../src/core/errors.ts";
import { ChangedBeneath, changedError, descriptorPathsWork, displayBeneath, holdBeneath, openFileBeneath, setDescriptorPathsForTest } from "../../src/policy/beneath.ts";
import { makeTree, type Tree } from "./fixture.ts";

let tree: Tree;

beforeEach(async () => {
  tree = await makeTree({ "repo/d/x.txt": "inside\n", "outside/x.txt": "outside\n" });
});

afterEach(async () => {
  setDescriptorPathsForTest(undefined);
  await tree.cleanup();
});

function swapForLink(directory: string, target: string): string {
  const aside = `${directory}-aside`;
  renameSync(directory, aside);
  symlinkSync(target, directory);
  return aside;
}

function readAll(fd: number): string {
  const buffer = Buffer.alloc(1024);
  const count = readSync(fd, buffer, 0, buffer.length, 0);
  return buffer.subarray(0, count).toString("utf8");
}

describe("held directories (descriptor paths)", () => {
  test("this machine names held directories through /proc/self/fd", () => {
    // The suite runs on Linux with /proc; elsewhere the fallback tests below still run.
    if (process.platform === "linux") expect(descriptorPathsWork()).toBe(true);
  });

  test("a write through a held directory lands in it after its name was swapped for a link to outside", () => {
    const held = holdBeneath(tree.repo, ["d"]);
    try {
      const aside = swapForLink(path.join(tree.repo, "d"), tree.outside);
      writeFileSync(held.at("new.txt"), "written\n", { flag: "wx" });
      renameSync(held.at("new.txt"), held.at("x.txt"));
      expect(readFileSync(path.join(aside, "x.txt"), "utf8")).toBe("written\n");
      expect(readFileSync(path.join(tree.outside, "x.txt"), "utf8")).toBe("outside\n");
      expect(existsSync(path.join(tree.outside, "new.txt"))).toBe(false);
    } finally {
      held.close();
    }
  });

  test("holding a path whose directory is now a link refuses instead of following it", () => {
    swapForLink(path.join(tree.repo, "d"), tree.outside);
    expect(() => holdBeneath(tree.repo, ["d"])).toThrow(ChangedBeneath);
    try {
      holdBeneath(tree.repo, ["d"]);
    } catch (error) {
      expect((error as ChangedBeneath).reason).toBe("link");
    }
  });

  test("opening a file for reading never follows a link, at the last segment or above it", () => {
    const fd = openFileBeneath(tree.repo, ["d", "x.txt"]);
    try {
      expect(readAll(fd)).toBe("inside\n");
    } finally {
      closeSync(fd);
    }
    symlinkSync(path.join(tree.outside, "x.txt"), path.join(tree.repo, "link.txt"));
    expect(() => openFileBeneath(tree.repo, ["link.txt"])).toThrow(ChangedBeneath);
    swapForLink(path.join(tree.repo, "d"), tree.outside);
    expect(() => openFileBeneath(tree.repo, ["d", "x.txt"])).toThrow(ChangedBeneath);
  });

  test("a missing or non-directory segment is reported as such", () => {
    writeFileSync(path.join(tree.repo, "file"), "");
    const reasons = [["missing"], ["file"]].map((segments) => {
      try {
        holdBeneath(tree.repo, segments).close();
        return "held";
      } catch (error) {
        return (error as ChangedBeneath).reason;
      }
    });
    expect(reasons).toEqual(["missing", "not_directory"]);
  });

  test("only single segments name entries of a held directory", () => {
    const held = holdBeneath(tree.repo, []);
    try {
      for (const bad of ["..", ".", "", "a/b", "a\0b"]) expect(() => held.at(bad)).toThrow();
    } finally {
      held.close();
    }
  });

  test("messages show the directory's real path instead of its descriptor path", () => {
    const held = holdBeneath(tree.repo, ["d"]);
    try {
      const message = `ENOENT: no such file or directory, open '${held.at("gone.txt")}'`;
      expect(displayBeneath(message, [held])).toBe(`ENOENT: no such file or directory, open '${path.join(tree.repo, "d", "gone.txt")}'`);
    } finally {
      held.close();
    }
  });

  test("the changed-path error is retryable and names no descriptor", () => {
    const error = changedError("d/x.txt", new ChangedBeneath(path.join(tree.repo, "d"), "link"));
    expect(isToolError(error) && error.code).toBe("path_changed");
    expect(error.retryable).toBe(true);
    expect(error.message).not.toContain("/proc/");
  });
});

describe("held directories (fallback without /proc)", () => {
  beforeEach(() => setDescriptorPathsForTest(false));

  test("a link in place of a directory is still refused when holding", () => {
    swapForLink(path.join(tree.repo, "d"), tree.outside);
    expect(() => holdBeneath(tree.repo, ["d"])).toThrow(ChangedBeneath);
  });

  test("a link at the last segment is not opened", () => {
    symlinkSync(path.join(tree.outside, "x.txt"), path.join(tree.repo, "link.txt"));
    expect(() => openFileBeneath(tree.repo, ["link.txt"])).toThrow(ChangedBeneath);
  });

  test("names are real paths", () => {
    const held = holdBeneath(tree.repo, ["d"]);
    try {
      expect(held.anchored).toBe(false);
      expect(held.at("x.txt")).toBe(path.join(tree.repo, "d", "x.txt"));
      const fd = held.openEntry("x.txt", constants.O_RDONLY);
      closeSync(fd);
    } finally {
      held.close();
    }
  });
});
