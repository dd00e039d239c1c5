/** Shared setup for the commit machinery tests: a workspace root and a private state directory per test. */
import { type ChildProcess, spawn } from "node:child_process";
import { chmod, lstat, mkdir, mkdtemp, readFile, readdir, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sha256Hex } from "../../src/helpers/hash.ts";
import type { CommitMeta } from "../../src/patch/commit.ts";
import { currentProcess } from "../../src/patch/process-identity.ts";
import { stateDirectory } from "../../src/config/state-dir.ts";

export const CHILDREN = path.join(import.meta.dir, "children");

export interface CommitFixture {
  base: string;
  root: string;
  stateDir: string;
  meta: CommitMeta;
  at(relative: string): string;
  /** Writes a file (creating parents) and returns its sha256. */
  put(relative: string, content: string | Buffer, mode?: number): Promise<string>;
  /** The file's text, or undefined when it does not exist. */
  text(relative: string): Promise<string | undefined>;
  cleanup(): Promise<void>;
}

export function sha(content: string | Buffer): string {
  return sha256Hex(typeof content === "string" ? Buffer.from(content) : content);
}

export async function makeCommitFixture(): Promise<CommitFixture> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), "ast-mcp-commit-")));
  const root = path.join(base, "root");
  await mkdir(root);
  const stateDir = await stateDirectory({ AST_MCP_STATE_DIR: path.join(base, "state") });
  const at = (relative: string) => path.join(root, relative);
  return {
    base,
    root,
    stateDir,
    meta: { sessionId: "test-session", tool: "test", roots: [root] },
    at,
    async put(relative, content, mode) {
      const file = at(relative);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content);
      if (mode !== undefined) await chmod(file, mode);
      return sha(content);
    },
    async text(relative) {
      try {
        return await readFile(at(relative), "utf8");
      } catch {
        return undefined;
      }
    },
    cleanup: () => rm(base, { recursive: true, force: true, maxRetries: 5 }),
  };
}

/** Every entry under `dir` with its kind, mode and content hash: two equal snapshots mean nothing changed. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const entry of (await readdir(dir, { recursive: true })).sort()) {
    const full = path.join(dir, entry);
    const stats = await lstat(full);
    const mode = (stats.mode & 0o7777).toString(8);
    result[entry] = stats.isDirectory() ? `dir ${mode}` : stats.isFile() ? `file ${mode} ${sha(await readFile(full))}` : `other ${mode}`;
  }
  return result;
}

/** Staged or scratch files of the commit machinery anywhere under `dir`. */
/** The journal directory's entries other than this process's spare batch directories (made in the background after commits). */
export async function journalEntries(stateDir: string): Promise<string[]> {
  return (await readdir(path.join(stateDir, "journal"))).filter((name) => !name.startsWith(`.spare.${process.pid}-`)).sort();
}

export async function leftoverTemps(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).filter((entry) => /(^|[/\\])\.ast-mcp-.*\.tmp$/.test(entry));
}

export function spawnChild(script: string, args: string[]): ChildProcess {
  return spawn(process.execPath, [path.join(CHILDREN, script), ...args], { stdio: ["ignore", "pipe", "pipe"] });
}

/** Resolves with the first stdout line that satisfies `match`. */
export function waitForLine(child: ChildProcess, match: (line: string) => boolean, timeoutMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    let stderr = "";
    const timer = setTimeout(() => reject(new Error(`child did not print the expected line; stderr: ${stderr}`)), timeoutMs);
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout?.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        if (match(line)) {
          clearTimeout(timer);
          resolve(line);
        }
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`child exited (${code}) before the expected line; stderr: ${stderr}`));
    });
  });
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once("exit", (code, signal) => resolve({ code, signal }));
  });
}

/** Runs a child to completion, returning its stdout. */
export async function runChild(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnChild(script, args);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const { code } = await exited(child);
  return { code, stdout, stderr };
}

/** The identity of a process that has exited: a writer that is certainly gone. */
export async function deadIdentity(): Promise<{ pid: number; startTime: string | null; host: string }> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  const pid = child.pid as number;
  await exited(child);
  return { pid, startTime: "1", host: currentProcess().host };
}
