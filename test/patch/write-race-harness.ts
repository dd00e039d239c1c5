/**
 * The write race: a directory d/ inside the root that another process keeps swapping for a link
 * to a directory outside the root, while writes, exclusive creates, mode changes, renames,
 * deletes and undos target d/…, through the commit layer or through the tools. Shared by the
 * seeded slice in test/ and the long run in stress/.
 *
 * What must hold: the outside directory is unchanged byte for byte, entry for entry, mode for
 * mode and mtime for mtime (no staged .ast-mcp-* file left there either); every call either
 * commits (and its change is found inside, in d/) or fails with a ToolError.
 */
import { lstat, mkdir, mkdtemp, readFile, readdir, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ToolError } from "../../src/core/errors.ts";
import { sha256Hex } from "../../src/helpers/hash.ts";
import { commitBatch, type CommitMeta, type CommitOp } from "../../src/patch/commit.ts";
import { undoOps } from "../../src/patch/journal.ts";
import { stateDirectory } from "../../src/config/state-dir.ts";
import { fileChattrTool } from "../../src/tools/file-chattr.ts";
import { fileDeleteTool } from "../../src/tools/file-delete.ts";
import { filePatchTool } from "../../src/tools/file-patch.ts";
import { fileRenameTool } from "../../src/tools/file-rename.ts";
import { fileUndoTool } from "../../src/tools/file-undo.ts";
import { fileWriteTool } from "../../src/tools/file-write.ts";
import { startLinkSwapper } from "../support/link-swapper.ts";
import { makeContext, runTool } from "../support/context.ts";

export interface RaceOutcome {
  /** Calls made, calls that committed, and refusals by error code. */
  calls: number;
  committed: number;
  refusals: Record<string, number>;
  /** The first message of each refusal code, to read what was refused. */
  examples: Record<string, string>;
  swaps: number;
  /** Entries of the outside directory that changed, appeared or disappeared (must be empty). */
  outsideChanges: string[];
  /**
   * Differences between d/ after the run and what the committed calls left there (must be empty).
   * Only for the commit layer: the tools create missing parents, so a write that finds d/ renamed
   * aside makes a new d/ inside the root (a legitimate landing inside) and the model splits.
   */
  insideMismatches: string[];
  /** Staged or scratch files left anywhere under the base directory. */
  leftovers: string[];
  /** Failures that were not ToolErrors. */
  unexpected: string[];
}

export interface RaceOptions {
  layer: "commit" | "tools";
  /** Stop after this many calls, or after durationMs, whichever comes first. */
  maxCalls: number;
  durationMs: number;
  /** Past durationMs, calls go on for at most this long while none has committed yet (a loaded machine may lose every race at first). */
  untilCommittedMs?: number;
}

/** Every entry under `dir` with its kind, mode, mtime and content hash. */
async function describeTree(dir: string): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  for (const entry of (await readdir(dir, { recursive: true })).sort()) {
    const full = path.join(dir, entry);
    const stats = await lstat(full);
    const kind = stats.isDirectory() ? "dir" : stats.isFile() ? `file ${sha256Hex(await readFile(full))}` : stats.isSymbolicLink() ? "link" : "other";
    entries.set(entry, `${kind} ${(stats.mode & 0o7777).toString(8)} ${stats.mtimeMs}`);
  }
  return entries;
}

function differences(before: Map<string, string>, after: Map<string, string>): string[] {
  const changed: string[] = [];
  for (const [name, value] of before) if (after.get(name) !== value) changed.push(`${name}: ${value} -> ${after.get(name) ?? "(gone)"}`);
  for (const [name, value] of after) if (!before.has(name)) changed.push(`${name}: (new) ${value}`);
  return changed;
}

/** What d/ should hold: file name -> content and mode. */
type Model = Map<string, { content: string; mode: number }>;

/** One step of the workload: the call, and what it leaves in d/ when it commits. */
interface Step {
  describe: string;
  run(): Promise<{ batchId: string | null }>;
  apply(model: Model): void;
  isUndo?: boolean;
}

const sha = (text: string) => sha256Hex(Buffer.from(text));

/** A call that takes longer than this is reported as hung and ends the run. */
const CALL_DEADLINE_MS = 10_000;

class CallHung extends Error {}

function withinDeadline<T>(work: Promise<T>, ms: number, describe: () => string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CallHung(describe())), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

export async function runWriteRace(options: RaceOptions): Promise<RaceOutcome> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), "ast-mcp-race-")));
  const root = path.join(base, "root");
  const outside = path.join(base, "outside");
  const d = path.join(root, "d");
  await mkdir(d, { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(d, "x.txt"), "inside 0\n", { mode: 0o644 });
  await writeFile(path.join(outside, "x.txt"), "outside\n", { mode: 0o644 });
  await writeFile(path.join(outside, "keep.txt"), "outside keep\n", { mode: 0o644 });
  const stateDir = await stateDirectory({ AST_MCP_STATE_DIR: path.join(base, "state") });
  const previousState = process.env.AST_MCP_STATE_DIR;
  const previousCache = process.env.AST_MCP_CACHE_DIR;
  process.env.AST_MCP_STATE_DIR = stateDir;
  process.env.AST_MCP_CACHE_DIR = path.join(base, "cache");

  const model: Model = new Map([["x.txt", { content: "inside 0\n", mode: 0o644 }]]);
  const outcome: RaceOutcome = { calls: 0, committed: 0, refusals: {}, examples: {}, swaps: 0, outsideChanges: [], insideMismatches: [], leftovers: [], unexpected: [] };
  const outsideBefore = await describeTree(outside);
  const meta: CommitMeta = { sessionId: "race-session", tool: "race", roots: [root] };
  const context = options.layer === "tools" ? await makeContext([root]) : undefined;
  let lastBatch: { id: string; undo: (model: Model) => void } | undefined;

  const commit = async (ops: CommitOp[]) => ({ batchId: (await commitBatch(ops, meta, { stateDir })).batchId });
  const tool = async (definition: Parameters<typeof runTool>[0], args: unknown) => {
    const result = await runTool(definition, args, context!);
    if (result.committed !== true) throw new Error(`the call neither committed nor failed: ${JSON.stringify(result)}`);
    return { batchId: result.batchId as string | null };
  };

  /** The i-th step, chosen from the model (what d/ holds now). */
  const stepFor = (i: number): Step => {
    const x = model.get("x.txt")!;
    const created = [...model.keys()].filter((name) => name.startsWith("new-"));
    const renamed = [...model.keys()].filter((name) => name.startsWith("moved-"));
    const kind = i % 7;
    if (kind === 0 || kind === 1) {
      const content = `inside ${i}\n`;
      const patch = kind === 1 && options.layer === "tools";
      return {
        describe: patch ? "file_patch d/x.txt" : "write d/x.txt",
        run: () =>
          options.layer === "commit" ?
            commit([{ kind: "write", path: path.join(d, "x.txt"), expectedBefore: sha(x.content), after: Buffer.from(content) }]) :
            patch ?
            tool(filePatchTool, {
              files: { "d/x.txt": { expectedSha256: sha(x.content), patchStrategy: "aider_block", aiderBlocks: [{ search: x.content, replace: content }] } },
            }) :
            tool(fileWriteTool, { files: { "d/x.txt": { content, expectedSha256: sha(x.content) } } }),
        apply: (m) => m.set("x.txt", { content, mode: m.get("x.txt")!.mode }),
      };
    }
    if (kind === 2) {
      // JSON: file_delete's reference check needs a language with a parser.
      const name = `new-${i}.json`;
      const content = `{ "created": ${i} }\n`;
      return {
        describe: `create d/${name}`,
        run: () =>
          options.layer === "commit" ?
            commit([{ kind: "write", path: path.join(d, name), expectedBefore: null, after: Buffer.from(content) }]) :
            tool(fileWriteTool, { files: { [`d/${name}`]: { content, expectedSha256: null } } }),
        apply: (m) => m.set(name, { content, mode: 0o644 }),
      };
    }
    if (kind === 3) {
      const mode = x.mode === 0o644 ? 0o600 : 0o644;
      return {
        describe: "chmod d/x.txt",
        run: () =>
          options.layer === "commit" ?
            commit([{ kind: "chmod", path: path.join(d, "x.txt"), expectedBefore: sha(x.content), mode }]) :
            tool(fileChattrTool, { files: { "d/x.txt": { chmod: mode.toString(8), expectedSha256: sha(x.content) } } }),
        apply: (m) => m.set("x.txt", { content: m.get("x.txt")!.content, mode }),
      };
    }
    if (kind === 4 && created.length > 0) {
      const from = created[0]!;
      const to = from.replace("new-", "moved-");
      const entry = model.get(from)!;
      return {
        describe: `rename d/${from}`,
        run: () =>
          options.layer === "commit" ?
            commit([{ kind: "rename", from: path.join(d, from), to: path.join(d, to), expectedBefore: sha(entry.content) }]) :
            tool(fileRenameTool, { files: { [`d/${from}`]: { destination: `d/${to}`, expectedSha256: sha(entry.content) } } }),
        apply: (m) => {
          m.delete(from);
          m.set(to, entry);
        },
      };
    }
    if (kind === 5 && renamed.length > 0) {
      const name = renamed[0]!;
      const entry = model.get(name)!;
      return {
        describe: `delete d/${name}`,
        run: () =>
          options.layer === "commit" ?
            commit([{ kind: "delete", path: path.join(d, name), expectedBefore: sha(entry.content) }]) :
            tool(fileDeleteTool, { files: { [`d/${name}`]: { expectedSha256: sha(entry.content) } } }),
        apply: (m) => m.delete(name),
      };
    }
    if (kind === 6 && lastBatch !== undefined) {
      const batch = lastBatch;
      return {
        describe: `undo ${batch.id}`,
        run: async () => {
          if (options.layer === "tools") return tool(fileUndoTool, { batchId: batch.id });
          const plan = await undoOps(batch.id, { stateDir });
          if (plan.conflicts.length > 0) throw new ToolError("undo_conflict", `changed since: ${plan.conflicts.join(", ")}`);
          return commit(plan.ops);
        },
        apply: batch.undo,
        isUndo: true,
      };
    }
    return stepFor(i + 1);
  };

  const swapper = await startLinkSwapper(d, outside);
  const until = Date.now() + options.durationMs;
  const latest = until + (options.untilCommittedMs ?? 0);
  const going = () => Date.now() < until || (outcome.committed === 0 && Date.now() < latest);
  try {
    for (let i = 0; outcome.calls < options.maxCalls && going(); i += 1) {
      const before: Model = new Map([...model].map(([name, entry]) => [name, { ...entry }]));
      const step = stepFor(i);
      outcome.calls += 1;
      try {
        const { batchId } = await withinDeadline(step.run(), CALL_DEADLINE_MS, () => `call ${i} (${step.describe}) did not settle within ${CALL_DEADLINE_MS} ms`);
        step.apply(model);
        outcome.committed += 1;
        // Undo of this batch puts d/ back as it was before it (undos themselves are not undone here).
        const restore = (m: Model) => {
          m.clear();
          for (const [name, entry] of before) m.set(name, { ...entry });
        };
        lastBatch = batchId === null || step.isUndo === true ? undefined : { id: batchId, undo: restore };
      } catch (error) {
        if (error instanceof ToolError) {
          outcome.refusals[error.code] = (outcome.refusals[error.code] ?? 0) + 1;
          outcome.examples[error.code] ??= error.message;
        } else outcome.unexpected.push(String((error as Error)?.stack ?? error));
        if (error instanceof CallHung) break;
        if (error instanceof ToolError && error.message.includes("/proc/")) outcome.unexpected.push(`a message names a descriptor path: ${error.message}`);
      }
    }
  } finally {
    outcome.swaps = await swapper.stop();
    context?.services.indexes.closeAll();
  }

  outcome.outsideChanges = differences(outsideBefore, await describeTree(outside));
  const inside = new Map<string, string>();
  for (const name of (await readdir(d)).sort()) {
    const stats = await lstat(path.join(d, name));
    inside.set(name, `${await readFile(path.join(d, name), "utf8")} ${(stats.mode & 0o777).toString(8)}`);
  }
  const expected = new Map([...model].map(([name, entry]) => [name, `${entry.content} ${entry.mode.toString(8)}`]));
  if (options.layer === "commit") outcome.insideMismatches = differences(expected, inside);
  outcome.leftovers = (await readdir(base, { recursive: true })).filter((entry) => /(^|[/\\])\.ast-mcp-.*\.tmp$/.test(entry));

  if (previousState === undefined) delete process.env.AST_MCP_STATE_DIR;
  else process.env.AST_MCP_STATE_DIR = previousState;
  if (previousCache === undefined) delete process.env.AST_MCP_CACHE_DIR;
  else process.env.AST_MCP_CACHE_DIR = previousCache;
  await rm(base, { recursive: true, force: true, maxRetries: 5 });
  return outcome;
}
