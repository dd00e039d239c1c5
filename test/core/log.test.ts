import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

describe("stdout guard", () => {
  test("console output from any module goes to stderr once the guard is installed", () => {
    const script =
      `import { guardStdout } from "./src/core/log.ts"; guardStdout(); console.log("stray", {a: 1}); console.info("info"); console.warn("warn"); console.debug("debug");`;
    const result = spawnSync(process.execPath, ["-e", script], { cwd: ROOT, encoding: "utf8" });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("stray {\"a\":1}");
    expect(result.stderr).toContain("info");
  });

  test("log lines respect AST_MCP_LOG_LEVEL and go to stderr", () => {
    const script = `import { log } from "./src/core/log.ts"; log.debug("dbg"); log.info("inf"); log.warn("wrn");`;
    const quiet = spawnSync(process.execPath, ["-e", script], { cwd: ROOT, encoding: "utf8", env: { ...process.env, AST_MCP_LOG_LEVEL: "warn" } });
    expect(quiet.stdout).toBe("");
    expect(quiet.stderr).not.toContain("dbg");
    expect(quiet.stderr).not.toContain("inf");
    expect(quiet.stderr).toContain("ast-mcp warn: wrn");
    const loud = spawnSync(process.execPath, ["-e", script], { cwd: ROOT, encoding: "utf8", env: { ...process.env, AST_MCP_LOG_LEVEL: "debug" } });
    expect(loud.stderr).toContain("ast-mcp debug: dbg");
  });
});
