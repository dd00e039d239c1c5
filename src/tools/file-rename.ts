import { z } from "zod";
import { type WriteEntry, writeBatch } from "../patch/index.ts";
import { EDIT_ERRORS } from "./error-sets.ts";
import { defineTool } from "./contract.ts";
import { ExpectedSha256, filesRecord, MutationOutput, mutationOutput, PathKey, renderMutation, WRITE, writeContext } from "./mutation.ts";
import { planImportUpdates } from "./rename-imports.ts";

export const fileRenameTool = defineTool({
  name: "file_rename",
  title: "Rename files",
  description:
    "Move files without ever overwriting: each destination must not exist (destination_exists otherwise). The source needs delete permission, the destination write permission. A batch moves all files or, if one fails, moves the earlier ones back.",
  input: z.strictObject({
    files: filesRecord(
      z.strictObject({
        destination: PathKey.describe("The new path (absolute or relative to the first root); its parent directories are created inside the roots."),
        expectedSha256: ExpectedSha256,
      }),
      "Files to rename",
    ),
    updateImports: z
      .boolean()
      .optional()
      .describe(
        "Also rewrite the import specifiers that point at each moved JS/TS/Python file, in every importer, in the same batch (original style kept; what cannot be rewritten is listed in importNotes).",
      ),
  }),
  output: MutationOutput,
  annotations: WRITE,
  errors: [...EDIT_ERRORS, "destination_exists"],
  handler: async ({ files, updateImports }, context) => {
    const entries = Object.entries(files).map(([key, entry]): WriteEntry => ({ kind: "rename", key, destination: entry.destination, expectedSha256: entry.expectedSha256 }));
    const follow = updateImports ? { follow: (moves: ReadonlyArray<{ from: string; to: string }>) => planImportUpdates(moves, context) } : {};
    return mutationOutput(await writeBatch(entries, writeContext(context), { tool: "file_rename", sequential: true, ...follow }));
  },
  render: renderMutation,
});
