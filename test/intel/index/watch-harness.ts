/**
 * Runs under Node (bundled by watch.test.ts): the index's watch mode only turns on there. Prints one
 * JSON line with what it saw; the test asserts on it.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEFAULT_RULES } from "../../../src/config/schema.ts";
import { DEFAULT_INDEX_SETTINGS, IndexRegistry } from "../../../src/intel/index/index.ts";
import { Workspace } from "../../../src/policy/workspace.ts";

const root = await mkdtemp(path.join(tmpdir(), "ast-mcp-watch-"));
const failures: string[] = [];
try {
  await mkdir(path.join(root, "src"));
  for (let i = 0; i < 20; i++) await writeFile(path.join(root, "src", `m${i}.ts`), `export function m${i}() {}\n`);
  const workspace = await Workspace.create({ workspace: { roots: [root] }, paths: DEFAULT_RULES });
  const index = new IndexRegistry().for(workspace, { settings: { ...DEFAULT_INDEX_SETTINGS, persist: false } });
  await index.ensureFresh();
  const watch = index.stats().watch;

  const names = (file: string) => index.get(path.join(root, file))?.facts.symbols.map((symbol) => symbol.name).join(",");
  const freshness: string[] = [];
  const rounds = 40;
  for (let round = 0; round < rounds; round++) {
    // Changed, created (in a new directory), and deleted, each checked right after the write.
    await writeFile(path.join(root, "src", "m0.ts"), `export function changed${round}() {}\n`);
    await index.ensureFresh();
    freshness.push(index.stats().freshness);
    if (names("src/m0.ts") !== `changed${round}`) failures.push(`round ${round}: change not seen (${names("src/m0.ts")})`);

    const dir = path.join(root, `new${round}`, "deep");
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "n.ts"), `export function created${round}() {}\n`);
    await index.ensureFresh();
    if (names(`new${round}/deep/n.ts`) !== `created${round}`) failures.push(`round ${round}: new file not seen`);

    await rm(path.join(root, `new${round}`), { recursive: true });
    await index.ensureFresh();
    if (index.get(path.join(dir, "n.ts")) !== undefined) failures.push(`round ${round}: deleted file still indexed`);
  }

  // Warm refresh with nothing changed: one barrier round trip instead of a stat walk.
  const samples: number[] = [];
  for (let i = 0; i < 50; i++) {
    const started = performance.now();
    await index.ensureFresh();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const after = index.stats();
  index.close();
  console.log(
    JSON.stringify({
      watch,
      failures,
      freshness: [...new Set(freshness)],
      files: after.coverage.files,
      warmP50Ms: samples[Math.floor(samples.length / 2)],
    }),
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
