/**
 * The concurrent local process of the race harnesses: it keeps swapping a directory inside a root
 * for a symbolic link to a directory outside it, and back, until told to stop. Run it as its own
 * process (`startLinkSwapper`) so its renames really race the server's calls.
 *
 * Two ways of swapping, alternated when mode is "both":
 * - "aside": the directory is renamed aside and a link is created under its name;
 * - "exchange": a link prepared under a spare name is renamed onto the directory's name (the
 *   closest Node has to an atomic exchange: the name is never missing between the two renames).
 *
 * As a script: `bun test/support/link-swapper.ts <directory> <outsideTarget> <mode> <holdMicros>`.
 * On SIGTERM it puts the real directory back under its name and exits 0.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { lstatSync, renameSync, rmSync, symlinkSync, unlinkSync } from "node:fs";

export type SwapMode = "aside" | "exchange" | "both";

export interface LinkSwapper {
  /** Stops the swapper and waits until the real directory is back under its name; resolves to the number of swaps made. */
  stop(): Promise<number>;
}

function spinFor(micros: number): void {
  const until = process.hrtime.bigint() + BigInt(Math.max(0, Math.floor(micros))) * 1000n;
  while (process.hrtime.bigint() < until) {
    // Busy wait: timers are too coarse for the windows a swap must hit.
  }
}

function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

function exists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/** Puts the real directory back under `directory` whatever state a swap was interrupted in. */
export function restore(directory: string): void {
  const aside = `${directory}.swap-aside`;
  const spare = `${directory}.swap-link`;
  if (isLink(directory)) unlinkSync(directory);
  if (exists(aside) && exists(directory)) {
    // A writer made a new directory under the name while the real one was aside (its mkdirParents
    // landed inside the root, as it should): that one is moved out of the way, still inside.
    renameSync(directory, `${directory}.swap-made-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  }
  if (exists(aside) && !exists(directory)) renameSync(aside, directory);
  if (isLink(spare)) unlinkSync(spare);
  if (exists(aside) && isLink(aside)) rmSync(aside);
}

function swapOnce(directory: string, outside: string, mode: "aside" | "exchange", holdMicros: number): void {
  const aside = `${directory}.swap-aside`;
  const spare = `${directory}.swap-link`;
  renameSync(directory, aside);
  if (mode === "aside") symlinkSync(outside, directory);
  else {
    symlinkSync(outside, spare);
    renameSync(spare, directory);
  }
  spinFor(holdMicros);
  unlinkSync(directory);
  renameSync(aside, directory);
  spinFor(holdMicros);
}

function runAsScript(argv: readonly string[]): void {
  const [directory, outside, modeText = "both", holdText = "200"] = argv;
  if (!directory || !outside) throw new Error("usage: link-swapper <directory> <outsideTarget> [mode] [holdMicros]");
  const mode = modeText as SwapMode;
  const holdMicros = Number(holdText);
  let stopping = false;
  let swaps = 0;
  process.on("SIGTERM", () => {
    stopping = true;
  });
  const loop = (): void => {
    // A burst of swaps, then a turn of the event loop so SIGTERM is seen.
    for (let i = 0; i < 50 && !stopping; i++) {
      const kind = mode === "both" ? (swaps % 2 === 0 ? "aside" : "exchange") : mode;
      try {
        swapOnce(directory, outside, kind, holdMicros);
        swaps += 1;
      } catch {
        try {
          restore(directory);
        } catch {
          // Raced by a writer again: the next round restores.
        }
      }
    }
    if (stopping) {
      restore(directory);
      process.stdout.write(`${swaps}\n`);
      process.exit(0);
    }
    setImmediate(loop);
  };
  process.stdout.write("ready\n");
  loop();
}

/** Starts the swapper as a separate process; resolves once it swaps. */
export async function startLinkSwapper(directory: string, outside: string, options: { mode?: SwapMode; holdMicros?: number } = {}): Promise<LinkSwapper> {
  const child: ChildProcess = spawn(process.execPath, [import.meta.path, directory, outside, options.mode ?? "both", String(options.holdMicros ?? 200)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout!.setEncoding("utf8");
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.stdout!.on("data", (chunk: string) => {
      output += chunk;
      if (output.includes("ready\n")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`link swapper exited early (${code})`)));
  });
  return {
    stop: () =>
      new Promise<number>((resolve) => {
        child.once("exit", () => {
          restore(directory);
          resolve(Number(output.replace("ready\n", "").trim()) || 0);
        });
        child.kill("SIGTERM");
      }),
  };
}

if (import.meta.main) runAsScript(process.argv.slice(2));
