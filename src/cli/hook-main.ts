/**
 * The entry of `ast-mcp hook` in the package (dist/hook.cjs, see scripts/build.mjs): one CommonJS
 * file, so a hook run compiles one script instead of walking the ESM loader through the CLI's
 * chunks, and never builds process.stdout or node:fs/promises (an ESM import of node:fs does).
 * dist/cli.js hands `hook` to it before loading anything else (the bundle's entry is
 * hook-entry.ts); `ast-mcp hook` from the sources (src/cli.ts) runs the same runHookCommand.
 */
import { writeSync } from "node:fs";
import { UsageError } from "./args.ts";
import type { ConfigLoader } from "../hosts/hook/run.ts";
import { HOOK_USAGE, runHookCommand } from "./hook-command.ts";
import type { CommandIO } from "./io.ts";

/**
 * Writes with blocking writes on the descriptor; when it would block (a non-blocking pipe) the
 * stream takes the rest, so nothing is lost either way.
 */
function writeAllSync(fd: 1 | 2, text: string): void {
  const buffer = Buffer.from(text, "utf8");
  let offset = 0;
  try {
    while (offset < buffer.length) offset += writeSync(fd, buffer, offset, buffer.length - offset);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
    (fd === 1 ? process.stdout : process.stderr).write(buffer.subarray(offset));
  }
}

export function hookIO(): CommandIO {
  return {
    stdout: (text) => writeAllSync(1, text),
    stderr: (text) => writeAllSync(2, text),
    cwd: process.cwd(),
    env: process.env,
  };
}

/** `ast-mcp hook ARGS…` with the answer's exit code; usage errors as the CLI reports them. */
export async function hookMain(argv: string[], io: CommandIO, loadConfig?: ConfigLoader): Promise<number> {
  try {
    return await runHookCommand(argv, io, loadConfig === undefined ? {} : { loadConfig });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`ast-mcp hook: ${error.message}\n\n${HOOK_USAGE}`);
    return 2;
  }
}
