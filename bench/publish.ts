/**
 * Publishes a benchmark result for the website: copies a file `npm run bench` wrote under the ignored
 * bench/results/ into the committed bench/published/, adding the commit it measured and the command
 * that reproduces it (the website's benchmark page reads bench/published/*.json at build time).
 *
 *   npx bun bench/publish.ts --command "npm run bench -- --phases core,write" [--file bench/results/latest.json]
 *
 * The commit is the checkout's HEAD; publishing is refused when src/ or bench/ has uncommitted
 * changes, since the run would then not be what that commit measures.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";

const ROOT = join(import.meta.dir, "..");
const PUBLISHED_DIR = join(ROOT, "bench", "published");

const { values } = parseArgs({ options: { command: { type: "string" }, file: { type: "string", default: join(ROOT, "bench", "results", "latest.json") } } });
if (!values.command) {
  console.error("bench/publish.ts: --command is required: the exact command that produced the result");
  process.exit(2);
}

const git = (...args: string[]): string => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();
const dirty = git("status", "--porcelain", "--", "src", "bench", "package.json", "package-lock.json");
if (dirty !== "") {
  console.error(`bench/publish.ts: uncommitted changes in what the run measured; commit them first:\n${dirty}`);
  process.exit(1);
}
const run = JSON.parse(readFileSync(values.file, "utf8")) as { finishedAt?: string; machine?: unknown };
if (typeof run.finishedAt !== "string" || run.machine === undefined) {
  console.error(`bench/publish.ts: ${values.file} is not a bench result (no finishedAt or machine)`);
  process.exit(1);
}
const commit = git("rev-parse", "HEAD");
const published = { ...run, published: { commit, command: values.command } };
mkdirSync(PUBLISHED_DIR, { recursive: true });
const target = join(PUBLISHED_DIR, `${run.finishedAt.replace(/[:.]/g, "-")}-${commit.slice(0, 8)}.json`);
writeFileSync(target, `${JSON.stringify(published, null, 2)}\n`);
console.log(`published ${relative(ROOT, target)}`);
