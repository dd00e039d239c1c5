// Compare-and-swap increments of a counter file through commitBatch until `wanted` succeed.
// Args: <stateDir> <root> <file> <wanted>. Prints one JSON line of counts; exits 1 on any other error.
import { readFile } from "node:fs/promises";
import { isToolError } from "../../../src/core/errors.ts";
import { sha256Hex } from "../../../src/helpers/hash.ts";
import { commitBatch } from "../../../src/patch/commit.ts";

const [stateDir, root, file, wantedText] = process.argv.slice(2) as [string, string, string, string];
const wanted = Number(wantedText);
const counts = { ok: 0, stale_hash: 0, lock_timeout: 0 };
while (counts.ok < wanted) {
  const bytes = await readFile(file);
  const next = Number(bytes.toString("utf8")) + 1;
  try {
    await commitBatch([{ kind: "write", path: file, expectedBefore: sha256Hex(bytes), after: Buffer.from(String(next)) }], {
      sessionId: `cas-${process.pid}`,
      tool: "cas",
      roots: [root],
    }, { stateDir, lockTimeoutMs: 2_000 });
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
