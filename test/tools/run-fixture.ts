/**
 * What the run tests share: a fresh temp root per test, a private state directory, and a code index
 * that keeps no snapshot, does not watch and extracts empty facts (run reads none, so these tests do
 * not depend on the extractors). The fields are replaced before each test.
 */
import { afterAll, beforeAll, beforeEach } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { FileFacts } from "../../src/intel/facts/types.ts";
import type { CodeIndex } from "../../src/intel/index/index.ts";
import type { ToolContext } from "../../src/tools/contract.ts";
import { makeContext, makeTempDir, type TempDir } from "../support/context.ts";
import { usePrivateStateDir } from "../support/state-dir.ts";

const noFacts = (language: string): FileFacts => ({ language, parseErrors: 0, symbols: [], imports: [], calls: [], exportedNames: [] });

export interface RunFixture {
  temp: TempDir;
  context: ToolContext;
  index: CodeIndex | undefined;
  /** A new context over the current temp root (the tool then reuses its index). */
  contextFor(options?: Parameters<typeof makeContext>[1]): Promise<ToolContext>;
}

export function useRunFixture(extractorVersion: string): RunFixture {
  let cacheDir = "";
  usePrivateStateDir();
  const fixture: RunFixture = {
    temp: undefined as unknown as TempDir,
    context: undefined as unknown as ToolContext,
    index: undefined,
    async contextFor(options = {}) {
      const made = await makeContext([fixture.temp.dir], options);
      made.config = { ...made.config, config: { ...made.config.config, index: { ...made.config.config.index, persist: false } } };
      fixture.index?.close();
      fixture.index = made.services.indexes.forContext(made, { cacheDir, watch: "off", extract: noFacts, extractorVersion });
      return made;
    },
  };
  beforeAll(async () => {
    cacheDir = await mkdtemp(path.join(tmpdir(), "ast-mcp-cache-"));
  });
  afterAll(async () => {
    fixture.index?.close();
    await fixture.temp?.cleanup();
    await rm(cacheDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await fixture.temp?.cleanup();
    fixture.temp = await makeTempDir();
    fixture.context = await fixture.contextFor();
  });
  return fixture;
}
