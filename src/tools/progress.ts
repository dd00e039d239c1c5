/**
 * Progress over the phases of one tool call (index refresh, then the tool's own work), each learning
 * its total only when it starts: reported as one count that never goes backwards, as MCP requires.
 */
import type { ToolContext } from "./contract.ts";

/** The abort signal and, when the client asked for it, the progress reporter, as the index's refresh takes them. */
export function progressOf(context: ToolContext): { signal: AbortSignal; onProgress?: (done: number, total: number) => void } {
  return context.progress ? { signal: context.signal, onProgress: context.progress } : { signal: context.signal };
}

export interface PhasedProgress {
  /** A reporter for the next phase; undefined when the client asked for no progress. */
  phase(): ((done: number, total: number) => void) | undefined;
}

export function phasedProgress(report: ToolContext["progress"]): PhasedProgress {
  let base = 0;
  let last = 0;
  return {
    phase() {
      if (!report) return undefined;
      const start = base;
      return (done, total) => {
        const progress = start + done;
        base = Math.max(base, start + total);
        if (progress < last) return;
        last = progress;
        report(progress, start + total);
      };
    },
  };
}
