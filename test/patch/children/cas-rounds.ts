// Rounds of read, hash, write counter+1 with that hash as expectedBefore, through commitBatch with the
// state directory of this process's environment (AST_MCP_STATE_DIR). Args: <root> <file> <rounds> <startAt>.
// Starts at the epoch ms <startAt>, so processes overlap. Prints one JSON line of counts; exits 1 on any other error.
import { readFile } from "node:fs/promises";
import { isToolError } from "../../../src/core/errors.ts";
import { sha256Hex } from "../../../src/helpers/hash.ts";
import { commitBatch } from "../../../src/patch/commit.ts";

const [root, file, roundsText, startAtText] = process.argv.slice(2) as [string, string, string, string];
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAtText) - Date.now())));
const counts = { ok: 0, stale_hash: 0, lock_timeout: 0 };
for (let round = 0; round < Number(roundsText); round += 1) {
  const bytes = await readFile(file);
  const next = Number(bytes.toString("utf8")) + 1;
  try {
    await commitBatch([{ kind: "write", path: file, expectedBefore: sha256Hex(bytes), after: Buffer.from(String(next)) }], {
      sessionId: `cas-${process.pid}`,
      tool: "cas",
      roots: [root],
    });
    counts.ok += 1;
  } catch (error) {
    if (isToolError(error) && (error.code === "stale_hash" || error.code === "lock_timeout")) counts[error.code] += 1;
    else {
      process.stderr.write(`unexpected: ${(error as Error).stack}\n`);
      process.exit(1);
    }
  }
}
process.stdout.write(`${JSON.stringify(counts)}\n`);
