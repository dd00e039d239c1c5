/**
 * `ast-mcp journal list|show|undo|recover`: look at the write journal, undo a committed batch,
 * or recover batches a crashed writer left half-done. Exit 0 on success, 1 when the operation
 * was refused or left conflicts, 2 on a usage error.
 */
import { realpath } from "node:fs/promises";
import path from "node:path";
import { loadConfig } from "../config/load.ts";
import { isToolError } from "../core/errors.ts";
import { relativeInside } from "../helpers/path-text.ts";
import { commitBatch, listBatches, recoverJournal, showBatch, undoDescription, undoOps, type BatchDetail, type BatchSummary, type RecoveryReport } from "../patch/index.ts";
import { stateDirectory } from "../config/state-dir.ts";
import { UsageError, parseArgs } from "./args.ts";
import type { CommandIO } from "./io.ts";

export const JOURNAL_USAGE = `Usage: ast-mcp journal <command> [options]

Commands:
  list [--session ID]   Batches in the write journal, oldest first
  show ID               One batch: its operations, hashes, time, session and tool
  undo ID               Put back what a committed batch changed (refused when a file changed since)
  recover               Finish or roll back batches a crashed writer left half-done

Options:
  --json      Print JSON instead of text
  -h, --help  Show this help

The journal lives in the state directory: $AST_MCP_STATE_DIR, else $XDG_STATE_HOME/ast-mcp,
else ~/.local/state/ast-mcp.
`;

const EXIT_OK = 0;
const EXIT_REFUSED = 1;
const EXIT_USAGE = 2;

const FLAGS = {
  help: { type: "boolean" },
  json: { type: "boolean" },
  session: { type: "string" },
} as const;

interface Parsed {
  command: "list" | "show" | "undo" | "recover";
  batchId: string | undefined;
  session: string | undefined;
  json: boolean;
}

function parse(argv: string[]): Parsed | "help" {
  const { flags, positionals } = parseArgs(argv, FLAGS);
  if (flags.help === true) return "help";
  const [command, ...rest] = positionals;
  if (command === undefined) throw new UsageError("missing command");
  if (command !== "list" && command !== "show" && command !== "undo" && command !== "recover") throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  const needsId = command === "show" || command === "undo";
  if (needsId && rest.length !== 1) throw new UsageError(`${command} takes exactly one batch id`);
  if (!needsId && rest.length > 0) throw new UsageError(`${command} takes no arguments (got ${JSON.stringify(rest[0])})`);
  if (flags.session !== undefined && command !== "list") throw new UsageError("--session applies to list only");
  if (flags.json === true && command === "undo") throw new UsageError("--json does not apply to undo");
  return {
    command,
    batchId: needsId ? rest[0] : undefined,
    session: typeof flags.session === "string" ? flags.session : undefined,
    json: flags.json === true,
  };
}

function shortHash(hash: string | null): string {
  return hash === null ? "(none)" : hash.slice(0, 12);
}

function octal(mode: number | null): string {
  return mode === null ? "-" : mode.toString(8).padStart(3, "0");
}

function renderList(batches: BatchSummary[]): string {
  if (batches.length === 0) return "the journal is empty\n";
  const lines = batches.map((batch) => {
    const files = batch.files.length === 1 ? (batch.files[0] as string) : `${batch.files.length} files`;
    return `${batch.batchId}  ${batch.state.padEnd(9)}  ${batch.sessionId}  ${batch.tool}  ${files}${batch.description === null ? "" : `  (${batch.description})`}`;
  });
  return `${lines.join("\n")}\n`;
}

function renderShow(batch: BatchDetail): string {
  const lines = [
    `batch      ${batch.batchId}`,
    `state      ${batch.state}`,
    `created    ${batch.createdAt}`,
    `committed  ${batch.committedAt ?? "-"}`,
    `session    ${batch.sessionId}`,
    `tool       ${batch.tool}`,
    `writer     pid ${batch.writer.pid} on ${batch.writer.host}`,
    `images     ${batch.imageBytes} bytes kept for undo`,
  ];
  if (batch.description !== null) lines.push(`note       ${batch.description}`);
  if (batch.recovery !== null) {
    lines.push(`recovery   ${batch.recovery.action} at ${batch.recovery.at}${batch.recovery.conflicts.length > 0 ? `; left alone: ${batch.recovery.conflicts.join(", ")}` : ""}`);
  }
  lines.push("operations:");
  for (const op of batch.ops) {
    const target = op.to === null ? op.path : `${op.path} -> ${op.to}`;
    const modes = op.kind === "chmod" ? `  mode ${octal(op.beforeMode)} -> ${octal(op.afterMode)}` : "";
    lines.push(`  ${op.kind.padEnd(6)}  ${target}  ${shortHash(op.before)} -> ${shortHash(op.after)}${modes}`);
  }
  return `${lines.join("\n")}\n`;
}

function renderRecovery(report: RecoveryReport): string {
  const lines: string[] = [];
  for (const batch of report.batches) {
    lines.push(`${batch.id}: ${batch.action} (${batch.files.length} file${batch.files.length === 1 ? "" : "s"})${batch.reason === undefined ? "" : `: ${batch.reason}`}`);
    for (const conflict of batch.conflicts) lines.push(`  left alone: ${conflict.path}: ${conflict.reason}`);
  }
  if (report.batches.length === 0) lines.push("nothing to recover");
  if (report.locksRemoved > 0) lines.push(`removed ${report.locksRemoved} lock${report.locksRemoved === 1 ? "" : "s"} of writers that are gone`);
  if (report.debrisRemoved > 0) lines.push(`removed ${report.debrisRemoved} half-created or half-deleted journal entr${report.debrisRemoved === 1 ? "y" : "ies"}`);
  return `${lines.join("\n")}\n`;
}

/** Paths may only be written inside the roots the batch was made in, checked on real paths right before each op. */
function insideRoots(roots: readonly string[]) {
  return async (dirReal: string) => roots.some((root) => relativeInside(root, dirReal, path.sep) !== undefined);
}

async function undo(batchId: string, stateDir: string, io: CommandIO): Promise<number> {
  const batch = await showBatch(batchId, { stateDir });
  const { ops, conflicts } = await undoOps(batchId, { stateDir });
  if (conflicts.length > 0) {
    io.stderr(`ast-mcp journal: undo_conflict: batch ${batchId} cannot be undone; these files changed since:\n${conflicts.map((file) => `  ${file}\n`).join("")}`);
    return EXIT_REFUSED;
  }
  const roots: string[] = [];
  for (const root of batch.roots) roots.push(await realpath(root).catch(() => root));
  const snapshot = await loadConfig({ cwd: io.cwd, env: io.env });
  const result = await commitBatch(
    ops,
    { sessionId: "cli", tool: "journal undo", roots, description: undoDescription(batchId) },
    { stateDir, journalLimits: snapshot.config.journal, verifyParent: insideRoots(roots) },
  );
  io.stdout(`undid batch ${batchId} as batch ${result.batchId} (${result.files.length} file${result.files.length === 1 ? "" : "s"})\n`);
  return EXIT_OK;
}

export async function runJournalCommand(argv: string[], io: CommandIO): Promise<number> {
  let parsed: Parsed | "help";
  try {
    parsed = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`ast-mcp journal: ${error.message}\n\n${JOURNAL_USAGE}`);
    return EXIT_USAGE;
  }
  if (parsed === "help") {
    io.stdout(JOURNAL_USAGE);
    return EXIT_OK;
  }
  try {
    const stateDir = await stateDirectory(io.env, { cwd: io.cwd });
    switch (parsed.command) {
      case "list": {
        const batches = await listBatches(parsed.session === undefined ? {} : { sessionId: parsed.session }, { stateDir });
        io.stdout(parsed.json ? `${JSON.stringify(batches, null, 2)}\n` : renderList(batches));
        return EXIT_OK;
      }
      case "show": {
        const batch = await showBatch(parsed.batchId as string, { stateDir });
        io.stdout(parsed.json ? `${JSON.stringify(batch, null, 2)}\n` : renderShow(batch));
        return EXIT_OK;
      }
      case "undo":
        return await undo(parsed.batchId as string, stateDir, io);
      case "recover": {
        const report = await recoverJournal({ stateDir });
        io.stdout(parsed.json ? `${JSON.stringify(report, null, 2)}\n` : renderRecovery(report));
        return report.batches.some((batch) => batch.action === "conflict") ? EXIT_REFUSED : EXIT_OK;
      }
    }
  } catch (error) {
    if (!isToolError(error)) throw error;
    io.stderr(`ast-mcp journal: ${error.code}: ${error.message}\n`);
    return EXIT_REFUSED;
  }
}
