/**
 * Long synchronous work (indexing thousands of files) cut into slices: between slices the event
 * loop gets a turn, so calls, cancellations and progress notifications are not held up for seconds.
 */
import { LIMITS } from "./limits.ts";

export class Slicer {
  #since = performance.now();

  constructor(private readonly sliceMs: number = LIMITS.intel.index.syncSliceMs) {}

  /** Yields to the event loop once the current slice has run its time. */
  async turn(): Promise<void> {
    if (performance.now() - this.#since < this.sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.#since = performance.now();
  }
}
