/**
 * Orderly shutdown for both transports: the first SIGTERM/SIGINT/SIGHUP (or the end of stdin)
 * stops the server and exits 0; a cleanup failure exits 1; a second signal while cleaning up forces exit 1.
 */
import { LIMITS } from "../core/limits.ts";
import { log } from "../core/log.ts";

export type ShutdownReason = NodeJS.Signals | "stdin closed" | "stdout closed";

export interface Lifecycle {
  /** Begin shutdown (idempotent); resolves never — the process exits. */
  shutdown(reason: ShutdownReason): void;
}

export function manageLifecycle(
  close: () => Promise<void>,
  options: { exit?: (code: number) => void; graceMs?: number; listenToSignals?: boolean } = {},
): Lifecycle {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const graceMs = options.graceMs ?? LIMITS.shutdown.graceMs;
  let closing = false;

  const shutdown = (reason: ShutdownReason): void => {
    if (closing) {
      if (reason !== "stdin closed" && reason !== "stdout closed") {
        log.warn(`second ${reason} during shutdown; exiting now`);
        exit(1);
      }
      return;
    }
    closing = true;
    log.info(`shutting down (${reason})`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`cleanup took longer than ${graceMs} ms`)), graceMs);
      timer.unref();
    });
    Promise.race([close(), timeout])
      .then(
        () => exit(0),
        (error: unknown) => {
          log.error("shutdown cleanup failed", { error });
          exit(1);
        },
      )
      .finally(() => clearTimeout(timer));
  };

  if (options.listenToSignals ?? true) {
    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => shutdown(signal));
  }
  return { shutdown };
}
