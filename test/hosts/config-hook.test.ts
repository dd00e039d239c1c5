/** The [hook] section: user settings, environment, and a project file that may only tighten it. */
import { describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { loadHookSettings } from "../../src/hosts/hook/run.ts";
import { fingerprintFileSync, settingsCacheKey } from "../../src/hosts/hook/settings-cache.ts";
import { fingerprintFile } from "../../src/config/fingerprint.ts";

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
      "[hook]\nmode = \"warn\"\nallow_paths = [\"docs/**\"]\nallow_commands = [\"prettier\"]\n",
      "[hook]\nmode = \"deny\"\nallow_paths = [\"**\"]\nallow_commands = [\"rm\"]\n",
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
    const { home, root, cleanup } = await setup("", "[hook]\nmode = \"off\"\n");
    try {
      const snapshot = await loadConfig({ cwd: root, cliRoots: [root], env: { HOME: home } });
      expect(snapshot.config.hook.mode).toBe("deny");
      expect(snapshot.warnings.join("\n")).toContain("hook.mode = \"off\" ignored");
    } finally {
      await cleanup();
    }
  });

  test("AST_MCP_HOOK_MODE and a bad value", async () => {
    const { home, root, cleanup } = await setup("[hook]\nmode = \"maybe\"\n", "");
    try {
      const fromEnv = await loadConfig({ cwd: root, cliRoots: [root], env: { HOME: home, AST_MCP_HOOK_MODE: "off" } });
      expect(fromEnv.config.hook.mode).toBe("off");
      expect(fromEnv.problems.map((problem) => problem.keyPath)).toContain("hook.mode");
    } finally {
      await cleanup();
    }
  });
});

describe("[hook] settings remembered between hook runs", () => {
  // Each test gets its own state directory, so the cache file is the test's alone.
  async function withState(home: string) {
    return { HOME: home, AST_MCP_STATE_DIR: join(home, "state") };
  }

  test("a second run with unchanged files answers from the cache, which it really reads", async () => {
    const { home, root, cleanup } = await setup("[hook]\nmode = \"warn\"\n", "");
    try {
      const env = await withState(home);
      expect((await loadHookSettings(root, env)).settings.mode).toBe("warn");
      const cacheFile = join(env.AST_MCP_STATE_DIR, "hook-settings.json");
      const saved = JSON.parse(await readFile(cacheFile, "utf8"));
      expect(saved.entries).toHaveLength(1);
      expect(saved.entries[0].key).toBe(settingsCacheKey(root, env));
      // Proof the cached answer is used: edit it in place (the files it depends on are unchanged).
      saved.entries[0].settings.allowCommands = ["from-the-cache"];
      await writeFile(cacheFile, JSON.stringify(saved));
      expect((await loadHookSettings(root, env)).settings.allowCommands).toEqual(["from-the-cache"]);
    } finally {
      await cleanup();
    }
  });

  test("the cache checks files with the same fingerprints the loader records", async () => {
    const { root, cleanup } = await setup("", "");
    try {
      const file = join(root, "ast-mcp.toml");
      const cases = [file, join(root, "missing.toml"), join(file, "under-a-file.toml"), join(root, "x".repeat(300))];
      for (const path of cases) expect(fingerprintFileSync(path)).toEqual(await fingerprintFile(path));
      expect(fingerprintFileSync(file).exists).toBe(true);
      expect(fingerprintFileSync(join(root, "missing.toml")).exists).toBe(false);
      expect(fingerprintFileSync(join(root, "x".repeat(300))).size).toBe(-1);
    } finally {
      await cleanup();
    }
  });

  test("a changed, created or removed configuration file, or a different environment, loads again", async () => {
    const { home, root, cleanup } = await setup("[hook]\nmode = \"warn\"\n", "");
    try {
      const env = await withState(home);
      expect((await loadHookSettings(root, env)).settings.mode).toBe("warn");
      await writeFile(join(home, ".config", "ast-mcp", "ast-mcp.toml"), "[hook]\nmode = \"off\"\nallow_commands = [\"make\"]\n");
      expect((await loadHookSettings(root, env)).settings).toEqual({ mode: "off", allowPaths: [], allowCommands: ["make"] });
      await writeFile(join(root, "ast-mcp.toml"), "[hook]\nmode = \"deny\"\n");
      expect((await loadHookSettings(root, env)).settings.mode).toBe("deny");
      await rm(join(root, "ast-mcp.toml"));
      expect((await loadHookSettings(root, env)).settings.mode).toBe("off");
      expect((await loadHookSettings(root, { ...env, AST_MCP_HOOK_MODE: "warn" })).settings.mode).toBe("warn");
      expect((await loadHookSettings(root, env)).settings.mode).toBe("off");
    } finally {
      await cleanup();
    }
  });

  test("a damaged or foreign-shaped cache file is a miss, and problems are reported from the cache too", async () => {
    const { home, root, cleanup } = await setup("[hook]\nmode = \"maybe\"\n", "");
    try {
      const env = await withState(home);
      const first = await loadHookSettings(root, env);
      expect(first.warnings.join("\n")).toContain("hook.mode");
      expect((await loadHookSettings(root, env)).warnings).toEqual(first.warnings);
      const cacheFile = join(env.AST_MCP_STATE_DIR, "hook-settings.json");
      for (const damaged of ["{not json", JSON.stringify({ version: 1, entries: [{ key: settingsCacheKey(root, env), settings: { mode: "sometimes" } }] })]) {
        await writeFile(cacheFile, damaged);
        expect((await loadHookSettings(root, env)).settings.mode).toBe("deny");
      }
    } finally {
      await cleanup();
    }
  });
});
