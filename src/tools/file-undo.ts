import { z } from "zod";
import { undoBatch } from "../patch/index.ts";
import { defineTool } from "./contract.ts";
import { MutationOutput, mutationOutput, renderMutation, WRITE, writeContext } from "./mutation.ts";

export const fileUndoTool = defineTool({
  name: "file_undo",
  title: "Undo a batch",
  description:
    "Undo a committed batch (by batchId, or this session's last one): every file goes back to its before-image, but only if it still has the content the batch left (undo_conflict names the files that changed since). The undo is itself a journaled batch.",
  input: z.strictObject({
    batchId: z.string().min(1).max(200).optional().describe("The batch to undo (from a mutation result or `ast-mcp journal list`); default: this session's last batch."),
  }),
  output: MutationOutput,
  annotations: WRITE,
  handler: async ({ batchId }, context) => mutationOutput(await undoBatch(batchId, writeContext(context))),
  render: renderMutation,
});
