import { z } from "zod";
import { type WriteEntry, writeBatch } from "../patch/index.ts";
import { WRITE_ERRORS } from "./error-sets.ts";
import { defineTool } from "./contract.ts";
import { ExpectedSha256, filesRecord, MutationOutput, mutationOutput, renderMutation, WRITE, writeContext } from "./mutation.ts";

export const fileChattrTool = defineTool({
  name: "file_chattr",
  title: "Change file modes",
  description:
    "Change a file's permission bits: \"644\", \"0755\", \"+x\" or \"-x\" (no setuid/setgid/sticky bits). Refused on a file with more than one hard link, which could change an inode outside the roots. Needs expectedSha256.",
  input: z.strictObject({
    files: filesRecord(
      z.strictObject({
        chmod: z.string().min(1).max(8).describe("The new mode: three octal digits (\"644\", \"0755\"), \"+x\" or \"-x\"."),
        expectedSha256: ExpectedSha256,
      }),
      "Files to change",
    ),
  }),
  output: MutationOutput,
  annotations: { ...WRITE, destructiveHint: false, idempotentHint: true },
  errors: WRITE_ERRORS,
  handler: async ({ files }, context) => {
    const entries = Object.entries(files).map(([key, entry]): WriteEntry => ({ kind: "chmod", key, chmod: entry.chmod, expectedSha256: entry.expectedSha256 }));
    return mutationOutput(await writeBatch(entries, writeContext(context), { tool: "file_chattr", sequential: true }));
  },
  render: renderMutation,
});
