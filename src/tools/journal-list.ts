import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { listRecentBatches } from "../patch/index.ts";
import { PathInput } from "./common.ts";
import { Completeness, completeness, renderIncomplete } from "./completeness.ts";
import { PATH_ERRORS } from "./error-sets.ts";
import { defineTool, READ_ONLY } from "./contract.ts";

const ListedBatch = z.object({
  batchId: z.string().describe("Pass it to file_undo as batchId to take this batch back."),
  state: z.string().describe("committed (undoable), or prepared, conflict or failed (never landed, or rolled back: nothing to undo)."),
  tool: z.string().describe("The tool (or CLI command) that wrote it."),
  committedAt: z.string().nullable().describe("When it committed (ISO 8601); null when it never did."),
  files: z.array(z.string()).describe(`The paths it touched, as the workspace displays them (the first ${LIMITS.patch.listedBatchFiles}).`),
  fileCount: z.number().int().describe("How many paths it touched."),
  undoes: z.string().nullable().describe("The batch this one takes back, when it is an undo."),
  undoneBy: z.string().nullable().describe("The batch that took this one back; null when it stands."),
  thisSession: z.boolean().describe("Whether this client's session wrote it (always false for a stateless request, which has no session)."),
});

function countOfBatches(count: number): string {
  return `${count} ${count === 1 ? "batch" : "batches"}`;
}

export const journalListTool = defineTool({
  name: "journal_list",
  title: "List recent batches",
  description:
    "The recent batches of the write journal whose files all lie in the workspace (or under path), newest first: the batchIds file_undo takes. A stateless client keeps no session, so it passes file_undo the batchId a commit returned, or one listed here. Reads the journal only.",
  input: z.strictObject({
    path: PathInput.optional().describe("Only batches whose every file lies under this directory (absolute or relative to the first root); default: the workspace's roots."),
    limit: z
      .number()
      .int()
      .min(1)
      .max(LIMITS.patch.maxListedBatches)
      .optional()
      .describe(`Batches listed, newest first (default ${LIMITS.patch.listedBatches}, at most ${LIMITS.patch.maxListedBatches}).`),
  }),
  output: z.object({
    batches: z.array(ListedBatch).describe("Newest first."),
    more: z.number().int().describe("Older batches of the same workspace left out by limit."),
    ...Completeness,
  }),
  annotations: READ_ONLY,
  errors: PATH_ERRORS,
  handler: async ({ path, limit }, context) => {
    const within = path === undefined ? undefined : await context.workspace.resolve(path, "read");
    if (within && within.kind !== "directory") {
      throw new ToolError("invalid_input", `path: ${within.display} is not a directory; pass the directory whose batches to list.`);
    }
    const shown = limit ?? LIMITS.patch.listedBatches;
    const { batches, more } = await listRecentBatches(context, { limit: shown, ...(within ? { within: within.real } : {}) });
    return {
      batches: batches.map((batch) => ({
        batchId: batch.batchId,
        state: batch.state,
        tool: batch.tool,
        committedAt: batch.committedAt,
        files: batch.files.slice(0, LIMITS.patch.listedBatchFiles).map((file) => context.workspace.display(file)),
        fileCount: batch.files.length,
        undoes: batch.undoes,
        undoneBy: batch.undoneBy,
        thisSession: !context.stateless && batch.sessionId === context.sessionId,
      })),
      more,
      ...completeness(
        undefined,
        more > 0 ? [`limit = ${shown}: ${countOfBatches(more)} older not listed; call again with a larger limit (at most ${LIMITS.patch.maxListedBatches})`] : [],
      ),
    };
  },
  render: (result) => {
    const lines = [result.batches.length === 0 ? "no batches in the journal for this workspace" : `${countOfBatches(result.batches.length)}, newest first:`];
    for (const batch of result.batches) {
      const notes = [batch.undoes ? `undoes ${batch.undoes}` : "", batch.undoneBy ? `undone by ${batch.undoneBy}` : "", batch.thisSession ? "this session" : ""].filter(Boolean);
      const files = batch.files.join(", ") + (batch.fileCount > batch.files.length ? `, … ${batch.fileCount - batch.files.length} more` : "");
      lines.push(`${batch.batchId}  ${batch.state}  ${batch.tool}  ${files}${notes.length > 0 ? `  (${notes.join("; ")})` : ""}`);
    }
    return renderIncomplete(result, lines);
  },
});
