import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { runConfigCommand } from "../../src/cli/config-command.ts";
import type { RedactedConfigView } from "../../src/config/view.ts";
import { makeFixture } from "./fixture.ts";
import type { ConfigFixture } from "./fixture.ts";

let fx: ConfigFixture;
beforeEach(async () => {
  fx = await makeFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

async function run(argv: string[], env: NodeJS.ProcessEnv = fx.env, cwd = fx.project) {
  let stdout = "";
  let stderr = "";
  const code = await runConfigCommand(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), cwd, env });
  return { code, stdout, stderr };
}

describe("config validate", () => {
  test("exits 0 for a valid configuration, showing warnings without failing", async () => {
    await fx.writeUser("[http]\nport = 4000\n");
    await fx.writeProject("[http]\nport = 9\n");
    const result = await run(["validate"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("configuration is valid");
    expect(result.stderr).toContain("warning:");
    expect(result.stderr).toContain("http.port");
  });

  test("exits 1 and lists every problem", async () => {
    await fx.writeUser("[http]\nprot = 1\n");
    await fx.writeProject("[log]\nlevl = \"debug\"\n");
    const result = await run(["validate"], { ...fx.env, AST_MCP_HTTP_PORT: "nope" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${fx.userFile}: http.prot`);
    expect(result.stderr).toContain(`${fx.projectFile}: log.levl`);
    expect(result.stderr).toContain("env:AST_MCP_HTTP_PORT");
    expect(result.stdout).toContain("3 problems");
  });

  test("--json reports validity, problems and the roots given", async () => {
    await fx.writeUser("[http]\nprot = 1\n");
    const result = await run(["validate", "--json", fx.project], fx.env, fx.base);
    expect(result.code).toBe(1);
    const parsed = JSON.parse(result.stdout) as { valid: boolean; problems: Array<{ keyPath: string }>; roots: string[] };
    expect(parsed.valid).toBe(false);
    expect(parsed.problems.map((problem) => problem.keyPath)).toEqual(["http.prot"]);
    expect(parsed.roots).toEqual([fx.project]);
  });
});

describe("config show", () => {
  test("--json prints every setting with its source, the rules, and no token", async () => {
    await fx.writeUser("[http]\nport = 4000\n[[paths]]\npath = \"out/**\"\nwrite = \"allow\"\n");
    await fx.writeProject("[[paths]]\npath = \"vendor/**\"\nwrite = \"deny\"\n");
    const result = await run(["show", "--json"], { ...fx.env, AST_MCP_HTTP_HOST: "localhost", AST_MCP_TOKEN: "hunter2" });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("hunter2");
    const view = JSON.parse(result.stdout) as RedactedConfigView;
    expect(view.settings["http.port"]).toEqual({ value: 4000, source: `user:${fx.userFile}` });
    expect(view.settings["http.host"]).toEqual({ value: "localhost", source: "env:AST_MCP_HTTP_HOST" });
    expect(view.settings["http.token_file"]).toEqual({ value: null, source: "default" });
    expect(view.settings["workspace.roots"]).toEqual({ value: [fx.project], source: "default" });
    expect(view.token).toEqual({ set: true, source: "env:AST_MCP_TOKEN" });
    expect(view.rules.slice(-2)).toEqual([
      { path: "out/**", write: "allow", source: `user:${fx.userFile}` },
      { path: "vendor/**", write: "deny", source: `project:${fx.projectFile}` },
    ]);
  });

  test("text output has one `key = value  # source` line per setting and the rules", async () => {
    await fx.writeUser("[log]\nlevel = \"debug\"\n");
    const result = await run(["show"]);
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines).toContain(`log.level = "debug"  # user:${fx.userFile}`);
    expect(lines).toContain(`http.port = 3768  # default`);
    expect(lines).toContain("http.token_file = (not set)  # default");
    expect(lines.some((line) => line.startsWith("path = \"**/.git/**\"") && line.endsWith("# default"))).toBe(true);
  });
});

describe("usage", () => {
  test("--help prints usage on stdout and exits 0", async () => {
    const result = await run(["--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Usage: ast-mcp config");
  });

  test.each([[[]], [["frobnicate"]], [["validate", "--yaml"]], [["show", "-x"]]])("%p is a usage error (exit 2)", async (argv) => {
    const result = await run(argv as string[]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("Usage: ast-mcp config");
  });
});
