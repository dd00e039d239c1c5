/** Rule decisions: defaults, specificity, ties, user overrides, include/exclude, links and follow_symlinks. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import path from "node:path";
import { DEFAULT_RULES, type PathRule } from "../../src/config/schema.ts";
import { Workspace, type Operation } from "../../src/policy/workspace.ts";
import { failure, link, makeTree, userRule, type Tree } from "./fixture.ts";

let tree: Tree;

beforeEach(async () => {
  tree = await makeTree({
    "repo/src/a.ts": "a\n",
    "repo/src/.env": "SRC_SECRET=1\n",
    "repo/src/generated/g.ts": "g\n",
    "repo/.env": "SECRET=1\n",
    "repo/.git/config": "[core]\n",
    "repo/.mcp.json": "{}\n",
    "repo/.claude/settings.json": "{}\n",
    "repo/docs/readme.md": "# docs\n",
    "repo/docs/notes.txt": "notes\n",
    "repo/config/dev.env": "DEV=1\n",
    "repo/private/key.txt": "k\n",
    "repo/logs/run.log": "log\n",
  });
});

afterEach(async () => {
  await tree.cleanup();
});

function workspaceWith(rules: PathRule[] = []): Promise<Workspace> {
  return Workspace.create({ workspace: { roots: [tree.repo] }, paths: [...DEFAULT_RULES, ...rules] });
}

async function allowed(workspace: Workspace, input: string, operation: Operation): Promise<boolean> {
  return (await workspace.check(input, operation)).allowed;
}

describe("default rules", () => {
  test(".git is read-only", async () => {
    const workspace = await workspaceWith();
    expect(await allowed(workspace, ".git/config", "read")).toBe(true);
    expect(await allowed(workspace, ".git/config", "write")).toBe(false);
    expect(await allowed(workspace, ".git/config", "delete")).toBe(false);
    expect(await allowed(workspace, ".git", "delete")).toBe(false);
  });

  test("secret-like files are denied for read, write and delete, at any depth", async () => {
    const workspace = await workspaceWith();
    for (const input of [".env", "src/.env", "certs/server.pem", "deploy/.env.production"]) {
      for (const operation of ["read", "write", "delete"] as const) expect(await allowed(workspace, input, operation)).toBe(false);
    }
    expect(await allowed(workspace, "config/dev.env", "read")).toBe(true);
  });

  test("guard-rail files are readable but not writable or deletable", async () => {
    const workspace = await workspaceWith();
    for (const input of [".mcp.json", ".claude/settings.json", "ast-mcp.toml", "sub/.vscode/settings.json"]) {
      expect(await allowed(workspace, input, "read")).toBe(true);
      expect(await allowed(workspace, input, "write")).toBe(false);
      expect(await allowed(workspace, input, "delete")).toBe(false);
    }
  });

  test("path_denied names the deciding rule and suggests policy_check", async () => {
    const workspace = await workspaceWith();
    const error = await failure(workspace.resolve(".mcp.json", "write"));
    expect(error.code).toBe("path_denied");
    expect(error.message).toContain("\"**/.mcp.json\"");
    expect(error.message).toContain("default");
    expect(error.details).toEqual({ rule: { path: "**/.mcp.json", source: "default" } });
    expect(error.suggestedNextCall).toEqual({ tool: "policy_check", arguments: { checks: [{ path: ".mcp.json", operation: "write" }] } });

    const decision = await workspace.check(".env", "read");
    expect(decision).toMatchObject({
      allowed: false,
      code: "path_denied",
      rule: { path: "**/.env", source: "default", access: "deny" },
      display: ".env",
    });
  });

  test("allowed decisions name the rule, or the implicit base", async () => {
    const workspace = await workspaceWith([userRule({ path: "docs/**", write: "allow" })]);
    expect(await workspace.check("src/a.ts", "write")).toMatchObject({
      allowed: true,
      rule: { path: "<roots>", source: "default", access: "allow" },
      display: "src/a.ts",
    });
    expect((await workspace.resolve("docs/readme.md", "write")).rule).toEqual({
      path: "docs/**",
      source: "user:/home/test/.config/ast-mcp/ast-mcp.toml",
      access: "allow",
    });
  });
});

describe("specificity and ties", () => {
  test("the rule with the longer literal prefix wins", async () => {
    const workspace = await workspaceWith([
      userRule({ path: "src/**", write: "deny" }),
      userRule({ path: "src/generated/**", write: "allow" }),
    ]);
    expect(await allowed(workspace, "src/generated/g.ts", "write")).toBe(true);
    expect(await allowed(workspace, "src/a.ts", "write")).toBe(false);
  });

  test("a leading **/ counts the matched directories as literal: **/.env beats src/**", async () => {
    const workspace = await workspaceWith([userRule({ path: "src/**", read: "allow" })]);
    expect(await allowed(workspace, "src/a.ts", "read")).toBe(true);
    expect(await workspace.check("src/.env", "read")).toMatchObject({ allowed: false, rule: { path: "**/.env" } });
  });

  test("on a tie deny beats allow, whichever comes first", async () => {
    for (const order of [0, 1]) {
      const rules = [userRule({ path: "docs/*.md", read: "allow" }), userRule({ path: "docs/*", read: "deny" })];
      if (order === 1) rules.reverse();
      const workspace = await workspaceWith(rules);
      expect(await workspace.check("docs/readme.md", "read")).toMatchObject({ allowed: false, rule: { path: "docs/*" } });
    }
    // "src/.env" is exactly as specific as "**/.env" there, so the default deny still wins.
    const workspace = await workspaceWith([userRule({ path: "src/.env", read: "allow" })]);
    expect(await allowed(workspace, "src/.env", "read")).toBe(false);
  });

  test("a rule decides only the operations it names", async () => {
    const workspace = await workspaceWith([userRule({ path: "src/**", write: "deny" })]);
    expect(await workspace.check("src/a.ts", "read")).toMatchObject({ allowed: true, rule: { path: "<roots>" } });
    expect(await allowed(workspace, "src/a.ts", "delete")).toBe(true);
    expect(await allowed(workspace, "src/a.ts", "write")).toBe(false);
  });

  test("a plain path covers what lies beneath it; absolute rule paths are matched root-relative", async () => {
    const plain = await workspaceWith([userRule({ path: "private", read: "deny" })]);
    expect(await allowed(plain, "private/key.txt", "read")).toBe(false);
    expect(await allowed(plain, "private", "read")).toBe(false);
    expect(await allowed(plain, "privateer.txt", "read")).toBe(true);

    const absolute = await workspaceWith([userRule({ path: path.join(tree.repo, "private") + "/**", read: "deny" })]);
    expect(await allowed(absolute, "private/key.txt", "read")).toBe(false);
    expect(await allowed(absolute, "docs/readme.md", "read")).toBe(true);

    const elsewhere = await workspaceWith([userRule({ path: path.join(tree.outside, "**"), read: "deny" })]);
    expect(await allowed(elsewhere, "private/key.txt", "read")).toBe(true);
  });
});

describe("user rules and defaults", () => {
  test("a user rule with the same path text replaces a default for the operations it names", async () => {
    const workspace = await workspaceWith([userRule({ path: "**/.env", read: "allow" })]);
    expect(await workspace.check(".env", "read")).toMatchObject({ allowed: true, rule: { path: "**/.env", access: "allow" } });
    // Write and delete were not named, so the default still denies them.
    expect(await allowed(workspace, ".env", "write")).toBe(false);
    expect(await allowed(workspace, ".env", "delete")).toBe(false);

    const git = await workspaceWith([userRule({ path: "**/.git/**", write: "allow" })]);
    expect(await allowed(git, ".git/config", "write")).toBe(true);
    expect(await allowed(git, ".git/config", "delete")).toBe(false);
  });

  test("a project rule cannot replace a default", async () => {
    const workspace = await workspaceWith([{ path: "**/.env", read: "allow", source: "project:/repo/ast-mcp.toml" }]);
    expect(await allowed(workspace, ".env", "read")).toBe(false);
  });
});

describe("include and exclude", () => {
  test("exclude takes paths out of a rule", async () => {
    const workspace = await workspaceWith([userRule({ path: "src/**", write: "deny", exclude: ["src/generated/**"] })]);
    expect(await allowed(workspace, "src/a.ts", "write")).toBe(false);
    expect(await workspace.check("src/generated/g.ts", "write")).toMatchObject({ allowed: true, rule: { path: "<roots>" } });
  });

  test("include limits a rule to the paths it matches", async () => {
    const workspace = await workspaceWith([userRule({ path: "**", read: "deny", include: ["**/*.log"] })]);
    expect(await allowed(workspace, "logs/run.log", "read")).toBe(false);
    expect(await allowed(workspace, "docs/readme.md", "read")).toBe(true);
  });
});

describe("links and rules", () => {
  test("a link to an in-root target is checked against the rules of both", async () => {
    const workspace = await workspaceWith([userRule({ path: "private/**", read: "deny" })]);
    // Target denied: reading through an innocent-looking link fails.
    await link(tree, "repo/docs/env-link", "../.env");
    expect(await workspace.check("docs/env-link", "read")).toMatchObject({ allowed: false, rule: { path: "**/.env" } });
    await link(tree, "repo/lib", "private");
    expect(await workspace.check("lib/key.txt", "read")).toMatchObject({ allowed: false, rule: { path: "private/**" } });
    // Link denied: a denied name cannot be read even when it points somewhere allowed.
    await link(tree, "repo/src/.env.local", "../config/dev.env");
    expect(await workspace.check("src/.env.local", "read")).toMatchObject({ allowed: false, rule: { path: "**/.env.*" } });
    // A directory link into .git keeps .git read-only.
    await link(tree, "repo/gitdir", ".git");
    expect(await allowed(workspace, "gitdir/config", "read")).toBe(true);
    expect(await allowed(workspace, "gitdir/config", "write")).toBe(false);
    // Both allowed: followed.
    await link(tree, "repo/src/docs", "../docs");
    expect((await workspace.resolve("src/docs/readme.md", "write")).real).toBe(path.join(tree.repo, "docs/readme.md"));
  });

  test("a link that is itself denied is not followed, even where its target and the final path are allowed", async () => {
    await link(tree, "repo/hidden-docs", "docs");
    // "hidden-*" matches the link but neither "docs" nor anything below the link.
    const workspace = await workspaceWith([userRule({ path: "hidden-*", read: "deny" })]);
    expect(await workspace.check("hidden-docs/readme.md", "read")).toMatchObject({
      allowed: false,
      rule: { path: "hidden-*" },
      reason: expect.stringContaining("(via \"hidden-docs\")"),
    });
    expect(await allowed(workspace, "docs/readme.md", "read")).toBe(true);
  });

  test("a link whose target itself is denied is not followed, even where the final path is allowed", async () => {
    await link(tree, "repo/alias", "private");
    // "private*" matches the directory "private" but not the files beneath it.
    const workspace = await workspaceWith([userRule({ path: "private*", read: "deny" })]);
    expect(await allowed(workspace, "private/key.txt", "read")).toBe(true);
    expect(await workspace.check("alias/key.txt", "read")).toMatchObject({
      allowed: false,
      rule: { path: "private*" },
      reason: expect.stringContaining("(via \"private\")"),
    });
  });

  test("the path as given must pass too, so a directory link cannot dodge a rule naming it", async () => {
    await link(tree, "repo/mirror", "docs");
    const workspace = await workspaceWith([userRule({ path: "mirror/*.md", read: "deny" })]);
    expect(await allowed(workspace, "docs/readme.md", "read")).toBe(true);
    expect(await workspace.check("mirror/readme.md", "read")).toMatchObject({
      allowed: false,
      rule: { path: "mirror/*.md" },
      display: "mirror/readme.md",
    });
    expect(await allowed(workspace, "mirror/notes.txt", "read")).toBe(true);
  });

  test("follow_symlinks = false makes following a link under that rule path_denied", async () => {
    await link(tree, "repo/src/docs", "../docs");
    await link(tree, "repo/notes", "docs/notes.txt");
    const workspace = await workspaceWith([userRule({ path: "src/**", follow_symlinks: false })]);
    const error = await failure(workspace.resolve("src/docs/readme.md", "read"));
    expect(error.code).toBe("path_denied");
    expect(error.message).toContain("follow_symlinks");
    expect(error.details).toMatchObject({ rule: { path: "src/**" }, link: "src/docs" });
    // The target itself, and links elsewhere, are unaffected.
    expect((await workspace.resolve("docs/readme.md", "read")).exists).toBe(true);
    expect((await workspace.resolve("notes", "read")).real).toBe(path.join(tree.repo, "docs/notes.txt"));
    // A more specific rule can allow following again.
    const reopened = await workspaceWith([
      userRule({ path: "src/**", follow_symlinks: false }),
      userRule({ path: "src/docs", follow_symlinks: true }),
    ]);
    expect((await reopened.resolve("src/docs/readme.md", "read")).exists).toBe(true);
  });

  test("in-root links are followed by default", async () => {
    await link(tree, "repo/src/docs", "../docs");
    const workspace = await workspaceWith();
    expect((await workspace.resolve("src/docs/readme.md", "read")).kind).toBe("file");
  });
});

describe("listDirectory", () => {
  const codeOf = (input: string, workspace: Workspace): unknown => {
    try {
      workspace.listDirectory(input);
    } catch (error) {
      return (error as { code?: unknown }).code;
    }
    return undefined;
  };

  test("lists entries allowed for read and hides denied ones, links leading out and link loops", async () => {
    await link(tree, "repo/src/out", tree.outside);
    await link(tree, "repo/src/docs", "../docs");
    await link(tree, "repo/src/loop", "loop");
    const workspace = await workspaceWith();
    const listing = workspace.listDirectory("src");
    expect(listing.entries.map((entry) => entry.name)).toEqual(["a.ts", "docs", "generated"]);
    expect(listing.hidden).toBe(3);
    const docs = listing.entries.find((entry) => entry.name === "docs");
    expect(docs).toMatchObject({ symlink: true, kind: "directory", display: "docs", real: path.join(tree.repo, "docs") });
    expect(listing.entries[0]).toMatchObject({ display: "src/a.ts", relative: "src/a.ts", kind: "file", symlink: false });
    expect(codeOf("src/a.ts", workspace)).toBe("invalid_input");
    expect(codeOf("nope", workspace)).toBe("file_not_found");
    expect(codeOf("src/out", workspace)).toBe("path_outside_roots");
  });
});
