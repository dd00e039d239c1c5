/** The write façade: one call per batch, its observer, its per-process services and its hooks. */
import { beforeEach, describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../../src/core/errors.ts";
import { sha256Hex } from "../../src/helpers/hash.ts";
import { type CommittedEvent, createWriteServices, type WriteContext, writeBatch, type WriteServices } from "../../src/patch/index.ts";
import { FormatterCache } from "../../src/patch/formatter-cache.ts";
import type { LanguageId } from "../../src/syntax/index.ts";
import { makeContext, makeTempDir, type TempDir, toolFailure } from "../support/context.ts";
import { usePrivateStateDir } from "../support/state-dir.ts";

usePrivateStateDir();
let temp: TempDir;
beforeEach(async () => {
  await temp?.cleanup();
  temp = await makeTempDir();
});

async function writeContextFor(
  options: { services?: WriteServices; onCommitted?: (event: CommittedEvent) => void; sessionId?: string; overrides?: Record<string, LanguageId> } = {},
): Promise<WriteContext> {
  const tool = await makeContext([temp.dir]);
  return {
    workspace: tool.workspace,
    config: options.overrides ? { ...tool.config.config, languages: { overrides: options.overrides } } : tool.config.config,
    configGeneration: tool.config.generation,
    sessionId: options.sessionId ?? "s1",
    stateless: false,
    signal: new AbortController().signal,
    services: options.services ?? createWriteServices(),
    ...(options.onCommitted ? { onCommitted: options.onCommitted } : {}),
  };
}

const hashOf = async (name: string) => sha256Hex(await readFile(path.join(temp.dir, name)));

describe("writeBatch", () => {
  test("tells the observer every path a commit touched, both ends of a rename included", async () => {
    await temp.write("a.txt", "a\n");
    await temp.write("b.txt", "b\n");
    const events: CommittedEvent[] = [];
    const context = await writeContextFor({ onCommitted: (event) => events.push(event) });
    const report = await writeBatch(
      [
        { kind: "rename", key: "a.txt", destination: "moved/a.txt", expectedSha256: await hashOf("a.txt") },
        { kind: "content", key: "b.txt", content: "b2\n", expectedSha256: await hashOf("b.txt") },
      ],
      context,
      { tool: "test" },
    );
    expect(report.committed).toBe(true);
    expect(events).toHaveLength(1);
    expect(events[0]?.tool).toBe("test");
    const real = (name: string) => path.join(context.workspace.roots[0]!.real, name);
    expect([...(events[0]?.realPaths ?? [])].sort()).toEqual([real("a.txt"), real("b.txt"), real("moved/a.txt")].sort());
  });

  test("an observer that throws does not turn a committed write into a failure", async () => {
    await temp.write("a.txt", "a\n");
    const context = await writeContextFor({
      onCommitted: () => {
        throw new Error("cache broke");
      },
    });
    const report = await writeBatch([{ kind: "content", key: "a.txt", content: "new\n", expectedSha256: await hashOf("a.txt") }], context, { tool: "test" });
    expect(report.committed).toBe(true);
    expect(await readFile(path.join(temp.dir, "a.txt"), "utf8")).toBe("new\n");
  });

  test("confirm sees every planned outcome before anything is locked; throwing writes nothing", async () => {
    await temp.write("a.txt", "a\n");
    const context = await writeContextFor();
    const seen: string[] = [];
    const error = await toolFailure(
      writeBatch([{ kind: "content", key: "a.txt", content: "new\n", expectedSha256: await hashOf("a.txt") }], context, {
        tool: "test",
        confirm: (outcomes) => {
          seen.push(...outcomes.map((outcome) => `${outcome.key}:${outcome.facts.change}`));
          throw new ToolError("match_count", "counted differently");
        },
      }),
    );
    expect(error.code).toBe("match_count");
    expect(seen).toEqual(["a.txt:modified"]);
    expect(await readFile(path.join(temp.dir, "a.txt"), "utf8")).toBe("a\n");
  });

  test("skipUnchanged leaves out an entry whose candidate has the file's bytes, and commits nothing when no entry is left", async () => {
    await temp.write("a.txt", "same\n");
    const context = await writeContextFor();
    const report = await writeBatch([{ kind: "content", key: "a.txt", content: "same\n", expectedSha256: await hashOf("a.txt") }], context, { tool: "test", skipUnchanged: true });
    expect(report).toMatchObject({ batchId: null, committed: false });
    expect(report.files[0]?.facts.change).toBe("unchanged");
  });
});

describe("write services", () => {
  test("the formatter cache keeps the sets of the configurations used last, up to its bound", async () => {
    const other = await makeTempDir();
    try {
      const here = await writeContextFor();
      const tool = await makeContext([other.dir]);
      const there: WriteContext = { ...here, workspace: tool.workspace };
      const cache = new FormatterCache();
      const first = await cache.for(here);
      expect(await cache.for(here)).toBe(first);
      await cache.for(there);
      expect(await cache.for(here)).toBe(first);
      const single = new FormatterCache({ maxSets: 1 });
      const kept = await single.for(here);
      await single.for(there);
      expect(await single.for(here)).not.toBe(kept);
    } finally {
      await other.cleanup();
    }
  });

  test("a preview's receipt lives in the services that issued it, and closing the session frees it", async () => {
    await temp.write("a.txt", "a\n");
    const services = createWriteServices();
    const context = await writeContextFor({ services });
    const preview = async () =>
      (await writeBatch([{ kind: "content", key: "a.txt", content: "new\n", expectedSha256: await hashOf("a.txt") }], context, { tool: "test", preview: { receipt: "per-file" } }))
        .files[0]?.receipt?.id as string;
    const redeem = (using: WriteContext, receipt: string) => writeBatch([{ kind: "receipt", key: "a.txt", receipt }], using, { tool: "test" });

    const elsewhere = await writeContextFor({ services: createWriteServices() });
    const foreign = await toolFailure(redeem(elsewhere, await preview()));
    expect(foreign.details?.reason).toBe("unknown");

    const closed = await preview();
    services.closeSession("s1");
    expect((await toolFailure(redeem(context, closed))).details?.reason).toBe("unknown");

    const report = await redeem(context, await preview());
    expect(report.committed).toBe(true);
    expect(await readFile(path.join(temp.dir, "a.txt"), "utf8")).toBe("new\n");
  });
});

describe("language overrides choose the formatter", () => {
  const create = async (name: string, content: string, overrides?: Record<string, LanguageId>) => {
    const context = await writeContextFor(overrides ? { overrides } : {});
    const report = await writeBatch([{ kind: "content", key: name, content, expectedSha256: null }], context, { tool: "test" });
    return { text: await readFile(path.join(temp.dir, name), "utf8"), note: report.files[0]?.facts.formatNote };
  };

  test("a file an override makes JSON or TypeScript is formatted as that language; without the override it is not", async () => {
    await temp.write("dprint.json", "{}\n");
    const json = "{\"a\":1,\n\"b\":[1,2]}\n";
    expect((await create("plain.foo", json)).text).toBe(json);
    const asJson = await create("data.foo", json, { "*.foo": "json" });
    expect(asJson.text).toBe("{ \"a\": 1, \"b\": [1, 2] }\n");
    expect(asJson.note).toContain("dprint json plugin");
    const script = "const a   =  1\n";
    expect((await create("plain.txt", script)).text).toBe(script);
    expect((await create("code.txt", script, { "*.txt": "typescript" })).text).toBe("const a = 1;\n");
  });

  test("an override to a language no installed plugin formats leaves the file unformatted, even under a formattable name", async () => {
    await temp.write("dprint.json", "{}\n");
    const text = "const a   =  1\n";
    expect((await create("a.ts", text)).text).toBe("const a = 1;\n");
    const asYaml = await create("b.ts", text, { "b.ts": "yaml" });
    expect(asYaml.text).toBe(text);
    expect(asYaml.note).toBe("no formatter for yaml");
  });
});
