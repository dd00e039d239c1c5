// Commits a batch and SIGKILLs itself at the n-th parent check (right before an op is applied).
// Args: <spec.json>  { stateDir, roots, dieAtCheck, ops: [...] } with write contents in base64 (field afterBase64).
import { readFileSync } from "node:fs";
import { commitBatch, type CommitOp } from "../../../src/patch/commit.ts";

const spec = JSON.parse(readFileSync(process.argv[2] as string, "utf8")) as {
  stateDir: string;
  roots: string[];
  dieAtCheck: number;
  ops: Array<Record<string, unknown>>;
};
const ops = spec.ops.map((op) => (op.kind === "write" ? { ...op, after: Buffer.from(op.afterBase64 as string, "base64") } : op)) as unknown as CommitOp[];
let checks = 0;
await commitBatch(ops, { sessionId: "dying", tool: "test", roots: spec.roots }, {
  stateDir: spec.stateDir,
  verifyParent: async () => {
    checks += 1;
    if (checks === spec.dieAtCheck) process.kill(process.pid, "SIGKILL");
    return true;
  },
});
process.stdout.write("committed\n");
