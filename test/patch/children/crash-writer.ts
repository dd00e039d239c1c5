// Commits crash-scenario batches in a loop until killed. Args: <stateDir> <root>
import { commitBatch } from "../../../src/patch/commit.ts";
import { batchFor, verifyState } from "../crash-scenario.ts";

const [stateDir, root] = process.argv.slice(2) as [string, string];
let version = await verifyState(root);
process.stdout.write("ready\n");
for (;;) {
  await commitBatch(batchFor(root, version), { sessionId: "crash", tool: "test", roots: [root] }, {
    stateDir,
    journalLimits: { max_batches: 20, max_bytes: 64 * 1024 * 1024, max_age_days: 1 },
  });
  version += 1;
}
