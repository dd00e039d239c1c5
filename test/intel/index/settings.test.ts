/** [index] and [languages] in the configuration, the project file's limits on them, and the cache directory. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config/load.ts";
import type { ConfigSnapshot } from "../../../src/config/types.ts";
import { DEFAULT_CONFIG } from "../../../src/config/schema.ts";
import { indexSettingsFrom } from "../../../src/intel/index/settings.ts";
import { userCacheDirectory } from "../../../src/config/cache-dir.ts";
import { makeFixture, type ConfigFixture } from "../../config/fixture.ts";

let fx: ConfigFixture;
beforeEach(async () => {
  fx = await makeFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

const load = (env: NodeJS.ProcessEnv = {}): Promise<ConfigSnapshot> => loadConfig({ cwd: fx.project, env: { ...fx.env, ...env } });

describe("[index] and [languages] settings", () => {
  test("defaults, user values and language overrides reach the index settings", async () => {
    expect(indexSettingsFrom((await load()).config)).toEqual({
      persist: true,
      maxFiles: DEFAULT_CONFIG.index.max_files,
      maxFileBytes: DEFAULT_CONFIG.index.max_file_bytes,
      languageOverrides: {},
    });
    await fx.writeUser("[index]\npersist = false\nmax_files = 100000\n[languages]\noverrides = { \"*.tmpl.js\" = \"javascript\", \"Jakefile\" = \"javascript\" }\n");
    const snapshot = await load();
    expect(snapshot.problems).toEqual([]);
    expect(indexSettingsFrom(snapshot.config)).toMatchObject({ persist: false, maxFiles: 100_000, languageOverrides: { "*.tmpl.js": "javascript", Jakefile: "javascript" } });
  });

  test("an unknown language in overrides is a configuration problem", async () => {
    await fx.writeUser("[languages]\noverrides = { \"*.x\" = \"klingon\" }\n");
    const snapshot = await load();
    expect(snapshot.problems.map((problem) => problem.keyPath)).toContain("languages.overrides.*.x");
  });

  test("the environment sets overrides as glob=language pairs", async () => {
    const snapshot = await load({ AST_MCP_LANGUAGES_OVERRIDES: "*.tmpl=javascript, *.inc=php", AST_MCP_INDEX_MAX_FILE_BYTES: "4096" });
    expect(snapshot.problems).toEqual([]);
    expect(snapshot.config.languages.overrides).toEqual({ "*.tmpl": "javascript", "*.inc": "php" });
    expect(snapshot.config.index.max_file_bytes).toBe(4096);
    const bad = await load({ AST_MCP_LANGUAGES_OVERRIDES: "no-equals-sign" });
    expect(bad.problems.map((problem) => problem.keyPath)).toEqual(["languages.overrides"]);
  });

  test("a project file may lower the limits and turn persistence and background indexing off, never raise or turn them on", async () => {
    await fx.writeProject("[index]\nmax_files = 10\nmax_file_bytes = 8388608\npersist = false\nbackground = false\n[languages]\noverrides = { \"*.tpl\" = \"html\" }\n");
    const snapshot = await load();
    expect(snapshot.config.index).toEqual({ persist: false, background: false, max_files: 10, max_file_bytes: DEFAULT_CONFIG.index.max_file_bytes });
    expect(snapshot.config.languages.overrides).toEqual({ "*.tpl": "html" });
    expect(snapshot.warnings.some((warning) => warning.includes("index.max_file_bytes"))).toBe(true);

    await fx.writeProject("[index]\npersist = true\nbackground = true\n");
    await fx.writeUser("[index]\npersist = false\nbackground = false\n");
    expect((await load()).config.index).toMatchObject({ persist: false, background: false });
  });
});

describe("cache directory", () => {
  test("AST_MCP_CACHE_DIR, XDG_CACHE_HOME, and the platform defaults", () => {
    expect(userCacheDirectory({ AST_MCP_CACHE_DIR: "/custom" }, { homeDir: "/home/u" })).toBe("/custom");
    expect(userCacheDirectory({ XDG_CACHE_HOME: "/xdg" }, { homeDir: "/home/u", platform: "linux" })).toBe("/xdg/ast-mcp");
    expect(userCacheDirectory({ XDG_CACHE_HOME: "relative" }, { homeDir: "/home/u", platform: "linux" })).toBe("/home/u/.cache/ast-mcp");
    expect(userCacheDirectory({}, { homeDir: "/Users/u", platform: "darwin" })).toBe("/Users/u/Library/Caches/ast-mcp");
    expect(userCacheDirectory({ LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" }, { homeDir: "C:\\Users\\u", platform: "win32" })).toBe(
      "C:\\Users\\u\\AppData\\Local\\ast-mcp\\cache",
    );
  });

  test("AST_MCP_CACHE_DIR is not reported as an unknown setting", async () => {
    const snapshot = await load({ AST_MCP_CACHE_DIR: "/somewhere" });
    expect(snapshot.warnings.some((warning) => warning.includes("AST_MCP_CACHE_DIR"))).toBe(false);
  });
});
