import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { runJournalCommand } from "../../src/cli/journal-command.ts";
import { commitBatch } from "../../src/patch/commit.ts";
import { type CommitFixture, makeCommitFixture, runChild, sha } from "./commit-fixture.ts";

let fx: CommitFixture;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  fx = await makeCommitFixture();
  const home = path.join(fx.base, "home");
  await mkdir(home);
  env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), AST_MCP_STATE_DIR: fx.stateDir };
});
afterEach(async () => {
  await fx.cleanup();
});

async function run(argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runJournalCommand(argv, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), cwd: fx.base, env });
  return { code, stdout, stderr };
}

async function twoBatches() {
  await fx.put("a.txt", "a");
  const first = await commitBatch([{ kind: "write", path: fx.at("a.txt"), expectedBefore: sha("a"), after: Buffer.from("A") }], fx.meta, { stateDir: fx.stateDir });
  const second = await commitBatch([{ kind: "write", path: fx.at("b.txt"), expectedBefore: null, after: Buffer.from("b") }], { ...fx.meta, sessionId: "other" }, {
    stateDir: fx.stateDir,
  });
  return { first: first.batchId, second: second.batchId };
}

describe("journal list and show", () => {
  test("list prints every batch oldest first; --session filters; --json is machine-readable", async () => {
    const { first, second } = await twoBatches();
    const text = await run(["list"]);
    expect(text.code).toBe(0);
    expect(text.stdout.indexOf(first)).toBeLessThan(text.stdout.indexOf(second));
    expect(text.stdout).toContain(fx.at("a.txt"));
    const filtered = await run(["list", "--session", "other", "--json"]);
    expect((JSON.parse(filtered.stdout) as Array<{ batchId: string }>).map((batch) => batch.batchId)).toEqual([second]);
  });

  test("an empty journal says so", async () => {
    expect((await run(["list"])).stdout).toBe("the journal is empty\n");
  });

  test("show prints ops and hashes; an unknown id exits 1", async () => {
    const { first } = await twoBatches();
    const shown = await run(["show", first]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`batch      ${first}`);
    expect(shown.stdout).toContain(`write   ${fx.at("a.txt")}  ${sha("a").slice(0, 12)} -> ${sha("A").slice(0, 12)}`);
    const json = JSON.parse((await run(["show", first, "--json"])).stdout) as { ops: Array<{ after: string }> };
    expect(json.ops[0]?.after).toBe(sha("A"));
    const unknown = await run(["show", "20200101T000000000Z-0000000000"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("never existed or was pruned");
  });
});

describe("journal undo", () => {
  test("undo restores the files as a new journaled batch", async () => {
    const { first } = await twoBatches();
    const result = await run(["undo", first]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`undid batch ${first} as batch `);
    expect(await fx.text("a.txt")).toBe("a");
    const listed = JSON.parse((await run(["list", "--json"])).stdout) as Array<{ tool: string; description: string | null }>;
    expect(listed.at(-1)).toMatchObject({ tool: "journal undo", description: `undo of ${first}` });
  });

  test("undo refuses with undo_conflict listing the files changed since", async () => {
    const { first } = await twoBatches();
    await writeFile(fx.at("a.txt"), "edited by hand");
    const result = await run(["undo", first]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("undo_conflict");
    expect(result.stderr).toContain(fx.at("a.txt"));
    expect(await readFile(fx.at("a.txt"), "utf8")).toBe("edited by hand");
  });
});

describe("journal recover", () => {
  test("recover rolls back a dead writer's batch and says so", async () => {
    await fx.put("a.txt", "a");
    const spec = path.join(fx.base, "spec.json");
    await writeFile(
      spec,
      JSON.stringify({
        stateDir: fx.stateDir,
        roots: [fx.root],
        dieAtCheck: 1,
        ops: [{ kind: "write", path: fx.at("a.txt"), expectedBefore: sha("a"), afterBase64: Buffer.from("A").toString("base64") }],
      }),
    );
    await runChild("die-during-commit.ts", [spec]);
    const result = await run(["recover"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/: rolled_back \(1 file\)/);
    expect(await fx.text("a.txt")).toBe("a");
    expect((await run(["recover"])).stdout).toContain("nothing to recover");
  });
});

describe("usage", () => {
  test("usage errors exit 2 with the usage text; --help exits 0", async () => {
    for (const argv of [[], ["nope"], ["show"], ["undo", "a", "b"], ["list", "extra"], ["list", "--bogus"], ["show", "x", "--session", "s"], ["list", "--session"]]) {
      const result = await run(argv);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("Usage: ast-mcp journal");
    }
    const help = await run(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: ast-mcp journal");
  });

  test("an unsafe state directory is reported, not used", async () => {
    await chmod(fx.stateDir, 0o777);
    const result = await run(["list"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("writable by group or others");
    await chmod(fx.stateDir, 0o700);
  });
});
