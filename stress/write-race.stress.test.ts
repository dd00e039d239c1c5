/**
 * The long write race (issue 14, defect 3): AST_MCP_RACE_WRITES swapped write operations (default
 * 5,000) per layer against a directory another process keeps swapping for a link to outside the
 * root. Prints the figures; asserts no outside effect.
 */
import { expect, test } from "bun:test";
import { runWriteRace } from "../test/patch/write-race-harness.ts";

const count = Number(process.env.AST_MCP_RACE_WRITES ?? 5_000);

for (const layer of ["commit", "tools"] as const) {
  test(`${count} ${layer}-layer writes under a link swap have no outside effect`, async () => {
    const outcome = await runWriteRace({ layer, maxCalls: count, durationMs: 600_000 });
    console.log(
      `write race (${layer}): ${outcome.calls} calls, ${outcome.committed} committed, ${outcome.swaps} swaps, refusals ${
        JSON.stringify(outcome.refusals)
      }, outside changes ${outcome.outsideChanges.length}`,
    );
    console.log(`examples: ${JSON.stringify(outcome.examples, null, 1)}`);
    expect(outcome.calls).toBe(count);
    expect(outcome.unexpected).toEqual([]);
    expect(outcome.outsideChanges).toEqual([]);
    expect(outcome.leftovers).toEqual([]);
    expect(outcome.insideMismatches).toEqual([]);
  }, 900_000);
}
