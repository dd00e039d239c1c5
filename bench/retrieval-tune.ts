/**
 * The retrieval bench's ranking measures (bench/retrieval.ts) in one process, for trying a ranking
 * change in seconds instead of minutes: the search index is built in memory over a tree's files
 * with their doc comments blanked, and every task's concept query and name are asked of it
 * directly (no CLI, no MCP, no snippets). It reports what the bench reports of `search` — file
 * acc@1/5/10, MRR@10, function hit@10, first results in test files, a definition first for name
 * lookups — plus the ranking's CPU time per concept query (in-process, Bun; a ratio between two
 * builds in one sitting is what it says, not an absolute).
 *
 * By default it runs the two tuning trees (Werkzeug, golang.org/x/crypto) over every candidate task,
 * not the bench's sample of 150: about 180 and 570 tasks, so a change of one task weighs less.
 * Tune there; the reported trees (effect, django, go) are for the final figures only.
 *
 *   npx bun bench/retrieval-tune.ts [--trees werkzeug,xcrypto] [--tasks all|N] [--seed 18] [--passes N]
 *
 * With --tasks N the tasks are the bench's seeded sample (the same as `--retrieval-tasks N`), so the
 * figures match the bench's for the same build.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { extractFacts } from "../src/intel/facts/extract.ts";
import { NullEmbedder } from "../src/intel/search/embedder.ts";
import { SearchIndex } from "../src/intel/search/index.ts";
import type { LanguageId } from "../src/syntax/index.ts";
import { MemorySearchSource } from "../test/support/search-source.ts";
import { corpusFiles } from "./lib.ts";
import { blankedFile, type Definition, lookups, type Prepared, quality, type Ranked, type RetrievalTreeId, seededSample, type Task, TREES } from "./retrieval.ts";

const { values } = parseArgs({
  options: {
    trees: { type: "string", default: "werkzeug,xcrypto" },
    tasks: { type: "string", default: "all" },
    seed: { type: "string", default: "18" },
    passes: { type: "string", default: "1" },
  },
});
const passes = Math.max(1, Number(values.passes));

/** A tree's search index over its blanked files, with its tasks. */
async function load(id: RetrievalTreeId): Promise<{ index: SearchIndex; prepared: Prepared } | undefined> {
  const tree = TREES[id];
  const root = await tree.source((text) => console.error(text));
  if (root === undefined) return undefined;
  const source = new MemorySearchSource();
  const candidates: Task[] = [];
  const definitions: Record<string, Definition[]> = Object.create(null);
  const files = (await corpusFiles(root, tree.extension)).map((file) => file.path);
  for (const path of files) {
    const blanked = blankedFile(tree, path, await readFile(join(root, path), "utf8"), candidates, definitions);
    // The index reads the facts of the copy it indexes, as the code index would.
    source.put(path, blanked, extractFacts(tree.language, blanked, undefined, { calls: false }).symbols, tree.language as LanguageId);
  }
  const tasks = values.tasks === "all" ? candidates : seededSample(candidates, Number(values.tasks), Number(values.seed));
  const index = new SearchIndex(source, { embedder: new NullEmbedder() });
  await index.refresh();
  return { index, prepared: { root, files, tasks, definitions } };
}

const ranked = (hits: Awaited<ReturnType<SearchIndex["search"]>>["hits"]): Ranked[] =>
  hits.map((hit) => ({ path: hit.chunk.display, startLine: hit.focus?.startLine ?? hit.chunk.startLine, endLine: hit.focus?.endLine ?? hit.chunk.endLine }));

for (const name of values.trees.split(",")) {
  const id = name.trim() as RetrievalTreeId;
  if (!(id in TREES)) throw new Error(`--trees: unknown tree ${name} (known: ${Object.keys(TREES).join(", ")})`);
  const loaded = await load(id);
  if (loaded === undefined) {
    console.log(`${id}: skipped, its sources are not on this machine`);
    continue;
  }
  const { index, prepared } = loaded;
  let concept: Ranked[][] = [];
  const cpu: string[] = [];
  for (let pass = 0; pass < passes; pass++) {
    concept = [];
    const before = process.cpuUsage();
    for (const task of prepared.tasks) concept.push(ranked((await index.search(task.query, { topK: 10 })).hits));
    const spent = process.cpuUsage(before);
    cpu.push(((spent.user + spent.system) / 1000 / Math.max(1, prepared.tasks.length)).toFixed(2));
  }
  const names: Ranked[][] = [];
  for (const task of prepared.tasks) names.push(ranked((await index.search(task.name, { topK: 10 })).hits));
  const measured = quality(prepared.tasks, concept, TREES[id].isTest, true);
  const lookup = lookups(prepared, names);
  const figure = (value: number) => value.toFixed(3);
  console.log(
    `${id}${TREES[id].reported ? " (reported: do not tune on it)" : ""}: ${prepared.tasks.length} tasks, ${prepared.files.length} files; ` +
      `acc@1 ${figure(measured.acc1)} acc@5 ${figure(measured.acc5)} acc@10 ${figure(measured.acc10)} MRR@10 ${figure(measured.mrr10)} ` +
      `function hit@10 ${(100 * measured.functionHit10!).toFixed(1)}% first a test ${measured.firstIsTest}; ` +
      `name lookups: a definition first ${(100 * lookup.first).toFixed(1)}%; concept CPU per query ${cpu.join(" / ")} ms`,
  );
}
