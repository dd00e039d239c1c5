/** Temp-dir trees for the policy tests. */
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { isToolError } from "../../src/core/errors.ts";
import type { PathRule } from "../../src/config/schema.ts";

export interface Tree {
  base: string;
  /** The workspace root (real path). */
  repo: string;
  /** A directory beside the root, outside it. */
  outside: string;
  cleanup(): Promise<void>;
}

/** Creates base/repo and base/outside, then `files` (relative to base) with their contents. */
export async function makeTree(files: Record<string, string> = {}): Promise<Tree> {
  const base = await mkdtemp(path.join(os.tmpdir(), "ast-mcp-policy-"));
  const repo = path.join(base, "repo");
  const outside = path.join(base, "outside");
  await mkdir(repo);
  await mkdir(outside);
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(base, relative);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
  return { base, repo, outside, cleanup: () => rm(base, { recursive: true, force: true }) };
}

/** Makes a symlink at base/`at` whose target text is exactly `target`. */
export async function link(tree: Tree, at: string, target: string): Promise<void> {
  const where = path.join(tree.base, at);
  await mkdir(path.dirname(where), { recursive: true });
  await symlink(target, where);
}

export function userRule(rule: Omit<PathRule, "source">): PathRule {
  return { ...rule, source: "user:/home/test/.config/ast-mcp/ast-mcp.toml" };
}

/** What a caller observes of a ToolError: everything but the stack. */
export async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (!isToolError(error)) throw error;
    return error.toPayload();
  }
  throw new Error("expected a ToolError");
}
