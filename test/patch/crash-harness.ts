/** Kill a committing writer at random points, recover, and check the root is exactly one version. */
import { expect } from "bun:test";
import { commitBatch } from "../../src/patch/commit.ts";
import { listBatches } from "../../src/patch/journal.ts";
import { recoverJournal } from "../../src/patch/recover.ts";
import { exited, makeCommitFixture, spawnChild, waitForLine } from "./commit-fixture.ts";
import { batchFor, initialize, verifyState } from "./crash-scenario.ts";

export interface CrashStats {
  rounds: number;
  rolledBack: number;
  rolledForward: number;
  finalVersion: number;
}

export async function runCrashRounds(rounds: number, maxDelayMs = 250): Promise<CrashStats> {
  const fx = await makeCommitFixture();
  const stats: CrashStats = { rounds, rolledBack: 0, rolledForward: 0, finalVersion: 0 };
  try {
    await initialize(fx.root);
    let version = 0;
    for (let round = 0; round < rounds; round += 1) {
      const child = spawnChild("crash-writer.ts", [fx.stateDir, fx.root]);
      await waitForLine(child, (line) => line === "ready");
      await new Promise((resolve) => setTimeout(resolve, Math.random() * maxDelayMs));
      child.kill("SIGKILL");
      await exited(child);

      const report = await recoverJournal({ stateDir: fx.stateDir });
      for (const batch of report.batches) {
        expect(["rolled_back", "rolled_forward", "discarded"]).toContain(batch.action);
        if (batch.action === "rolled_back") stats.rolledBack += 1;
        if (batch.action === "rolled_forward") stats.rolledForward += 1;
      }
      const now = await verifyState(fx.root);
      // Committed batches are never lost.
      expect(now).toBeGreaterThanOrEqual(version);
      const unfinished = (await listBatches({}, { stateDir: fx.stateDir })).filter((batch) => batch.state !== "committed");
      expect(unfinished).toEqual([]);

      // No stale lock of the dead writer blocks the next write.
      await commitBatch(batchFor(fx.root, now), fx.meta, {
        stateDir: fx.stateDir,
        lockTimeoutMs: 2_000,
        journalLimits: { max_batches: 20, max_bytes: 64 * 1024 * 1024, max_age_days: 1 },
      });
      version = now + 1;
      expect(await verifyState(fx.root)).toBe(version);
    }
    stats.finalVersion = version;
    return stats;
  } finally {
    await fx.cleanup();
  }
}
