/**
 * `ast-mcp hook`: the PreToolUse hook hosts run before each tool call. Reads the event on stdin,
 * answers in the host's protocol (see src/hosts/hook/protocol.ts), never fails the host.
 */
import { readSync } from "node:fs";
import nodeModule from "node:module";
import os from "node:os";
import { LIMITS } from "../core/limits.ts";
import { limitDynamicLanguages } from "../syntax/index.ts";
import { runHook, type ConfigLoader } from "../hosts/hook/run.ts";
import { parseArgs } from "./args.ts";
import type { CommandIO } from "./io.ts";

export const HOOK_USAGE = `Usage: ast-mcp hook [--host claude|codex|copilot|vscode]

Reads a host's PreToolUse hook event (JSON) on stdin and answers in that host's protocol:
direct edit tools and shell commands that write files inside the repository are denied with
the ast-mcp tool to use instead; everything else passes. \`ast-mcp install\` writes the entries
that run it. Configure it in ast-mcp.toml:

  [hook]
  mode = "deny"              # deny | warn | off
  allow_paths = ["docs/**"]  # globs (relative to the repository) where direct edits are fine
  allow_commands = ["prettier"]  # commands whose writes are fine

A project's ast-mcp.toml may only set mode = "deny". The hook steers agents; it is not a
security boundary.
`;

// Hosts run the hook before every tool call: on Node ≥ 22.1 keep V8's compiled code of the modules
// loaded from here on (parser, configuration) between runs. Node 20 has no such cache; then a no-op.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
// The hook parses shell commands and nothing else: the other grammars would only slow every answer.
limitDynamicLanguages(["bash"]);

const FLAGS = {
  help: { type: "boolean" },
  host: { type: "string", choices: ["claude", "codex", "copilot", "vscode"] },
} as const;

/** Collects the payload, keeping one byte past the limit so runHook can tell that it was too large. */
class PayloadBuffer {
  readonly chunks: Buffer[] = [];
  size = 0;
  add(buffer: Buffer): void {
    this.size += buffer.length;
    if (this.size <= LIMITS.hosts.hookMaxPayloadBytes + 1) this.chunks.push(buffer);
  }
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

/**
 * Reads fd 0 with blocking reads: hosts pipe the event and close, and this skips building
 * process.stdin (a few ms of every answer). Returns false when fd 0 would block (a non-blocking
 * pipe): the stream reader then takes the rest.
 */
function readStdinSync(payload: PayloadBuffer): boolean {
  const buffer = Buffer.allocUnsafe(64 * 1024);
  try {
    for (;;) {
      const count = readSync(0, buffer, 0, buffer.length, null);
      if (count === 0) return true;
      payload.add(Buffer.from(buffer.subarray(0, count)));
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EAGAIN") return false;
    if ((error as NodeJS.ErrnoException).code === "EOF") return true;
    throw error;
  }
}

async function readInput(stream: NodeJS.ReadableStream | undefined): Promise<string> {
  const payload = new PayloadBuffer();
  if (stream === undefined && readStdinSync(payload)) return payload.text();
  for await (const chunk of stream ?? process.stdin) payload.add(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return payload.text();
}

export interface HookCommandOptions {
  /** The event's stream (tests); by default fd 0. */
  input?: NodeJS.ReadableStream;
  /** The configuration loader (the hook bundle loads it from its own file; see hook-entry.ts). */
  loadConfig?: ConfigLoader;
}

export async function runHookCommand(argv: string[], io: CommandIO, options: HookCommandOptions = {}): Promise<number> {
  const { flags } = parseArgs(argv, FLAGS);
  if (flags.help) {
    io.stdout(HOOK_USAGE);
    return 0;
  }
  const home = io.env.HOME !== undefined && io.env.HOME !== "" ? io.env.HOME : os.homedir();
  const answer = await runHook(await readInput(options.input), { cwd: io.cwd, env: io.env, home, ...(options.loadConfig === undefined ? {} : { loadConfig: options.loadConfig }) });
  if (answer.stdout !== "") io.stdout(answer.stdout);
  if (answer.stderr !== "") io.stderr(answer.stderr);
  return answer.exitCode;
}
