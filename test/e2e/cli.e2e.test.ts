/** The command line itself: help, version, usage errors. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { isolatedEnv, runCli } from "../support/cli.ts";

let env: Record<string, string>;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ env, cleanup } = await isolatedEnv()));
afterAll(async () => cleanup());

describe("cli", () => {
  test("--version prints the package version", async () => {
    const { code, stdout } = await runCli(["--version"], env);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(pkg.version);
  });

  test("--help and <command> --help print usage on stdout", async () => {
    const top = await runCli(["--help"], env);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain("Usage: ast-mcp <command>");
    const mcp = await runCli(["mcp", "--help"], env);
    expect(mcp.code).toBe(0);
    expect(mcp.stdout).toContain("--transport stdio|http");
    const config = await runCli(["config", "--help"], env);
    expect(config.code).toBe(0);
    expect(config.stdout).toContain("validate");
  });

  test("unknown commands and flags: usage on stderr, exit 2", async () => {
    const command = await runCli(["frobnicate"], env);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain("unknown command");
    expect(command.stdout).toBe("");
    const flag = await runCli(["mcp", "--bogus"], env);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("unknown option --bogus");
    const choice = await runCli(["mcp", "--transport", "carrier-pigeon"], env);
    expect(choice.code).toBe(2);
    const none = await runCli([], env);
    expect(none.code).toBe(2);
  });

  test("an invalid configuration refuses to start the server", async () => {
    const { mkdir, writeFile } = await import("node:fs/promises");
    const { join } = await import("node:path");
    await mkdir(join(env.XDG_CONFIG_HOME as string, "ast-mcp"), { recursive: true });
    const file = join(env.XDG_CONFIG_HOME as string, "ast-mcp", "ast-mcp.toml");
    await writeFile(file, "[http]\nprot = 1\n");
    try {
      const { code, stderr } = await runCli(["mcp", "--transport", "http", "--port", "0"], env);
      expect(code).toBe(1);
      expect(stderr).toContain("http.prot");
      const validate = await runCli(["config", "validate"], env);
      expect(validate.code).toBe(1);
    } finally {
      const { rm } = await import("node:fs/promises");
      await rm(file);
    }
  });
});
