/**
 * Paces one call's progress notifications: a client is told at most once per interval, the newest
 * count going out when the interval ends, and the call's last word is always 100%, however fast the
 * tool counted. A tool may report as often as it likes (the index reports every file).
 */

export interface PacerClock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const systemClock: PacerClock = {
  now: () => performance.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export class ProgressPacer {
  #lastSentAt = Number.NEGATIVE_INFINITY;
  /** When the transport last took a notification: the settle time runs from here, not from the send. */
  #lastHandedAt = Number.NEGATIVE_INFINITY;
  #sent: { progress: number; total: number } | undefined;
  #latest: { progress: number; total: number } | undefined;
  #timer: unknown;
  #finished = false;
  /** The last notification handed to `send`, until the transport has it. */
  #sending: Promise<void> | void = undefined;

  constructor(
    private readonly send: (progress: number, total: number) => Promise<void> | void,
    private readonly intervalMs: number,
    /**
     * How long the answer waits after the last notification. A client that reads the notification
     * and the answer in one chunk may handle the answer first and drop the notification (the
     * official SDK clients handle notifications a microtask later): apart, they arrive apart.
     */
    private readonly settleMs = 0,
    private readonly clock: PacerClock = systemClock,
  ) {}

  /** A new count from the tool; sent now, or when the interval since the last notification ends. */
  report(progress: number, total: number): void {
    if (this.#finished) return;
    this.#latest = { progress, total };
    this.#schedule();
  }

  /** Sends now when the interval has passed, else makes sure a timer sends at its end (a timer that fires early waits on). */
  #schedule(): void {
    // From the later of send and hand-over: a notification the transport took late is on the wire late, and the next keeps its distance from it.
    const wait = Math.max(this.#lastSentAt, this.#lastHandedAt) + this.intervalMs - this.clock.now();
    if (wait <= 0) {
      if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
      this.#timer = undefined;
      return this.#flush();
    }
    this.#timer ??= this.clock.setTimeout(() => {
      this.#timer = undefined;
      if (!this.#finished) this.#schedule();
    }, wait);
  }

  /**
   * The call is answered: one last notification at 100% of the largest total seen, unless that was
   * the last one sent. Resolves once it is handed to the transport, so it goes out before the answer.
   */
  async finish(): Promise<void> {
    if (this.#finished) return;
    this.#finished = true;
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    const latest = this.#latest;
    if (!latest) return;
    const done = Math.max(latest.total, latest.progress, this.#sent?.progress ?? 0);
    // 100% sent already: the answer still waits until the transport has it.
    if (this.#sent?.progress !== done || this.#sent.total !== done) await this.#emit(done, done);
    else await this.#sending;
    // From the hand-over: under load the transport may take the notification late, and the answer must still follow it apart.
    const settle = this.#lastHandedAt + this.settleMs - this.clock.now();
    if (settle > 0) await new Promise<void>((resolve) => this.clock.setTimeout(resolve, settle));
  }

  /** The call failed or was cancelled: nothing more is sent. */
  abandon(): void {
    this.#finished = true;
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #flush(): void {
    const latest = this.#latest;
    if (!latest || (this.#sent?.progress === latest.progress && this.#sent.total === latest.total)) return;
    // MCP requires progress never to go backwards.
    if (this.#sent && latest.progress < this.#sent.progress) return;
    void this.#emit(latest.progress, latest.total);
  }

  #emit(progress: number, total: number): Promise<void> | void {
    this.#sent = { progress, total };
    this.#lastSentAt = this.clock.now();
    const handed = () => {
      this.#lastHandedAt = this.clock.now();
    };
    const sending = this.send(progress, total);
    // A notification that could not be sent must not fail the call it reports on.
    this.#sending = sending === undefined ? handed() : sending.then(handed, handed);
    return this.#sending;
  }
}
