import { expect, test } from "bun:test";
import { runReadRace } from "../test/policy/read-race.ts";

const OPERATIONS = Number(process.env.AST_MCP_READ_RACE_OPERATIONS ?? 5000);

// Issue 14: at least 5,000 read operations while the directory they name is swapped for a link to outside.
test(`${OPERATIONS} swapped reads leak nothing from outside the root`, async () => {
  const report = await runReadRace({ durationMs: 840_000, maxOperations: OPERATIONS });
  console.log(`read race: ${report.operations} operations, ${report.swaps} swaps, codes ${JSON.stringify(Object.fromEntries(report.codes))}`);
  expect(report.operations).toBe(OPERATIONS);
  expect(report.unexpected).toEqual([]);
  expect(report.leaks).toEqual([]);
}, 900_000);
