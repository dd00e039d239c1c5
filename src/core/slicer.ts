/**
 * Long synchronous work (indexing thousands of files) cut into slices: between slices the event
 * loop gets a turn, so calls, cancellations and progress notifications are not held up for seconds.
 */
export class Slicer {
  #since = performance.now();

  /** `sliceMs`: synchronous work done before the event loop gets a turn. */
  constructor(private readonly sliceMs = 20) {}

  /** Yields to the event loop once the current slice has run its time. */
  async turn(): Promise<void> {
    if (performance.now() - this.#since < this.sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.#since = performance.now();
  }
}
