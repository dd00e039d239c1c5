import { describe, expect, test } from "bun:test";
import { compactFacts, StringPool } from "../../../src/intel/facts/compact.ts";
import { extractFacts } from "../../../src/intel/facts/extract.ts";

const SOURCE = `import { readFile as read } from "node:fs/promises";
export { helperFunctionName as exportedHelper } from "./helpers.js";

/** Loads the configuration file. */
export async function loadConfiguration(pathToFile: string): Promise<string> {
  const text = await read(pathToFile, "utf8");
  this.repository.saveEverything(text);
  this.repository.saveEverything(text);
  return text;
}

export class ConfigurationLoader extends BaseLoaderImplementation {
  loadEverything() {
    return loadConfiguration("configuration.toml");
  }
}
`;

describe("compactFacts", () => {
  test("keeps every fact as it was, with equal strings pooled once across files", () => {
    const pool = new StringPool();
    const first = extractFacts("typescript", SOURCE);
    const expected = structuredClone(first);
    expect(compactFacts(first, pool)).toBe(first);
    expect(first).toEqual(expected);
    const sizeAfterOne = pool.size;
    // The same file again adds no string to the pool.
    compactFacts(extractFacts("typescript", SOURCE), pool);
    expect(pool.size).toBe(sizeAfterOne);
    expect(first.calls.filter((call) => call.callee === "this.repository.saveEverything")).toHaveLength(2);
  });

  test("a pooled string equals its source and does not depend on it", () => {
    const pool = new StringPool();
    const whole = `${"x".repeat(1000)}this.repository.saveEverything${"y".repeat(1000)}`;
    const slice = whole.slice(1000, 1030);
    const pooled = pool.get(slice);
    expect(pooled).toBe("this.repository.saveEverything");
    expect(pool.get("this.repository.saveEverything")).toBe(pooled);
    expect(pool.get("short")).toBe("short");
    expect(pool.size).toBe(2);
  });
});
