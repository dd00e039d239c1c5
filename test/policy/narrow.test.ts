/** Client roots narrow or select configured roots and never widen them; no roots means no paths. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import path from "node:path";
import { DEFAULT_RULES } from "../../src/config/schema.ts";
import { Workspace } from "../../src/policy/workspace.ts";
import { failure, link, makeTree, userRule, type Tree } from "./fixture.ts";

let tree: Tree;
let workspace: Workspace;

beforeEach(async () => {
  tree = await makeTree({
    "repo/src/a.ts": "a\n",
    "repo/src/secret/s.ts": "s\n",
    "repo/docs/readme.md": "# docs\n",
    "outside/x.txt": "x\n",
  });
  workspace = await Workspace.create({
    workspace: { roots: [tree.repo] },
    paths: [...DEFAULT_RULES, userRule({ path: "src/secret/**", read: "deny" })],
  });
});

afterEach(async () => {
  await tree.cleanup();
});

describe("narrow", () => {
  test("a client root inside a configured root narrows the workspace to it", async () => {
    const src = path.join(tree.repo, "src");
    const narrowed = await workspace.narrow([src]);
    expect(narrowed.roots).toEqual([{ path: src, real: src }]);
    // Relative inputs now start at the client root, and display follows.
    const resolved = await narrowed.resolve("a.ts", "read");
    expect(resolved.real).toBe(path.join(src, "a.ts"));
    expect(resolved.display).toBe("a.ts");
    // The rest of the configured root is out of reach, answered like any outside path.
    expect((await failure(narrowed.resolve(path.join(tree.repo, "docs/readme.md"), "read"))).code).toBe("path_outside_roots");
    expect((await failure(narrowed.resolve("../docs/readme.md", "read"))).code).toBe("path_outside_roots");
    // The original workspace is unchanged.
    expect((await workspace.resolve("docs/readme.md", "read")).exists).toBe(true);
  });

  test("rules keep matching against the configured root after narrowing", async () => {
    const narrowed = await workspace.narrow([path.join(tree.repo, "src")]);
    expect(await narrowed.check("secret/s.ts", "read")).toMatchObject({ allowed: false, rule: { path: "src/secret/**" } });
  });

  test("a configured root inside a client root is selected, never widened to the client root", async () => {
    const selected = await workspace.narrow([tree.base]);
    expect(selected.roots).toEqual(workspace.roots);
    expect((await failure(selected.resolve(path.join(tree.outside, "x.txt"), "read"))).code).toBe("path_outside_roots");
    // Equal roots are kept as they are.
    expect((await workspace.narrow([tree.repo])).roots).toEqual(workspace.roots);
  });

  test("links inside the narrowed root may not lead back into the rest of the configured root", async () => {
    await link(tree, "repo/src/to-docs", "../docs");
    const narrowed = await workspace.narrow([path.join(tree.repo, "src")]);
    expect((await failure(narrowed.resolve("to-docs/readme.md", "read"))).code).toBe("path_outside_roots");
    expect((await workspace.resolve("src/to-docs/readme.md", "read")).exists).toBe(true);
  });

  test("client roots that lead out, do not exist, are files or are not absolute are dropped", async () => {
    await link(tree, "repo/out", tree.outside);
    const narrowed = await workspace.narrow([
      path.join(tree.repo, "out"),
      path.join(tree.repo, "missing"),
      path.join(tree.repo, "src/a.ts"),
      "src",
      path.join(tree.repo, "docs"),
    ]);
    expect(narrowed.roots).toEqual([{ path: path.join(tree.repo, "docs"), real: path.join(tree.repo, "docs") }]);
  });

  test("a client root reached through an in-root link keeps its given path and real path", async () => {
    await link(tree, "repo/docs-link", "docs");
    const given = path.join(tree.repo, "docs-link");
    const narrowed = await workspace.narrow([given]);
    expect(narrowed.roots).toEqual([{ path: given, real: path.join(tree.repo, "docs") }]);
    expect((await narrowed.resolve("readme.md", "read")).real).toBe(path.join(tree.repo, "docs/readme.md"));
  });

  test("with no overlap the narrowed workspace has no roots and says why", async () => {
    const narrowed = await workspace.narrow([tree.outside]);
    expect(narrowed.roots).toEqual([]);
    const error = await failure(narrowed.resolve("src/a.ts", "read"));
    expect(error.code).toBe("no_roots");
    expect(error.message).toContain("roots/list");
  });
});

describe("no roots", () => {
  test("every resolve throws no_roots with how to configure one", async () => {
    const empty = await Workspace.create({ workspace: { roots: [] }, paths: DEFAULT_RULES });
    expect(empty.roots).toEqual([]);
    for (const input of ["src/a.ts", path.join(tree.repo, "src/a.ts"), "/"]) {
      const error = await failure(empty.resolve(input, "read"));
      expect(error.code).toBe("no_roots");
      expect(error.message).toContain("[workspace].roots");
      expect(error.message).toContain("ast-mcp mcp /path/to/repo");
    }
    expect(await empty.check("x", "write")).toMatchObject({ allowed: false, code: "no_roots" });
    expect(empty.display(path.join(tree.repo, "x"))).toBe(path.join(tree.repo, "x"));
  });

  test("a configured root that does not exist is left out and named, never fatal", async () => {
    const missing = path.join(tree.base, "nope");
    const partly = await Workspace.create({ workspace: { roots: [missing, tree.repo] }, paths: [] });
    expect(partly.roots).toEqual([{ path: tree.repo, real: tree.repo }]);
    expect(partly.unusableRoots).toEqual([missing]);
    expect((await partly.resolve("src/a.ts", "read")).exists).toBe(true);

    const none = await Workspace.create({ workspace: { roots: [missing] }, paths: [] });
    const error = await failure(none.resolve("src/a.ts", "read"));
    expect(error.code).toBe("no_roots");
    expect(error.message).toContain(JSON.stringify(missing));
  });
});
