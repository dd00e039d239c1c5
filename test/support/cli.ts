/** Shared helpers for end-to-end tests that run the built CLI under Node. */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export const PROJECT_DIR = join(import.meta.dir, "..", "..");
export const CLI = join(PROJECT_DIR, "dist", "cli.js");

/** An isolated HOME and XDG config dir so the developer's own configuration never leaks into a test. */
export async function isolatedEnv(extra: Record<string, string> = {}): Promise<{ env: Record<string, string>; home: string; cleanup: () => Promise<void> }> {
  const home = await realpath(await mkdtemp(join(tmpdir(), "ast-mcp-home-")));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_CACHE_HOME: join(home, ".cache"),
    AST_MCP_LOG_LEVEL: "warn",
    ...extra,
  };
  return { env, home, cleanup: () => rm(home, { recursive: true, force: true, maxRetries: 5 }) };
}

export async function tempRoot(prefix = "ast-mcp-root-"): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), prefix)));
}

export function spawnCli(args: string[], env: Record<string, string>, cwd = PROJECT_DIR): ChildProcessWithoutNullStreams {
  return spawn(process.execPath.includes("bun") ? "node" : process.execPath, [CLI, ...args], { env, cwd, stdio: "pipe" });
}

export function exitOf(child: ChildProcessWithoutNullStreams): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once("exit", (code, signal) => resolve({ code, signal }));
  });
}

/** Runs the CLI to completion and returns its output. */
export async function runCli(args: string[], env: Record<string, string>, cwd = PROJECT_DIR): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnCli(args, env, cwd);
  child.stdin.end();
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const { code } = await exitOf(child);
  return { code, stdout, stderr };
}

export async function connectStdio(args: string[], env: Record<string, string>, cwd = PROJECT_DIR): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({ command: "node", args: [CLI, ...args], env, cwd, stderr: "pipe" });
  const client = new Client({ name: "ast-mcp-test", version: "0.0.0" });
  await client.connect(transport);
  return { client, transport };
}

export async function connectHttp(url: string, headers: Record<string, string> = {}): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: "ast-mcp-test", version: "0.0.0" });
  await client.connect(transport);
  return { client, transport };
}

/** Starts `ast-mcp mcp --transport http` and waits for the line that names its URL. */
export async function startHttpCli(args: string[], env: Record<string, string>): Promise<{ child: ChildProcessWithoutNullStreams; url: string; stderr: () => string }> {
  const child = spawnCli(["mcp", "--transport", "http", "--port", "0", ...args], { ...env, AST_MCP_LOG_LEVEL: "info" });
  let stderr = "";
  child.stdout.resume();
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 20_000);
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${stderr}`));
    });
  });
  return { child, url, stderr: () => stderr };
}

/** Parses the structured error an isError result carries in its text. */
export function errorOf(result: unknown): { code: string; message: string; hint: string; retryable: boolean; suggestedNextCall?: unknown } {
  const r = result as { isError?: boolean; content?: Array<{ type: string; text?: string }> };
  if (!r.isError) throw new Error(`expected an error result, got ${JSON.stringify(result).slice(0, 500)}`);
  const text = r.content?.[0]?.text ?? "";
  return (JSON.parse(text) as { error: ReturnType<typeof errorOf> }).error;
}
