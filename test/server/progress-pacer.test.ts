/** The progress pacer: one notification per interval at most, the newest count at its end, and 100% last. */
import { describe, expect, test } from "bun:test";
import { type PacerClock, ProgressPacer } from "../../src/server/progress-pacer.ts";

function fakeClock() {
  let now = 0;
  const timers = new Map<number, { at: number; run: () => void }>();
  let next = 1;
  const clock: PacerClock = {
    now: () => now,
    setTimeout: (run, ms) => {
      timers.set(next, { at: now + ms, run });
      return next++;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
  };
  const advance = (ms: number): void => {
    now += ms;
    for (const [id, timer] of [...timers].sort((a, b) => a[1].at - b[1].at)) {
      if (timer.at > now) continue;
      timers.delete(id);
      timer.run();
    }
  };
  /** Time passes without timers running (a busy event loop). */
  const skip = (ms: number): void => {
    now += ms;
  };
  return { clock, advance, skip, pending: () => timers.size };
}

function paced(interval = 250) {
  const sent: Array<[number, number]> = [];
  const time = fakeClock();
  const pacer = new ProgressPacer((progress, total) => void sent.push([progress, total]), interval, 0, time.clock);
  return { sent, pacer, ...time };
}

describe("progress pacing", () => {
  test("the first count goes out at once, and counts within the interval wait for its end", () => {
    const { sent, pacer, advance } = paced();
    pacer.report(1, 100);
    pacer.report(2, 100);
    pacer.report(3, 100);
    expect(sent).toEqual([[1, 100]]);
    advance(249);
    expect(sent).toEqual([[1, 100]]);
    advance(1);
    expect(sent).toEqual([
      [1, 100],
      [3, 100],
    ]);
  });

  test("a flood of counts becomes one notification per interval, and the answer ends it at 100%", () => {
    const { sent, pacer, advance } = paced();
    for (let done = 1; done <= 8_000; done++) {
      pacer.report(done, 8_000);
      if (done % 100 === 0) advance(10); // 8,000 files in 800 ms
    }
    void pacer.finish();
    expect(sent.length).toBeLessThanOrEqual(6);
    expect(sent.at(-1)).toEqual([8_000, 8_000]);
    for (let i = 1; i < sent.length; i++) expect(sent[i]![0]).toBeGreaterThanOrEqual(sent[i - 1]![0]);
  });

  test("the last notification is at 100% of the largest total even when the tool never said so", () => {
    const { sent, pacer, pending } = paced();
    pacer.report(1, 10);
    pacer.report(4, 10);
    void pacer.finish();
    expect(sent).toEqual([
      [1, 10],
      [10, 10],
    ]);
    expect(pending()).toBe(0);
  });

  test("100% is not sent twice", () => {
    const { sent, pacer } = paced();
    pacer.report(10, 10);
    void pacer.finish();
    expect(sent).toEqual([[10, 10]]);
  });

  test("a failed call sends nothing more, and a call that reported nothing sends nothing", () => {
    const failed = paced();
    failed.pacer.report(1, 10);
    failed.pacer.report(2, 10);
    failed.pacer.abandon();
    failed.advance(1_000);
    expect(failed.sent).toEqual([[1, 10]]);
    const quiet = paced();
    void quiet.pacer.finish();
    expect(quiet.sent).toEqual([]);
  });

  test("a count sent at once when the interval has passed leaves no timer to send another right after it", () => {
    const time = fakeClock();
    const sent: Array<[number, number]> = [];
    const pacer = new ProgressPacer((progress, total) => void sent.push([progress, total]), 250, 0, time.clock);
    pacer.report(1, 100);
    time.advance(100);
    pacer.report(2, 100); // a timer for the interval's end
    time.skip(160); // the event loop was busy past the end: the timer has not run yet
    pacer.report(3, 100); // sent at once
    pacer.report(4, 100); // must wait a whole interval after 3
    time.advance(0); // the overdue timer runs now
    time.advance(100);
    expect(sent).toEqual([
      [1, 100],
      [3, 100],
    ]);
    time.advance(150);
    expect(sent.at(-1)).toEqual([4, 100]);
  });

  test("when 100% went out during the call, the answer still waits until the transport has it", async () => {
    const time = fakeClock();
    const handed: string[] = [];
    let deliver = () => {};
    const pacer = new ProgressPacer(
      (progress, total) =>
        new Promise<void>((resolve) => {
          deliver = () => {
            handed.push(`${progress}/${total}`);
            resolve();
          };
        }),
      250,
      0,
      time.clock,
    );
    pacer.report(5, 5);
    let answered = false;
    const finishing = pacer.finish().then(() => {
      answered = true;
    });
    await Promise.resolve();
    expect(answered).toBe(false);
    deliver();
    await finishing;
    expect(handed).toEqual(["5/5"]);
  });

  test("the answer follows the last notification only after the settle time, so a client reads the two apart", async () => {
    const time = fakeClock();
    const sent: Array<[number, number]> = [];
    const pacer = new ProgressPacer((progress, total) => void sent.push([progress, total]), 250, 15, time.clock);
    pacer.report(1, 4);
    time.advance(400);
    let answered = false;
    const finishing = pacer.finish().then(() => {
      answered = true;
    });
    await Promise.resolve();
    expect(sent.at(-1)).toEqual([4, 4]);
    time.advance(14);
    await Promise.resolve();
    expect(answered).toBe(false);
    time.advance(1);
    await finishing;
    expect(answered).toBe(true);
  });

  test("under load the settle time runs from when the transport took the 100%, so the answer never catches up with it", async () => {
    const time = fakeClock();
    let deliver = () => {};
    const pacer = new ProgressPacer(
      () =>
        new Promise<void>((resolve) => {
          deliver = resolve;
        }),
      250,
      15,
      time.clock,
    );
    pacer.report(1, 4);
    deliver();
    time.advance(400);
    let answered = false;
    const finishing = pacer.finish().then(() => {
      answered = true;
    });
    // The transport is slow to take the 100%: longer than the whole settle time.
    time.skip(40);
    deliver();
    for (let turn = 0; turn < 5; turn++) await Promise.resolve();
    time.advance(14);
    for (let turn = 0; turn < 5; turn++) await Promise.resolve();
    expect(answered).toBe(false);
    time.advance(1);
    await finishing;
    expect(answered).toBe(true);
  });

  test("the interval runs from when the transport took a notification, so two stay apart on the wire even when the first was taken late", async () => {
    const time = fakeClock();
    const sent: Array<[number, number]> = [];
    let deliver = () => {};
    const pacer = new ProgressPacer(
      (progress, total) =>
        new Promise<void>((resolve) => {
          sent.push([progress, total]);
          deliver = resolve;
        }),
      250,
      0,
      time.clock,
    );
    pacer.report(1, 10);
    time.advance(100);
    deliver(); // taken at 100
    for (let turn = 0; turn < 3; turn++) await Promise.resolve();
    time.advance(200);
    pacer.report(2, 10); // 300: 250 after the send, only 200 after the hand-over
    time.advance(0);
    expect(sent).toEqual([[1, 10]]);
    time.advance(49);
    expect(sent).toEqual([[1, 10]]);
    time.advance(1);
    expect(sent.at(-1)).toEqual([2, 10]);
  });

  test("a 100% the transport refuses does not fail the call it reports on", async () => {
    const time = fakeClock();
    const pacer = new ProgressPacer(() => Promise.reject(new Error("stream closed")), 250, 0, time.clock);
    pacer.report(2, 4);
    await pacer.finish();
  });

  test("counts never go backwards on the wire", () => {
    const { sent, pacer, advance } = paced();
    pacer.report(5, 10);
    advance(300);
    pacer.report(3, 10);
    advance(300);
    expect(sent).toEqual([[5, 10]]);
  });
});
