/**
 * The Claude Desktop bundle (scripts/build-mcpb.ts): built once for this file, unpacked with the
 * mcpb CLI the way a host unpacks it, and the server started from the unpacked folder alone, with the
 * command its manifest gives, over stdio.
 *
 * The build fetches the other platforms' napi binaries with `npm pack` (kept in build/mcpb/cache
 * between runs). When that needs the npm registry and the registry cannot be reached, the build says
 * so with its own exit status and every test here is skipped with that reason in its name; any other
 * failure fails.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import pkg from "../../package.json" with { type: "json" };
import napiPackage from "@ast-grep/napi/package.json" with { type: "json" };
import { REGISTRY_UNREACHABLE_EXIT } from "../../scripts/build-mcpb.ts";
import { TOOLS } from "../../src/tools/index.ts";
import { isolatedEnv, PROJECT_DIR } from "../support/cli.ts";

const NODE = process.execPath.includes("bun") ? "node" : process.execPath;
const MCPB_CLI = join(PROJECT_DIR, "node_modules", "@anthropic-ai", "mcpb", "dist", "cli", "cli.js");

const work = await realpath(await mkdtemp(join(tmpdir(), "ast-mcp-mcpb-")));
const built = spawnSync(process.execPath, [join(PROJECT_DIR, "scripts", "build-mcpb.ts"), "--out", join(work, "out"), "--cache", join(PROJECT_DIR, "build", "mcpb", "cache")], {
  cwd: PROJECT_DIR,
  encoding: "utf8",
});
const unreachable = built.status === REGISTRY_UNREACHABLE_EXIT ? built.stderr.trim() : undefined;
if (unreachable) console.error(`\n*** SKIPPING the .mcpb bundle tests: ${unreachable} ***\n`);
const skipped = unreachable ? ` — SKIPPED, npm registry unreachable: ${unreachable}` : "";
const bundle = built.stdout.trim();
const unpacked = join(work, "unpacked");

afterAll(async () => rm(work, { recursive: true, force: true, maxRetries: 5 }));

interface Manifest {
  name: string;
  version: string;
  server: { type: string; entry_point: string; mcp_config: { command: string; args: string[]; env: Record<string, string> } };
  tools: Array<{ name: string; description: string }>;
  compatibility: { platforms: string[]; runtimes: { node: string } };
  user_config: Record<string, { type: string; multiple?: boolean; required?: boolean; default?: unknown }>;
}
let manifest: Manifest;

/** What a host does with mcp_config: ${__dirname} is the unpacked folder, each ${user_config.KEY} the user's value (a list expands to several arguments). */
function substitute(values: readonly string[], userConfig: Record<string, string | string[]>): string[] {
  return values.flatMap((value) => {
    const whole = /^\$\{user_config\.(\w+)\}$/.exec(value);
    const chosen = whole ? userConfig[whole[1]!] : undefined;
    if (Array.isArray(chosen)) return chosen;
    return [value.replaceAll("${__dirname}", unpacked).replace(/\$\{user_config\.(\w+)\}/g, (_, key: string) => String(userConfig[key] ?? ""))];
  });
}

describe("the Claude Desktop bundle", () => {
  test.skipIf(unreachable !== undefined)(`builds with the mcpb CLI and unpacks the way a host unpacks it${skipped}`, () => {
    expect({ status: built.status, stderr: built.status === 0 ? "" : built.stderr }).toEqual({ status: 0, stderr: "" });
    expect(bundle.endsWith(`${pkg.name}-${pkg.version}.mcpb`)).toBe(true);
    const unpack = spawnSync(NODE, [MCPB_CLI, "unpack", bundle, unpacked], { encoding: "utf8" });
    expect(unpack.status).toBe(0);
    manifest = JSON.parse(readFileSync(join(unpacked, "manifest.json"), "utf8")) as Manifest;
    expect(manifest.name).toBe(pkg.name);
  }, 600_000);

  test.skipIf(unreachable !== undefined)(`its manifest lists every tool, this version, the Node range and how to start the server${skipped}`, () => {
    expect(manifest.tools.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
    for (const tool of manifest.tools) expect(tool.description.length).toBeGreaterThan(0);
    expect(manifest.version).toBe(pkg.version);
    expect(manifest.compatibility.runtimes.node).toBe(pkg.engines.node);
    expect(manifest.compatibility.platforms.sort()).toEqual(["darwin", "linux", "win32"]);
    expect(manifest.server).toMatchObject({ type: "node", entry_point: "dist/cli.js", mcp_config: { command: "node" } });
    expect(manifest.server.mcp_config.args.slice(0, 2)).toEqual(["${__dirname}/dist/cli.js", "mcp"]);
    expect(manifest.user_config.roots).toMatchObject({ type: "directory", multiple: true, required: true });
  });

  test.skipIf(unreachable !== undefined)(`it carries napi for every platform npm serves and every grammar's prebuilt parsers, not their sources${skipped}`, () => {
    const platforms = Object.keys(napiPackage.optionalDependencies);
    expect(platforms.length).toBeGreaterThanOrEqual(9);
    for (const name of platforms) {
      const dir = join(unpacked, "node_modules", name);
      expect({ name, binaries: readdirSync(dir).filter((file) => file.endsWith(".node")).length }).toEqual({ name, binaries: 1 });
    }
    const grammars = Object.keys(pkg.dependencies).filter((name) => name.startsWith("@ast-grep/lang-"));
    expect(grammars.length).toBeGreaterThan(20);
    for (const name of grammars) {
      const dir = join(unpacked, "node_modules", name);
      const prebuilds = readdirSync(join(dir, "prebuilds")).filter((platform) => existsSync(join(dir, "prebuilds", platform, "parser.so")));
      expect({ name, linux: prebuilds.includes("prebuild-Linux-X64"), sources: existsSync(join(dir, "src")), rootParser: existsSync(join(dir, "parser.so")) }).toEqual({
        name,
        linux: true,
        sources: false,
        rootParser: false,
      });
    }
    // mcpb pack drops *.d.ts unless told otherwise; typed answers need the compiler's lib files.
    expect(existsSync(join(unpacked, "node_modules", "typescript", "lib", "lib.es5.d.ts"))).toBe(true);
    expect(existsSync(join(unpacked, "templates", "AGENTS.md"))).toBe(true);
  });

  test.skipIf(unreachable !== undefined)(`the Linux server starts from the unpacked bundle over stdio, lists its tools, answers reads and writes${skipped}`, async () => {
    const root = join(work, "project");
    await mkdir(root);
    await writeFile(join(root, "notes.txt"), "first line\nsecond line\n");
    await writeFile(join(root, "app.py"), "def greet(name):\n    return name\n");
    await writeFile(join(root, "Main.hs"), "main :: IO ()\nmain = putStrLn \"hi\"\n");
    await writeFile(join(root, "settings.toml"), "[server]\nport = 1\n");
    const formatted = "export const a = 1;\nexport function twice(n: number) {\n  return n * 2;\n}\n";
    await writeFile(join(root, "typed.ts"), formatted);
    const { env, cleanup } = await isolatedEnv();
    const userConfig = { roots: [root] };
    // Started outside the project, so nothing resolves from the project's own node_modules.
    const transport = new StdioClientTransport({
      command: NODE,
      args: substitute(manifest.server.mcp_config.args, userConfig),
      env: { ...env, ...Object.fromEntries(Object.entries(manifest.server.mcp_config.env).map(([key, value]) => [key, substitute([value], userConfig)[0] ?? ""])) },
      cwd: work,
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: "mcpb-test", version: "0" });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS.map((tool) => tool.name).sort());

      const read = await client.callTool({ name: "file_read", arguments: { files: [{ filePath: "notes.txt" }] } });
      expect(read.isError).toBeFalsy();
      expect(JSON.stringify(read.structuredContent)).toContain("second line");

      // Grammars load from the bundle's prebuilds, the older packages (haskell, toml) without an install step.
      const capabilities = await client.callTool({ name: "file_capabilities", arguments: { filePaths: ["app.py", "Main.hs", "settings.toml"] } });
      const files = (capabilities.structuredContent as { files: Array<{ path: string; patchStrategies?: string[] }> }).files;
      expect(files.map((file) => ({ path: file.path, ast: file.patchStrategies?.includes("ast") }))).toEqual([
        { path: "app.py", ast: true },
        { path: "Main.hs", ast: true },
        { path: "settings.toml", ast: true },
      ]);

      // The TypeScript compiler (typed answers, with its lib files) and dprint (writes) load from the bundle too.
      const map = await client.callTool({ name: "map", arguments: { paths: ["typed.ts"], typed: true } });
      expect(JSON.stringify(map.structuredContent)).toContain("\"returnType\":\"number\"");
      const write = await client.callTool({
        name: "file_write",
        arguments: {
          files: { "typed.ts": { content: formatted.replace("const a = 1;", "const a   =   2"), expectedSha256: createHash("sha256").update(formatted).digest("hex") } },
        },
      });
      expect(write.isError).toBeFalsy();
      expect(readFileSync(join(root, "typed.ts"), "utf8")).toBe(formatted.replace("1", "2"));
      expect(stderr).not.toContain("unavailable");
    } finally {
      await transport.close();
      await cleanup();
    }
  }, 120_000);
});
