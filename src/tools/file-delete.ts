import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { findImporters } from "../intel/import-scan.ts";
import { type WriteEntry, writeBatch } from "../patch/index.ts";
import type { ResolvedPath } from "../policy/workspace.ts";
import { plural } from "./common.ts";
import { WRITE_ERRORS } from "./error-sets.ts";
import { defineTool } from "./contract.ts";
import { ExpectedSha256, filesRecord, MutationOutput, mutationOutput, renderMutation, WRITE, writeContext } from "./mutation.ts";

export const fileDeleteTool = defineTool({
  name: "file_delete",
  title: "Delete files",
  description:
    "Delete files (parent directories left empty are removed, within the roots). Refuses to delete a source file that other files import (referenced_file, listing them) unless force: true. Needs expectedSha256; undo with file_undo.",
  input: z.strictObject({
    files: filesRecord(
      z.strictObject({
        expectedSha256: ExpectedSha256,
        force: z.boolean().optional().describe("Delete even if other files import this one."),
      }),
      "Files to delete",
    ),
  }),
  output: MutationOutput,
  annotations: WRITE,
  // The reference check loads a target the import graph does not hold, so a binary or undecodable file is refused as one.
  errors: [...WRITE_ERRORS, "referenced_file", "binary_file", "unsupported_encoding"],
  handler: async ({ files }, context) => {
    /** Refuses to delete a file other files import; files deleted in the same batch do not keep it alive. */
    const refuseReferenced = async (resolved: ResolvedPath) => {
      const importers = await findImporters(resolved, context, { signal: context.signal });
      const others = importers.filter((importer) => importer !== resolved.display && !Object.hasOwn(files, importer));
      if (others.length > 0) {
        throw new ToolError(
          "referenced_file",
          `${resolved.display} is imported by ${plural(others.length, "file")}: ${others.slice(0, 20).join(", ")}${others.length > 20 ? ", …" : ""}.`,
          {
            details: { importers: others.slice(0, LIMITS.patch.maxListedMatches) },
          },
        );
      }
    };
    const entries = Object.entries(files).map(([key, entry]): WriteEntry => ({
      kind: "delete",
      key,
      expectedSha256: entry.expectedSha256,
      refuse: entry.force ? undefined : refuseReferenced,
    }));
    return mutationOutput(await writeBatch(entries, writeContext(context), { tool: "file_delete", sequential: true }));
  },
  render: renderMutation,
});
