import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { LIMITS_TABLE, limitKeys, renderLimitsTable, tableProblems, tableRows } from "../../scripts/gen-limits.ts";

const published = readFileSync(LIMITS_TABLE, "utf8");

describe("the published limits table (docs/limits.md)", () => {
  test("lists every key of core/limits.ts with its current value, and no other key", () => {
    expect(tableProblems(published)).toEqual([]);
    expect([...tableRows(published).keys()]).toEqual(limitKeys().map(([key]) => key));
  });

  test("is what scripts/gen-limits.ts writes today (regenerate with `npx bun scripts/gen-limits.ts`)", () => {
    expect(published).toBe(renderLimitsTable());
  });

  test("a key missing from the table, a row for a key that is gone, and a changed value are each reported", () => {
    const keys = limitKeys();
    const [firstKey] = keys[0]!;
    const withoutFirst = published
      .split("\n")
      .filter((line) => !line.startsWith(`| \`${firstKey}\` |`))
      .join("\n");
    expect(tableProblems(withoutFirst)).toEqual([`missing: ${firstKey}`]);

    const withExtra = `${published}| \`stdio.retired\` | 1 | A cap that no longer exists. |\n`;
    expect(tableProblems(withExtra)).toEqual(["stale row: stdio.retired is not a key of LIMITS"]);

    const changed = keys.map(([key, value]): [string, unknown] => (key === "stdio.maxFrameBytes" ? [key, 2 * 1024 * 1024] : [key, value]));
    expect(tableProblems(published, changed)).toEqual(["stale value: stdio.maxFrameBytes is 2 MiB, the table says 10 MiB"]);
  });

  test("every row says what its limit means", () => {
    for (const line of published.split("\n").filter((row) => row.startsWith("| `"))) expect(line).not.toMatch(/\|\s*\|$/);
  });
});
