import { describe, expect, test } from "bun:test";
import { manageLifecycle } from "../../src/server/lifecycle.ts";

function harness(close: () => Promise<void>, graceMs = 2_000) {
  const codes: number[] = [];
  let resolveExit: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => (resolveExit = resolve));
  const lifecycle = manageLifecycle(close, {
    exit: (code) => {
      codes.push(code);
      resolveExit(code);
    },
    graceMs,
    listenToSignals: false,
  });
  return { lifecycle, codes, exited };
}

describe("lifecycle", () => {
  test("clean shutdown exits 0 and runs cleanup once", async () => {
    let calls = 0;
    const { lifecycle, exited, codes } = harness(async () => void calls++);
    lifecycle.shutdown("SIGTERM");
    lifecycle.shutdown("stdin closed");
    expect(await exited).toBe(0);
    expect(calls).toBe(1);
    expect(codes).toEqual([0]);
  });

  test("a cleanup failure exits 1", async () => {
    const { lifecycle, exited } = harness(async () => {
      throw new Error("boom");
    });
    lifecycle.shutdown("SIGINT");
    expect(await exited).toBe(1);
  });

  test("cleanup that hangs past the grace period exits 1", async () => {
    const { lifecycle, exited } = harness(() => new Promise<void>(() => {}), 50);
    lifecycle.shutdown("SIGHUP");
    expect(await exited).toBe(1);
  });

  test("a second signal while cleaning up forces exit 1", async () => {
    const { lifecycle, exited, codes } = harness(() => new Promise<void>(() => {}));
    lifecycle.shutdown("SIGTERM");
    lifecycle.shutdown("SIGTERM");
    expect(await exited).toBe(1);
    expect(codes[0]).toBe(1);
  });
});
