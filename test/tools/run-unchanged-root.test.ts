/**
 * `run` with write: true changes the root only by a commit it reports (issue #14 defect 7): random
 * rewrite templates, huge ones included, wrong and right match counts, and calls the client cancels
 * at random moments, over a Python root and a TypeScript root. After every call that did not report
 * a batch, every byte, mode and entry of the root is as it was.
 */
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { FileFacts } from "../../src/intel/facts/types.ts";
import { CodeIndex } from "../../src/intel/index/index.ts";
import * as pipeline from "../../src/patch/pipeline.ts";
import type { ToolContext } from "../../src/tools/contract.ts";
import { runTool } from "../../src/tools/run.ts";
import { snapshot } from "../patch/commit-fixture.ts";
import { makeContext, makeTempDir, runTool as call, type TempDir } from "../support/context.ts";
import { random } from "../support/random.ts";
import { usePrivateStateDir } from "../support/state-dir.ts";

usePrivateStateDir();
let cacheDir: string;
beforeAll(async () => {
  cacheDir = await mkdtemp(path.join(tmpdir(), "ast-mcp-cache-"));
});
afterAll(async () => rm(cacheDir, { recursive: true, force: true }));

const noFacts = (language: string): FileFacts => ({ language, parseErrors: 0, symbols: [], imports: [], calls: [], exportedNames: [] });

const ROOTS = {
  python: {
    files: {
      "a.py": "def f(x):\n    print(x)\n    return x + 1\n\n\nvalue = f(1)\nprint(value)\n",
      "pkg/b.py": "import os\n\n\ndef g(path):\n    print(os.path.join(path, 'x'))\n    return len(path)\n",
      "pkg/c.py": "class C:\n    def m(self, y):\n        print(y)\n        return y * 2\n",
    },
    patterns: ["print($A)", "return $A", "$X = $Y", "len($A)", "def $F($$$P):\n    $$$B"],
  },
  typescript: {
    files: {
      "a.ts": "export function f(x: number): number {\n  console.log(x);\n  return x + 1;\n}\n",
      "src/b.ts": "import { f } from \"../a.ts\";\n\nexport const value = f(1);\nconsole.log(value);\n",
      "src/c.tsx": "export function View(props: { n: number }) {\n  console.log(props.n);\n  return <div>{props.n}</div>;\n}\n",
    },
    patterns: ["console.log($$$A)", "return $A", "const $X = $Y", "f($A)"],
  },
} as const;

/** Replacement templates: valid and broken code, metavariables, and very long texts. */
function template(next: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const long = (unit: string) => unit.repeat(Math.ceil((next() < 0.5 ? 100_000 : 5_000 + next() * 20_000) / unit.length));
  return pick([
    () => "$A",
    () => "print($A, $A)",
    () => "(((",
    () => "def (((:",
    () => "",
    () => "\n\n",
    () => "$$$A",
    () => `x${"y".repeat(50)}`,
    () => long("x"),
    () => long("$A + "),
    () => long("(\n"),
    () => long("é\u{1F600}"),
    () => `"${long("q")}"`,
    () => long("foo($A)\n"),
  ])();
}

async function contextFor(root: string, controller: AbortController): Promise<{ context: ToolContext; index: CodeIndex }> {
  const made = await makeContext([root]);
  made.config = { ...made.config, config: { ...made.config.config, index: { ...made.config.config.index, persist: false } } };
  made.signal = controller.signal;
  const index = made.services.indexes.forContext(made, { cacheDir, watch: "off", extract: noFacts, extractorVersion: "run-invariant" });
  return { context: made, index };
}

describe("run with write: true leaves the root as it was unless it reports a commit", () => {
  for (const [language, fixture] of Object.entries(ROOTS)) {
    test(`${language} root, random templates`, async () => {
      const temp: TempDir = await makeTempDir();
      const next = random(language === "python" ? 1407 : 1408);
      let commits = 0;
      let refusals = 0;
      try {
        for (const [name, text] of Object.entries(fixture.files)) await temp.write(name, text);
        for (let round = 0; round < 20; round++) {
          const pattern = fixture.patterns[Math.floor(next() * fixture.patterns.length)] as string;
          const controller = new AbortController();
          const { context, index } = await contextFor(temp.dir, controller);
          try {
            const found = (await call(runTool, { pattern }, context)) as { matchCount: number };
            const expectedMatches = next() < 0.8 ? found.matchCount : found.matchCount + 1;
            const before = await snapshot(temp.dir);
            // Some calls are cancelled by the client while they plan: before or after a file's candidate is built.
            const cancelAt = next() < 0.35 ? Math.floor(next() * 4) : undefined;
            const build = pipeline.buildTextCandidate;
            let built = 0;
            const spy = spyOn(pipeline, "buildTextCandidate").mockImplementation(async (options) => {
              if (cancelAt === built * 2) controller.abort();
              const candidate = await build(options);
              if (cancelAt === built * 2 + 1) controller.abort();
              built++;
              return candidate;
            });
            const rewrite = template(next);
            let batchId: string | undefined;
            const started = performance.now();
            try {
              const result = (await call(runTool, { pattern, rewrite, write: true, expectedMatches }, context)) as { batchId?: string };
              // The server drops the answer to a call its client cancelled: such a commit is never reported.
              batchId = controller.signal.aborted ? undefined : result.batchId;
            } catch {
              refusals++;
            } finally {
              spy.mockRestore();
            }
            if (process.env.RUN_INVARIANT_TRACE) console.log(round, pattern, rewrite.length, cancelAt, batchId, Math.round(performance.now() - started));
            if (batchId === undefined) expect({ round, pattern, tree: await snapshot(temp.dir) }).toEqual({ round, pattern, tree: before });
            else {
              commits++;
              // Back to the fixture, so a huge rewrite does not make every later round slower.
              for (const [name, text] of Object.entries(fixture.files)) await temp.write(name, text);
            }
          } finally {
            index.close();
          }
        }
        // Both outcomes were exercised.
        expect(commits).toBeGreaterThan(0);
        expect(refusals).toBeGreaterThan(0);
      } finally {
        await temp.cleanup();
      }
    }, 60_000);
  }
});
