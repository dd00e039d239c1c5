/** The [hook] section: user settings, environment, and a project file that may only tighten it. */
import { describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";

async function setup(user: string, project: string) {
  const base = await realpath(await mkdtemp(join(tmpdir(), "ast-mcp-hookcfg-")));
  const home = join(base, "home");
  const root = join(base, "repo");
  await mkdir(join(home, ".config", "ast-mcp"), { recursive: true });
  await mkdir(root);
  await writeFile(join(home, ".config", "ast-mcp", "ast-mcp.toml"), user);
  await writeFile(join(root, "ast-mcp.toml"), project);
  return { home, root, cleanup: () => rm(base, { recursive: true, force: true }) };
}

describe("[hook] configuration", () => {
  test("defaults to deny with empty allow-lists", async () => {
    const { home, root, cleanup } = await setup("", "");
    try {
      const snapshot = await loadConfig({ cwd: root, cliRoots: [root], env: { HOME: home } });
      expect(snapshot.config.hook).toEqual({ mode: "deny", allow_paths: [], allow_commands: [] });
    } finally {
      await cleanup();
    }
  });

  test("the user file sets everything; the project may only switch the mode to deny", async () => {
    const { home, root, cleanup } = await setup(
      '[hook]\nmode = "warn"\nallow_paths = ["docs/**"]\nallow_commands = ["prettier"]\n',
      '[hook]\nmode = "deny"\nallow_paths = ["**"]\nallow_commands = ["rm"]\n',
    );
    try {
      const snapshot = await loadConfig({ cwd: root, cliRoots: [root], env: { HOME: home } });
      expect(snapshot.config.hook).toEqual({ mode: "deny", allow_paths: ["docs/**"], allow_commands: ["prettier"] });
      expect(snapshot.warnings.join("\n")).toContain("hook.allow_paths ignored");
      expect(snapshot.warnings.join("\n")).toContain("hook.allow_commands ignored");
    } finally {
      await cleanup();
    }
  });

  test("a project cannot loosen the mode", async () => {
    const { home, root, cleanup } = await setup("", '[hook]\nmode = "off"\n');
    try {
      const snapshot = await loadConfig({ cwd: root, cliRoots: [root], env: { HOME: home } });
      expect(snapshot.config.hook.mode).toBe("deny");
      expect(snapshot.warnings.join("\n")).toContain('hook.mode = "off" ignored');
    } finally {
      await cleanup();
    }
  });

  test("AST_MCP_HOOK_MODE and a bad value", async () => {
    const { home, root, cleanup } = await setup('[hook]\nmode = "maybe"\n', "");
    try {
      const fromEnv = await loadConfig({ cwd: root, cliRoots: [root], env: { HOME: home, AST_MCP_HOOK_MODE: "off" } });
      expect(fromEnv.config.hook.mode).toBe("off");
      expect(fromEnv.problems.map((problem) => problem.keyPath)).toContain("hook.mode");
    } finally {
      await cleanup();
    }
  });
});
