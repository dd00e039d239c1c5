import { z } from "zod";
import { LIMITS } from "../core/limits.ts";
import { writeBatch } from "../patch/index.ts";
import { EDIT_ERRORS } from "./error-sets.ts";
import { defineTool } from "./contract.ts";
import { ExpectedSha256, filesRecord, MutationOutput, mutationOutput, renderMutation, WRITE, writeContext } from "./mutation.ts";

export const fileWriteTool = defineTool({
  name: "file_write",
  title: "Write files",
  description:
    "Create files (parent directories are created inside the roots) or replace whole files. Replacing needs the file's current expectedSha256; expectedSha256: null insists the file does not exist yet. An existing file keeps its encoding, BOM and line-ending style. Syntax-checked and formatted like file_patch; all files commit together or none.",
  input: z.strictObject({
    files: filesRecord(
      z.strictObject({
        content: z.string().max(LIMITS.patch.maxCandidateBytes).describe("The complete new content of the file."),
        expectedSha256: ExpectedSha256,
        allowSyntaxErrors: z.boolean().optional().describe("Write even if the content has more syntax errors than the original, or its parser is unavailable (unchecked)."),
      }),
      "Files to write",
    ),
  }),
  output: MutationOutput,
  annotations: WRITE,
  errors: EDIT_ERRORS,
  handler: async ({ files }, context) => {
    const entries = Object.entries(files).map(([key, entry]) => ({
      kind: "content" as const,
      key,
      content: entry.content,
      expectedSha256: entry.expectedSha256,
      allowSyntaxErrors: entry.allowSyntaxErrors,
    }));
    return mutationOutput(await writeBatch(entries, writeContext(context), { tool: "file_write" }));
  },
  render: renderMutation,
});
