// Holds the write lock of one path until killed. Args: <stateDir> <path>
import { withPathLocks } from "../../../src/patch/locks.ts";

const [stateDir, target] = process.argv.slice(2) as [string, string];
await withPathLocks([target], async () => {
  process.stdout.write("locked\n");
  await new Promise(() => {});
}, { stateDir });
