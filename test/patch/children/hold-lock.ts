// Holds the write lock of one path until killed; on SIGUSR2 it exits (process.exit) while still holding it.
// Args: <stateDir> <path>
import { withPathLocks } from "../../../src/patch/locks.ts";

const [stateDir, target] = process.argv.slice(2) as [string, string];
process.on("SIGUSR2", () => process.exit(0));
await withPathLocks([target], async () => {
  process.stdout.write("locked\n");
  await new Promise(() => {});
}, { stateDir });
