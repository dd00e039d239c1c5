// Takes and releases the write lock of one path <rounds> times, appending "+pid" on entry and "-pid" on exit
// to <log> while holding it, from the epoch ms <startAt>. Args: <stateDir> <path> <log> <rounds> <startAt>
import { appendFileSync } from "node:fs";
import { withPathLocks } from "../../../src/patch/locks.ts";

const [stateDir, target, logFile, roundsText, startAtText] = process.argv.slice(2) as [string, string, string, string, string];
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAtText) - Date.now())));
for (let round = 0; round < Number(roundsText); round += 1) {
  await withPathLocks([target], async () => {
    appendFileSync(logFile, `+${process.pid}\n`);
    await new Promise((resolve) => setTimeout(resolve, 1));
    appendFileSync(logFile, `-${process.pid}\n`);
  }, { stateDir, timeoutMs: 20_000 });
}
