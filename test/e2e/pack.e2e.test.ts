/**
 * Installs the package from `npm pack` into an empty folder and runs it from there,
 * so bundling never bakes in paths of the build machine.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { isolatedEnv, PROJECT_DIR, tempRoot } from "../support/cli.ts";

let work: string;
let env: Record<string, string>;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ env, cleanup } = await isolatedEnv({ npm_config_cache: join(process.env.HOME ?? "/tmp", ".npm") }));
  work = await tempRoot("ast-mcp-pack-");
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
  await cleanup();
});

function run(command: string, args: string[], cwd: string) {
  const result = spawnSync(command, args, { cwd, env: { ...process.env, npm_config_update_notifier: "false" }, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

describe("npm pack install", () => {
  test("the packed package installs into an empty folder and serves tools from there", async () => {
    // --ignore-scripts: the suite already built dist/; rebuilding here would race other tests.
    run("npm", ["pack", "--ignore-scripts", "--pack-destination", work], PROJECT_DIR);
    const tarball = (await readdir(work)).find((f) => f.endsWith(".tgz"));
    expect(tarball).toBeDefined();
    const app = join(work, "app");
    await mkdir(app);
    await writeFile(join(app, "package.json"), JSON.stringify({ name: "consumer", private: true }));
    run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", join(work, tarball as string)], app);

    const bin = join(app, "node_modules", ".bin", "ast-mcp");
    expect(run(bin, ["--version"], app).trim()).toMatch(/^\d+\.\d+\.\d+/);

    // The hook runs from its own bundle (dist/hook.cjs), its configuration loader from another file.
    await mkdir(join(app, ".git"));
    const hook = spawnSync(bin, ["hook", "--host", "claude"], {
      cwd: app,
      env,
      input: JSON.stringify({ hook_event_name: "PreToolUse", tool_name: "Edit", tool_input: { file_path: join(app, "package.json") }, cwd: app }),
      encoding: "utf8",
    });
    expect(hook.stderr).toBe("");
    expect(JSON.parse(hook.stdout).hookSpecificOutput.permissionDecision).toBe("deny");

    const transport = new StdioClientTransport({ command: bin, args: ["mcp", app], env, cwd: app, stderr: "pipe" });
    const client = new Client({ name: "pack-test", version: "0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("file_read");
      const result = await client.callTool({ name: "file_read", arguments: { files: [{ filePath: "package.json" }] } });
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.structuredContent)).toContain("consumer");
    } finally {
      await transport.close();
    }
  }, 240_000);
});
