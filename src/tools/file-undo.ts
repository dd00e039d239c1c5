import { z } from "zod";
import { undoBatch } from "../patch/index.ts";
import { WRITE_ERRORS } from "./error-sets.ts";
import { defineTool } from "./contract.ts";
import { MutationOutput, mutationOutput, renderMutation, WRITE, writeContext } from "./mutation.ts";

export const fileUndoTool = defineTool({
  name: "file_undo",
  title: "Undo a batch",
  description:
    "Undo a committed batch: every file goes back to its before-image, but only if it still has the content the batch left (undo_conflict names the files that changed since). The undo is itself a journaled batch. Pass the batchId the commit returned (journal_list lists the recent ones). Only a legacy client's session may leave it out, to undo its own last batch; a stateless (2026-07-28) request without batchId is refused with the recent batches listed, never guessed.",
  input: z.strictObject({
    batchId: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe(
        "The batch to undo: the batchId a commit returned, or one journal_list lists. Required in a stateless request; a legacy session may leave it out to undo its own last batch.",
      ),
  }),
  output: MutationOutput,
  annotations: WRITE,
  errors: [...WRITE_ERRORS, "undo_conflict", "destination_exists"],
  handler: async ({ batchId }, context) => mutationOutput(await undoBatch(batchId, writeContext(context))),
  render: renderMutation,
});
