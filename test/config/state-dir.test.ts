import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmod, chown, lstat, mkdir, mkdtemp, realpath, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ToolError } from "../../src/core/errors.ts";
import { assertOutsideRoots, stateDirectory, stateDirectoryPath, userDirectory } from "../../src/config/state-dir.ts";

let base: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "ast-mcp-state-")));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function refusal(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("where the per-user directories are", () => {
  test("each kind by its variable, then an absolute XDG directory, then the platform's place", () => {
    const at = (kind: "config" | "state" | "cache", env: NodeJS.ProcessEnv, platform: NodeJS.Platform, homeDir = platform === "win32" ? "C:\\Users\\u" : "/home/u") =>
      userDirectory(kind, env, { platform, homeDir, cwd: platform === "win32" ? "C:\\w" : "/w" });
    for (
      const [kind, variable, xdg] of [["config", "AST_MCP_CONFIG", "XDG_CONFIG_HOME"], ["state", "AST_MCP_STATE_DIR", "XDG_STATE_HOME"], [
        "cache",
        "AST_MCP_CACHE_DIR",
        "XDG_CACHE_HOME",
      ]] as const
    ) {
      expect(at(kind, { [variable]: " rel ", [xdg]: "/x" }, "linux")).toEqual({ path: "/w/rel", explicit: true });
      expect(at(kind, { [variable]: " ", [xdg]: "/x" }, "linux")).toEqual({ path: "/x/ast-mcp", explicit: false });
      expect(at(kind, { [xdg]: "relative" }, "linux").path).toBe(at(kind, {}, "linux").path);
    }
    expect(["config", "state", "cache"].map((kind) => at(kind as "config", {}, "linux").path)).toEqual([
      "/home/u/.config/ast-mcp",
      "/home/u/.local/state/ast-mcp",
      "/home/u/.cache/ast-mcp",
    ]);
    expect(["config", "state", "cache"].map((kind) => at(kind as "config", {}, "darwin", "/Users/u").path)).toEqual([
      "/Users/u/.config/ast-mcp",
      "/Users/u/Library/Application Support/ast-mcp",
      "/Users/u/Library/Caches/ast-mcp",
    ]);
    expect(["config", "state", "cache"].map((kind) => at(kind as "config", {}, "win32").path)).toEqual([
      "C:\\Users\\u\\AppData\\Roaming\\ast-mcp",
      "C:\\Users\\u\\AppData\\Local\\ast-mcp",
      "C:\\Users\\u\\AppData\\Local\\ast-mcp\\cache",
    ]);
    expect(at("cache", { LOCALAPPDATA: "D:\\L" }, "win32").path).toBe("D:\\L\\ast-mcp\\cache");
    expect(at("config", { APPDATA: "D:\\R" }, "win32").path).toBe("D:\\R\\ast-mcp");
  });
});

describe("where the state directory is", () => {
  test("AST_MCP_STATE_DIR wins, then an absolute XDG_STATE_HOME, then the platform default", () => {
    const home = "/home/u";
    expect(stateDirectoryPath({ AST_MCP_STATE_DIR: "/s", XDG_STATE_HOME: "/x" }, { homeDir: home, platform: "linux" })).toBe("/s");
    expect(stateDirectoryPath({ AST_MCP_STATE_DIR: "rel" }, { homeDir: home, platform: "linux", cwd: "/w" })).toBe("/w/rel");
    expect(stateDirectoryPath({ XDG_STATE_HOME: "/x" }, { homeDir: home, platform: "linux" })).toBe("/x/ast-mcp");
    expect(stateDirectoryPath({ XDG_STATE_HOME: "relative" }, { homeDir: home, platform: "linux" })).toBe("/home/u/.local/state/ast-mcp");
    expect(stateDirectoryPath({}, { homeDir: home, platform: "linux" })).toBe("/home/u/.local/state/ast-mcp");
    expect(stateDirectoryPath({}, { homeDir: "/Users/u", platform: "darwin" })).toBe("/Users/u/Library/Application Support/ast-mcp");
    expect(stateDirectoryPath({ LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" }, { homeDir: "C:\\Users\\u", platform: "win32" })).toBe("C:\\Users\\u\\AppData\\Local\\ast-mcp");
  });
});

describe("checks", () => {
  test("a new state directory is created private (0700) with journal and lock-dirs inside", async () => {
    const dir = await stateDirectory({ AST_MCP_STATE_DIR: path.join(base, "a", "state") });
    expect(dir).toBe(path.join(base, "a", "state"));
    expect((await lstat(dir)).mode & 0o777).toBe(0o700);
    expect((await lstat(path.join(dir, "journal"))).mode & 0o777).toBe(0o700);
    expect((await lstat(path.join(dir, "lock-dirs"))).isDirectory()).toBe(true);
  });

  test("a group- or other-writable state directory is refused", async () => {
    const dir = path.join(base, "open");
    await mkdir(dir);
    await chmod(dir, 0o770);
    const error = await refusal(stateDirectory({ AST_MCP_STATE_DIR: dir }));
    expect(error.message).toContain("writable by group or others");
    await chmod(dir, 0o755);
    expect(await stateDirectory({ AST_MCP_STATE_DIR: dir })).toBe(dir);
  });

  test("a state directory made group-writable after it was checked is refused on the next use", async () => {
    const dir = path.join(base, "later");
    expect(await stateDirectory({ AST_MCP_STATE_DIR: dir })).toBe(dir);
    expect(await stateDirectory({ AST_MCP_STATE_DIR: dir })).toBe(dir);
    await chmod(path.join(dir, "journal"), 0o777);
    const error = await refusal(stateDirectory({ AST_MCP_STATE_DIR: dir }));
    expect(error.message).toContain("writable by group or others");
    await chmod(path.join(dir, "journal"), 0o700);
    await rm(dir, { recursive: true });
    // Removed after it was checked: created again.
    expect(await stateDirectory({ AST_MCP_STATE_DIR: dir })).toBe(dir);
    expect((await lstat(path.join(dir, "lock-dirs"))).isDirectory()).toBe(true);
  });

  test("a state directory owned by another user is refused", async () => {
    const dir = path.join(base, "theirs");
    await mkdir(dir, { mode: 0o700 });
    const me = process.getuid?.() ?? 0;
    // As root the directory can really belong to someone else; otherwise claim to be someone else.
    if (me === 0) await chown(dir, 65534, 65534);
    const error = await refusal(stateDirectory({ AST_MCP_STATE_DIR: dir }, me === 0 ? {} : { uid: me + 1 }));
    expect(error.message).toContain("belongs to user");
  });

  test("a symlinked state directory is refused", async () => {
    await mkdir(path.join(base, "target"), { mode: 0o700 });
    await symlink(path.join(base, "target"), path.join(base, "link"));
    const error = await refusal(stateDirectory({ AST_MCP_STATE_DIR: path.join(base, "link") }));
    expect(error.message).toContain("symbolic link");
  });

  test("the state directory must not lie inside a workspace root", () => {
    expect(() => assertOutsideRoots("/w/repo/.state", ["/w/other", "/w/repo"])).toThrow("inside the workspace root /w/repo");
    expect(() => assertOutsideRoots("/w/repo", ["/w/repo"])).toThrow();
    expect(() => assertOutsideRoots("/w/repo-state", ["/w/repo"])).not.toThrow();
  });
});
