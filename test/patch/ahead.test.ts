/**
 * Candidates committed ahead of their checks: the bytes are ready before the syntax parse ends, the
 * commit journals and stages them meanwhile, and nothing changes on disk until the checks pass.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../../src/core/errors.ts";
import { sha256Hex } from "../../src/helpers/hash.ts";
import { CandidateChanged, CheckGate, commitAhead, commitPlans, decodeSource, formattersFor, loadSource, type PipelineContext, type Plan, prepareCandidate } from "../../src/patch/pipeline.ts";
import type { ToolContext } from "../../src/tools/contract.ts";
import { filePatchTool, fileWriteTool } from "../../src/tools/write.ts";
import { makeContext, makeTempDir, runTool, type TempDir, toolFailure } from "../support/context.ts";
import { snapshot } from "./commit-fixture.ts";
import { localCheckCounter } from "../../src/patch/syntax-guard.ts";
import { usePrivateStateDir } from "../support/state-dir.ts";

let temp: TempDir;
let context: ToolContext;
const state = usePrivateStateDir();
beforeEach(async () => {
  await temp?.cleanup();
  temp = await makeTempDir();
  context = await makeContext([temp.dir]);
  await temp.write("dprint.json", JSON.stringify({ indentWidth: 2 }));
  await temp.write("s.ts", CLEAN);
});

const CLEAN = ["export const one = 1;", "", "export function two() {", "  return 2;", "}", "", "export function three() {", "  return 3;", "}", ""].join("\n");
const hashOf = async (name: string) => sha256Hex(await readFile(path.join(temp.dir, name)));
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

async function patch(search: string, replace: string) {
  return runTool(filePatchTool, { files: { "s.ts": { expectedSha256: await hashOf("s.ts"), patchStrategy: "aider_block", aiderBlocks: [{ search, replace }] } } }, context);
}

function pipelineOf(tool: ToolContext): PipelineContext {
  return { workspace: tool.workspace, config: tool.config.config, configGeneration: tool.config.generation, sessionId: tool.sessionId, signal: tool.signal };
}

/** A gate already open: the checks behind it run as soon as they can. */
function openGate(): CheckGate {
  const gate = new CheckGate();
  gate.open();
  return gate;
}

/** Prepared ahead of its checks with a gate, in the ordinary order without one. */
async function prepare(candidateText: (text: string) => string, gate: CheckGate | undefined) {
  const pipeline = pipelineOf(context);
  const resolved = await context.workspace.resolve("s.ts", "write");
  const source = await loadSource(resolved, await hashOf("s.ts"), pipeline);
  const decoded = decodeSource(source!, resolved);
  return prepareCandidate({ resolved, original: decoded, candidateText: candidateText(decoded.text), encodeAs: decoded, allowSyntaxErrors: false, formatters: await formattersFor(pipeline), config: pipeline.config, gate });
}
const prepareOrdinary = (candidateText: (text: string) => string) => prepare(candidateText, undefined);

describe("committing ahead of the checks", () => {
  test("once a file's statements are known, its next edit is formatted before its parse ends, to the same text", async () => {
    // The first edit is parsed before it is formatted; its statements are remembered for the next.
    expect((await patch("  return 2;\n", "  return   20 ;\n")).files["s.ts"].formatted).toBe(true);
    await nextTurn();
    const candidate = await prepare((text) => text.replace("return 3;", "return    [3,4];"), openGate());
    expect(candidate.text).toBe(CLEAN.replace("return 2;", "return 20;").replace("return 3;", "return [3, 4];"));
    const report = await candidate.report;
    expect(report.format.reason).toContain("lines 7-9, the changed statements");
    expect(report.syntax).toMatchObject({ checked: true, beforeErrors: 0, afterErrors: 0 });
  });

  test("prepared ahead, the bytes come back while the parse still runs; in the ordinary order the report is settled", async () => {
    await patch("  return 2;\n", "  return 20;\n");
    await nextTurn();
    const pending = async (ahead: boolean) => {
      const gate = ahead ? new CheckGate() : undefined;
      const candidate = await prepare((text) => text.replace("return 3;", "return 30;"), gate);
      let settled = false;
      void candidate.report.then(() => (settled = true));
      await nextTurn();
      const early = !settled;
      gate?.open();
      await candidate.report;
      return early;
    };
    expect(await pending(true)).toBe(true);
    expect(await pending(false)).toBe(false);
  });

  test("ahead of a local check (the statements around the edit), the check waits behind the gate however many turns pass", async () => {
    // Long enough that the statements around an edit are a small part of it.
    const more = Array.from({ length: 12 }, (_, index) => `export function more${index}() {\n  return ${index + 100};\n}\n`).join("\n");
    await temp.write("s.ts", `${CLEAN}\n${more}`);
    await patch("  return 2;\n", "  return 20;\n");
    await nextTurn();
    const before = localCheckCounter.checked;
    // In the ordinary order it runs before the bytes come back.
    await prepareOrdinary((text) => text.replace("return 3;", "return 31;"));
    expect(localCheckCounter.checked).toBe(before + 1);
    // Ahead, the bytes are ready and the check waits for the gate (the commit opens it once its fsyncs are issued).
    const gate = new CheckGate();
    const gated = await prepare((text) => text.replace("return 3;", "return 32;"), gate);
    for (let turn = 0; turn < 5; turn++) await nextTurn();
    expect(localCheckCounter.checked).toBe(before + 1);
    gate.open();
    expect((await gated.report).syntax).toMatchObject({ checked: true, afterErrors: 0 });
    expect(localCheckCounter.checked).toBe(before + 2);
  });

  test("a commit with a gate opens it while its staged files flush, and when it fails", async () => {
    await patch("  return 2;\n", "  return 20;\n");
    await nextTurn();
    const pipeline = pipelineOf(context);
    const planOf = async (gate: CheckGate, expectedBefore: string) => {
      // Resolved per plan: a resolution names the file that was there, and a commit replaces it.
      const resolved = await context.workspace.resolve("s.ts", "write");
      const candidate = await prepare((text) => text.replace("return 3;", "return 33;"), gate);
      const source = await loadSource(resolved, await hashOf("s.ts"), pipeline);
      const plan: Plan = { key: "s.ts", resolved, touches: [resolved.real], op: { kind: "write", path: resolved.real, expectedBefore, after: candidate.bytes }, displayAfter: "s.ts", before: source, afterBytes: candidate.bytes, report: {}, verified: candidate.report.then(() => ({ checked: true })) };
      return plan;
    };
    const committed = new CheckGate();
    const result = await commitPlans([await planOf(committed, await hashOf("s.ts"))], pipeline, "file_patch", { gate: committed });
    expect(result.files[0]?.after).toBe(await hashOf("s.ts"));
    // A stale hash fails the commit before anything flushes: the gate still opens, and the failure is the answer.
    const failed = new CheckGate();
    const stale = await planOf(failed, "0".repeat(64));
    await expect(commitPlans([stale], pipeline, "file_patch", { gate: failed })).rejects.toMatchObject({ code: "stale_hash" });
  });
});

describe("the commit waits for pending checks", () => {
  const writePlanOf = async (text: string, verified: Promise<Record<string, unknown>>): Promise<Plan> => {
    const resolved = await context.workspace.resolve("s.ts", "write");
    const before = await loadSource(resolved, await hashOf("s.ts"), pipelineOf(context));
    const after = Buffer.from(text);
    void verified.catch(() => {});
    return { key: "s.ts", resolved, touches: [resolved.real], op: { kind: "write", path: resolved.real, expectedBefore: before?.sha256 ?? null, after }, displayAfter: "s.ts", before, afterBytes: after, report: { change: "modified" }, verified };
  };
  const later = <T>(ms: number, settle: () => T) => new Promise<T>((resolve, reject) => setTimeout(() => { try { resolve(settle()); } catch (error) { reject(error); } }, ms));
  const journalEntries = async () => (await readdir(path.join(state.path, "journal"))).filter((name) => !name.startsWith(".spare.")).sort();

  test("a check that fails after the batch was journaled and staged refuses it: every byte, the journal and the locks as they were", async () => {
    const repository = await snapshot(temp.dir);
    const journal = await journalEntries();
    const plan = await writePlanOf("broken", later(30, () => { throw new ToolError("syntax_regression", "refused by the check"); }));
    const refused = await toolFailure(commitPlans([plan], pipelineOf(context), "file_patch"));
    expect(refused.code).toBe("syntax_regression");
    expect(await snapshot(temp.dir)).toEqual(repository);
    expect(await journalEntries()).toEqual(journal);
    const next = await commitPlans([await writePlanOf("fine\n", Promise.resolve({}))], pipelineOf(context), "file_patch");
    expect(next.files[0]?.after).toBe(sha256Hex(Buffer.from("fine\n")));
  });

  test("the facts of a check join the plan's report; a refused check is the answer even when the commit failed first", async () => {
    const plan = await writePlanOf("next\n", later(20, () => ({ formatted: true })));
    await commitPlans([plan], pipelineOf(context), "file_patch");
    expect(plan.report).toEqual({ change: "modified", formatted: true });

    const stale = await writePlanOf("stale\n", later(20, () => { throw new ToolError("syntax_regression", "refused by the check"); }));
    await writeFile(path.join(temp.dir, "s.ts"), "changed meanwhile\n");
    expect((await toolFailure(commitPlans([stale], pipelineOf(context), "file_patch"))).code).toBe("syntax_regression");
    const staleOnly = await writePlanOf("stale\n", Promise.resolve({}));
    await writeFile(path.join(temp.dir, "s.ts"), "changed again\n");
    expect((await toolFailure(commitPlans([staleOnly], pipelineOf(context), "file_patch"))).code).toBe("stale_hash");
  });
});

describe("commitAhead", () => {
  test("a candidate whose parse disagreed with its formatting is planned again in the ordinary order; other errors stand", async () => {
    const runs: boolean[] = [];
    const result = await commitAhead(async (gate) => {
      runs.push(gate !== undefined);
      if (gate) throw new CandidateChanged("s.ts");
      return "committed";
    });
    expect(result).toBe("committed");
    expect(runs).toEqual([true, false]);
    const refused = await toolFailure(commitAhead(async () => {
      throw new ToolError("syntax_regression", "refused");
    }));
    expect(refused.code).toBe("syntax_regression");
  });
});

describe("a new file refused after its commit began", () => {
  test("the directories made for it and its staged file are gone again", async () => {
    const repository = await snapshot(temp.dir);
    // No formatter takes Python, so the bytes are ready at once and the commit starts before the parse ends.
    const refused = await toolFailure(runTool(fileWriteTool, { files: { "deep/new/dir/broken.py": { content: "def broken(:\n    return 1\n", expectedSha256: null } } }, context));
    expect(refused.code).toBe("syntax_regression");
    expect(await snapshot(temp.dir)).toEqual(repository);
  });
});
