/**
 * `ast-mcp hook`: the PreToolUse hook hosts run before each tool call. Reads the event on stdin,
 * answers in the host's protocol (see src/hosts/hook/protocol.ts), never fails the host.
 */
import nodeModule from "node:module";
import os from "node:os";
import { LIMITS } from "../core/limits.ts";
import { limitDynamicLanguages } from "../intel/languages.ts";
import { runHook } from "../hosts/hook/run.ts";
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
// The hook parses shell commands and nothing else: registering the other 21 grammars would cost
// ~40 ms of every answer.
limitDynamicLanguages(["bash"]);

const FLAGS = {
  help: { type: "boolean" },
  host: { type: "string", choices: ["claude", "codex", "copilot", "vscode"] },
} as const;

async function readInput(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    // Keep one byte past the limit so runHook can tell that the payload was too large.
    if (size <= LIMITS.hosts.hookMaxPayloadBytes + 1) chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export async function runHookCommand(argv: string[], io: CommandIO, input: NodeJS.ReadableStream = process.stdin): Promise<number> {
  const { flags } = parseArgs(argv, FLAGS);
  if (flags.help) {
    io.stdout(HOOK_USAGE);
    return 0;
  }
  const home = io.env.HOME !== undefined && io.env.HOME !== "" ? io.env.HOME : os.homedir();
  const answer = await runHook(await readInput(input), { cwd: io.cwd, env: io.env, home });
  if (answer.stdout !== "") io.stdout(answer.stdout);
  if (answer.stderr !== "") io.stderr(answer.stderr);
  return answer.exitCode;
}
