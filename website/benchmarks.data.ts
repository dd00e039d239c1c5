/**
 * Build-time loader for the benchmark page: reads every published run in bench/published/ (written by
 * `npx bun bench/publish.ts` from a `npm run bench` result) and keeps, per phase, the newest run's
 * charts (bench-charts.mjs says which). Nothing is fetched at run time.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { defineLoader } from "vitepress";
import { type PublishedPhase, publishedPhases } from "./.vitepress/bench-charts.mjs";

export interface BenchData {
  phases: PublishedPhase[];
}

declare const data: BenchData;
export { data };

export default defineLoader({
  watch: ["../bench/published/*.json"],
  load(files: string[]): BenchData {
    return { phases: publishedPhases(files.map((file) => ({ file: basename(file), run: JSON.parse(readFileSync(file, "utf8")) }))) };
  },
});
