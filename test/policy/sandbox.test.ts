/**
 * The sandbox matrix: every way of pointing outside the roots answers byte-identically for the
 * same input, whether or not the outside target exists, and nothing outside is ever probed.
 */
import { afterEach, beforeEach, describe, expect, spyOn, test } from "bun:test";
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import path from "node:path";
import { DEFAULT_RULES } from "../../src/config/schema.ts";
import { LIMITS } from "../../src/core/limits.ts";
import { Workspace } from "../../src/policy/workspace.ts";
import { failure, link, makeTree, type Tree } from "./fixture.ts";

let tree: Tree;
let workspace: Workspace;

beforeEach(async () => {
  tree = await makeTree({
    "repo/src/a.ts": "export const a = 1;\n",
    "repo/docs/readme.md": "# docs\n",
    "outside/secret.txt": "outside secret\n",
    "other/b.ts": "export const b = 2;\n",
  });
  workspace = await Workspace.create({ workspace: { roots: [tree.repo] }, paths: DEFAULT_RULES });
});

afterEach(async () => {
  await tree.cleanup();
});

/** Observes the answer for `input` with the outside target present, then absent; both must be identical. */
async function outsideAnswers(input: string, removeTarget: () => Promise<void>) {
  const present = await failure(workspace.resolve(input, "read"));
  await removeTarget();
  const absent = await failure(workspace.resolve(input, "read"));
  return { present, absent };
}

const removeSecret = () => fsp.rm(path.join(tree.outside, "secret.txt"));

describe("paths outside the roots", () => {
  test("an absolute outside path answers the same whether it exists or not", async () => {
    const input = path.join(tree.outside, "secret.txt");
    const { present, absent } = await outsideAnswers(input, removeSecret);
    expect(present.code).toBe("path_outside_roots");
    expect(present).toEqual(absent);
    expect(present.message).toBe(`Path ${JSON.stringify(input)} is outside the workspace roots.`);
    expect(present.suggestedNextCall).toEqual({ tool: "config_status", arguments: {} });
  });

  test("`..` traversal out of the root answers the same whether the target exists or not", async () => {
    for (const input of ["../outside/secret.txt", "src/../../outside/secret.txt", `${tree.repo}/../outside/secret.txt`]) {
      await fsp.writeFile(path.join(tree.outside, "secret.txt"), "again\n");
      const { present, absent } = await outsideAnswers(input, removeSecret);
      expect(present.code).toBe("path_outside_roots");
      expect(present).toEqual(absent);
    }
  });

  test("`..` that stays inside the root is fine", async () => {
    const resolved = await workspace.resolve("src/../docs/readme.md", "read");
    expect(resolved.real).toBe(path.join(tree.repo, "docs/readme.md"));
  });

  test("a directory link pointing out answers the same for an existing file, a missing file and a missing target", async () => {
    await link(tree, "repo/src/out", tree.outside);
    const input = "src/out/secret.txt";
    const withFile = await failure(workspace.resolve(input, "read"));
    await removeSecret();
    const withoutFile = await failure(workspace.resolve(input, "read"));
    await fsp.rm(tree.outside, { recursive: true });
    const withoutTarget = await failure(workspace.resolve(input, "read"));
    expect(withFile.code).toBe("path_outside_roots");
    expect(withFile).toEqual(withoutFile);
    expect(withFile).toEqual(withoutTarget);
    // Only the input is named, never where the link leads.
    expect(withFile.message).not.toContain(tree.base);
  });

  test("a file link pointing out (relative target text) answers the same for existing and missing targets", async () => {
    await link(tree, "repo/src/leak.txt", "../../outside/secret.txt");
    const { present, absent } = await outsideAnswers("src/leak.txt", removeSecret);
    expect(present.code).toBe("path_outside_roots");
    expect(present).toEqual(absent);
    // The same string as an absolute input.
    const absolute = path.join(tree.repo, "src/leak.txt");
    const viaAbsolute = await failure(workspace.resolve(absolute, "read"));
    expect(viaAbsolute.message).toBe(`Path ${JSON.stringify(absolute)} is outside the workspace roots.`);
  });

  test("a link out answers exactly like a plain outside path once the input strings are aligned", async () => {
    // The same absolute string: first a real outside path, then (after rearranging) an in-root link that leads out.
    const plain = await failure(workspace.resolve(path.join(tree.outside, "secret.txt"), "write"));
    const template = (input: string) => plain.message.replace(JSON.stringify(path.join(tree.outside, "secret.txt")), JSON.stringify(input));
    await link(tree, "repo/escape", "../outside/secret.txt");
    const viaLink = await failure(workspace.resolve("escape", "write"));
    expect(viaLink).toEqual({ ...plain, message: template("escape") });
  });

  test("check() reports outside paths without throwing, with the same message", async () => {
    await link(tree, "repo/src/out", tree.outside);
    const decision = await workspace.check("src/out/secret.txt", "read");
    expect(decision).toEqual({
      path: "src/out/secret.txt",
      operation: "read",
      allowed: false,
      code: "path_outside_roots",
      reason: "Path \"src/out/secret.txt\" is outside the workspace roots.",
    });
  });

  test("nothing outside the roots is ever lstat'ed, stat'ed, realpath'ed or readlink'ed", async () => {
    await link(tree, "repo/src/out", tree.outside);
    await link(tree, "repo/src/leak.txt", "../../outside/secret.txt");
    await link(tree, "repo/src/abs-leak", path.join(tree.outside, "secret.txt"));
    const spies = [
      ...(["lstat", "stat", "realpath", "readlink", "readdir"] as const).map((name) => spyOn(fsp, name)),
      ...(["lstatSync", "statSync", "realpathSync", "readlinkSync", "readdirSync"] as const).map((name) => spyOn(fs, name)),
    ];
    const openSpy = spyOn(fs, "openSync");
    try {
      const inputs = [
        path.join(tree.outside, "secret.txt"),
        path.join(tree.outside, "missing"),
        "../outside/secret.txt",
        "src/out/secret.txt",
        "src/out/missing/deeper",
        "src/leak.txt",
        "src/abs-leak",
        "/",
      ];
      for (const input of inputs) expect((await workspace.check(input, "read")).code).toBe("path_outside_roots");
      // The walk names entries through held directories (/proc/self/fd/<fd>/name): map each back to what was opened.
      const opened = new Map<number, string>();
      const named = (text: string): string => {
        const held = /^\/proc\/self\/fd\/(\d+)(\/.*)?$/.exec(text);
        if (!held) return text;
        const directory = opened.get(Number(held[1])) ?? text;
        return held[2] ? path.join(directory, held[2]) : directory;
      };
      for (const [index, call] of openSpy.mock.calls.entries()) {
        const result = openSpy.mock.results[index];
        if (result?.type === "return") opened.set(result.value as number, named(String(call[0])));
      }
      const touched = [...spies, openSpy].flatMap((spy) => spy.mock.calls.map((call) => named(String(call[0]))));
      expect(touched.length).toBeGreaterThan(0);
      for (const probed of touched) expect(probed === tree.repo || probed.startsWith(tree.repo + path.sep)).toBe(true);
    } finally {
      for (const spy of spies) spy.mockRestore();
      openSpy.mockRestore();
    }
  });
});

describe("invalid paths", () => {
  test("NUL and control characters are refused before any file system call", async () => {
    const lstat = spyOn(fs, "lstatSync");
    try {
      for (const input of ["src/a\0.ts", "src/\u001b[31ma.ts", "line\nbreak", "tab\there", "del\u007f", "c1\u0085"]) {
        const error = await failure(workspace.resolve(input, "read"));
        expect(error.code).toBe("invalid_path");
        // The control character is named, never echoed raw.
        expect(error.message).toMatch(/U\+00[0-9A-F]{2}/);
        expect(/[\u0000-\u001f\u007f-\u009f]/.test(error.message)).toBe(false);
      }
      expect(lstat).not.toHaveBeenCalled();
    } finally {
      lstat.mockRestore();
    }
  });

  test("an outside path with a control character is invalid, not outside", async () => {
    expect((await failure(workspace.resolve(`${tree.outside}/x\0`, "read"))).code).toBe("invalid_path");
  });

  test("paths over LIMITS.pathChars and empty paths are invalid", async () => {
    expect((await failure(workspace.resolve("a".repeat(LIMITS.pathChars + 1), "read"))).code).toBe("invalid_path");
    expect((await failure(workspace.resolve("", "read"))).code).toBe("invalid_path");
    // Exactly at the limit is still a path (here one that does not exist).
    const atLimit = await workspace.resolve("a/".repeat(LIMITS.pathChars / 2), "read");
    expect(atLimit.exists).toBe(false);
  });

  test("a link loop inside the root is reported as invalid_path", async () => {
    await link(tree, "repo/loop-a", "loop-b");
    await link(tree, "repo/loop-b", "loop-a");
    const error = await failure(workspace.resolve("loop-a/x", "read"));
    expect(error.code).toBe("invalid_path");
    expect(error.message).toContain("symbolic links");
  });
});

describe("inside the roots", () => {
  test("relative and absolute inputs resolve to the same real path", async () => {
    const relative = await workspace.resolve("src/a.ts", "read");
    const absolute = await workspace.resolve(path.join(tree.repo, "src/a.ts"), "read");
    expect(relative.real).toBe(path.join(tree.repo, "src/a.ts"));
    expect(absolute.real).toBe(relative.real);
    expect(relative.relative).toBe("src/a.ts");
    expect(relative.display).toBe("src/a.ts");
    expect(absolute.display).toBe("src/a.ts");
    expect(relative.absolute).toBe(path.join(tree.repo, "src/a.ts"));
    expect(relative).toMatchObject({ exists: true, kind: "file", rule: { path: "<roots>", source: "default", access: "allow" } });
  });

  test("the root itself, directories and missing paths are reported precisely", async () => {
    const root = await workspace.resolve(".", "read");
    expect(root).toMatchObject({ real: tree.repo, relative: "", display: ".", kind: "directory", exists: true });
    expect(await workspace.resolve("docs", "read")).toMatchObject({ kind: "directory", exists: true });
    expect(await workspace.resolve("src/nope/deeper.ts", "write")).toMatchObject({
      kind: "missing",
      exists: false,
      real: path.join(tree.repo, "src/nope/deeper.ts"),
      display: "src/nope/deeper.ts",
    });
    // Below a file nothing can exist.
    expect(await workspace.resolve("src/a.ts/child", "read")).toMatchObject({ kind: "missing", exists: false });
  });

  test("display forms round-trip as input, also for a second root", async () => {
    const second = path.join(tree.base, "other");
    const multi = await Workspace.create({ workspace: { roots: [tree.repo, second] }, paths: DEFAULT_RULES });
    for (const input of [".", "src/a.ts", "docs", "src/missing.ts", path.join(second, "b.ts"), second]) {
      const first = await multi.resolve(input, "read");
      const again = await multi.resolve(first.display, "read");
      expect(again.real).toBe(first.real);
      expect(again.display).toBe(first.display);
    }
    expect((await multi.resolve(path.join(second, "b.ts"), "read")).display).toBe(path.join(second, "b.ts"));
    // Relative inputs are relative to the first root only.
    expect((await multi.resolve("b.ts", "read")).exists).toBe(false);
  });

  test("a link to an in-root target is followed", async () => {
    await link(tree, "repo/src/docs-link", "../docs");
    await link(tree, "repo/src/a-link.ts", path.join(tree.repo, "src/a.ts"));
    expect(await workspace.resolve("src/docs-link/readme.md", "read")).toMatchObject({
      real: path.join(tree.repo, "docs/readme.md"),
      display: "docs/readme.md",
      kind: "file",
    });
    expect(await workspace.resolve("src/a-link.ts", "read")).toMatchObject({ real: path.join(tree.repo, "src/a.ts"), kind: "file" });
  });

  test("a link from one root into another root is followed", async () => {
    const second = path.join(tree.base, "other");
    const multi = await Workspace.create({ workspace: { roots: [tree.repo, second] }, paths: DEFAULT_RULES });
    await link(tree, "repo/to-other", "../other");
    const resolved = await multi.resolve("to-other/b.ts", "read");
    expect(resolved.real).toBe(path.join(second, "b.ts"));
    expect(resolved.root.real).toBe(second);
    expect(resolved.relative).toBe("b.ts");
  });
});

describe("a root reached through a symlink", () => {
  test("works by its given path and by its real path, and still confines", async () => {
    await link(tree, "repo-link", tree.repo);
    const given = path.join(tree.base, "repo-link");
    const linked = await Workspace.create({ workspace: { roots: [given] }, paths: DEFAULT_RULES });
    expect(linked.roots).toEqual([{ path: given, real: tree.repo }]);

    const relative = await linked.resolve("src/a.ts", "read");
    expect(relative.real).toBe(path.join(tree.repo, "src/a.ts"));
    expect(relative.absolute).toBe(path.join(given, "src/a.ts"));
    expect((await linked.resolve(path.join(given, "src/a.ts"), "read")).real).toBe(relative.real);
    expect((await linked.resolve(path.join(tree.repo, "src/a.ts"), "read")).real).toBe(relative.real);
    expect(relative.display).toBe("src/a.ts");

    // A link inside that names the root by its linked path is still in-root.
    await link(tree, "repo/via-given", path.join(given, "docs"));
    expect((await linked.resolve("via-given/readme.md", "read")).real).toBe(path.join(tree.repo, "docs/readme.md"));

    const out = await failure(linked.resolve(path.join(given, "../outside/secret.txt"), "read"));
    expect(out.code).toBe("path_outside_roots");
  });
});
