/** The first-contact phase's gates: pacing of progress, timeouts as failed gates, the user's environment, the name it looks up. */
import { expect, test } from "bun:test";
import path from "node:path";
import { agreement, answerKeys, judgeProgress, measureTree, overlapAgreement, pickName, timedCall, userEnvironment } from "../../bench/first-contact.ts";
import { connectStdioServer } from "../../bench/lib.ts";
import { makeTempDir } from "../support/context.ts";

const SDK = path.join(import.meta.dir, "..", "..", "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm");

/** A stdio MCP server with three tools: paced (progress 300 ms apart, last at 100%, a partial answer listing two results), flood (progress 1 ms apart), hang (never answers). */
const FAKE_SERVER = `
import { Server } from ${JSON.stringify(`${SDK}/server/index.js`)};
import { StdioServerTransport } from ${JSON.stringify(`${SDK}/server/stdio.js`)};
import { CallToolRequestSchema, ListToolsRequestSchema } from ${JSON.stringify(`${SDK}/types.js`)};
const server = new Server({ name: "fake", version: "0.0.0" }, { capabilities: { tools: {} } });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const token = request.params._meta?.progressToken;
  const send = (progress) => extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, total: 3 } });
  const name = request.params.name;
  if (name === "hang") await new Promise(() => {});
  const gap = name === "paced" ? 300 : 1;
  for (let step = 1; step <= 3; step++) { await sleep(gap); await send(step); }
  await sleep(20);
  return { content: [{ type: "text", text: "done" }], structuredContent: { complete: false, results: [1, 2] } };
});
await server.connect(new StdioServerTransport());
`;

test("progress notifications closer than 250 ms fail the pacing gate, the closing one at 100% excepted", () => {
  expect(judgeProgress([{ atMs: 0, progress: 1, total: 3 }, { atMs: 300, progress: 2, total: 3 }, { atMs: 310, progress: 3, total: 3 }], 400).ok).toBe(true);
  const flood = judgeProgress([{ atMs: 0, progress: 1, total: 4 }, { atMs: 1, progress: 2, total: 4 }, { atMs: 400, progress: 4, total: 4 }], 500);
  expect(flood.ok).toBe(false);
  expect(flood.problem).toContain("1 ms apart");
});

test("the last progress notification must reach 100%", () => {
  const result = judgeProgress([{ atMs: 0, progress: 1, total: 3 }, { atMs: 300, progress: 2, total: 3 }], 400);
  expect(result.ok).toBe(false);
  expect(result.problem).toContain("last not at 100%");
});

test("a call over two seconds without progress fails the gate; a shorter one needs none", () => {
  expect(judgeProgress([], 1_900).ok).toBe(true);
  expect(judgeProgress([], 2_500)).toMatchObject({ ok: false, problem: "no progress on a long call" });
});

test("call sites and search results are compared with the full index's by place, and the ones it lacks are named", () => {
  const first = answerKeys({ calls: [{ path: "a.go", line: 3, column: 2 }, { path: "b.go", line: 9, column: 5 }] });
  const full = answerKeys({ calls: [{ path: "a.go", line: 3, column: 2 }, { path: "c.go", line: 1, column: 1 }] });
  expect(first).toEqual(["a.go:3:2", "b.go:9:5"]);
  expect(agreement(first ?? [], full ?? [])).toEqual({ agreed: 1, of: 2, missing: ["b.go:9:5"] });
  expect(answerKeys({ results: [{ path: "x.go", startLine: 4, endLine: 9 }] })).toEqual(["x.go:4-9"]);
  expect(answerKeys({ complete: true })).toBeUndefined();
});

test("a search result agrees with the full index's where their lines overlap in one file, whatever their start lines", () => {
  const full = ["a.go:10-30", "b.go:1-5"];
  // Shares lines 10-30; in b.go but past its chunk; in a file the full index does not list.
  expect(overlapAgreement(["a.go:1-40", "b.go:41-80", "c.go:1-40"], full)).toEqual({ lines: 1, files: 2, of: 3 });
  expect(overlapAgreement(["a.go:31-70"], full)).toEqual({ lines: 0, files: 1, of: 1 });
});

test("the servers run with the user's environment: the installer's NODE_OPTIONS and malloc variables left out", () => {
  const env = { PATH: "/bin", HOME: "/h", NODE_OPTIONS: "--max-semi-space-size=2", MALLOC_ARENA_MAX: "2", MALLOC_MMAP_THRESHOLD_: "131072" };
  expect(userEnvironment(env, "linux")).toEqual({ PATH: "/bin", HOME: "/h" });
});

test("the name looked up is the preferred definition when the file has it, else the first one the regex finds", async () => {
  const temp = await makeTempDir("ast-mcp-first-");
  try {
    await temp.write("src/strings/strings.go", "package strings\n\nfunc Index(s string) int { return 0 }\n\nfunc Cut(s, sep string) {}\n");
    const spec = { definitionFile: "src/strings/strings.go", definitionPattern: /^func ([A-Z]\w*)\(/gm };
    expect(await pickName(temp.dir, { ...spec, preferredName: "Cut" })).toBe("Cut");
    expect(await pickName(temp.dir, { ...spec, preferredName: "Missing" })).toBe("Index");
    await expect(pickName(temp.dir, { ...spec, definitionFile: "nope.go", preferredName: "Cut" })).rejects.toThrow("not in the tree");
  } finally {
    await temp.cleanup();
  }
});

test("a first call is timed with its progress, partial state and count listed; one that times out is a failed gate, not a crash", async () => {
  const temp = await makeTempDir("ast-mcp-first-server-");
  const script = await temp.write("fake-server.mjs", FAKE_SERVER);
  const session = await connectStdioServer(script, [], { PATH: process.env.PATH ?? "" });
  try {
    const paced = await timedCall(session, "paced", {}, 10_000);
    expect(paced).toMatchObject({ outcome: "answered", complete: false, items: 2, progress: { count: 3, lastAtFull: true, ok: true } });
    expect(paced.ms).toBeGreaterThanOrEqual(900);

    const flood = await timedCall(session, "flood", {}, 10_000);
    expect(flood.progress.ok).toBe(false);

    const hang = await timedCall(session, "hang", {}, 500);
    expect(hang.outcome).toBe("timeout");
    expect(hang.ms).toBeLessThan(5_000);
  } finally {
    await session.close();
    await temp.cleanup();
  }
}, 30_000);

test("on a small Go tree the phase measures every first call, the restart on the snapshot and the comparison with the full index, all rows filled", async () => {
  const temp = await makeTempDir("ast-mcp-first-tree-");
  try {
    await temp.write("go.mod", "module example.com/m\n\ngo 1.19\n");
    await temp.write("strs/strs.go", "package strs\n\n// Cut cuts a string around a separator.\nfunc Cut(s, sep string) (string, string) {\n\treturn s, sep\n}\n");
    await temp.write("web/serve.go", "package web\n\nimport \"example.com/m/strs\"\n\nfunc Serve(s string) string {\n\ta, _ := strs.Cut(s, \":\")\n\treturn a\n}\n");
    await temp.write("web/route.go", "package web\n\nimport \"example.com/m/strs\"\n\nfunc Route(s string) string {\n\t_, b := strs.Cut(s, \"/\")\n\treturn b\n}\n");
    const tree = {
      id: "go" as const,
      corpus: "go" as const,
      subdir: "",
      extension: ".go",
      definitionFile: "strs/strs.go",
      definitionPattern: /^func ([A-Z]\w*)\(/gm,
      preferredName: "Cut",
      digestFolder: "web",
      searchQuery: "cut string",
    };
    const result = await measureTree(tree, temp.dir, { trees: ["go"], timeoutMs: 30_000, rgRounds: 1 }, false);
    const metrics = result.rows.map((row) => row.metric);
    for (const tool of ["callers", "show", "search", "digest", "map", "impact", "graph", "cycles"]) expect(metrics).toContain(`go: first ${tool}: answer and progress`);
    expect(metrics).toContain("go: restart on the snapshot: first callers");
    expect(metrics).toContain("go: restart on the snapshot: first search");
    const calls = result.details.firstCalls as Array<{ tool: string; outcome: string; items?: number }>;
    expect(calls.every((call) => call.outcome === "answered")).toBe(true);
    expect(calls.find((call) => call.tool === "callers")?.items).toBe(2);
    const agreed = result.rows.find((row) => row.metric.startsWith("go: first callers: its call sites are among the full index's"));
    expect(agreed).toMatchObject({ value: expect.stringMatching(/^2 of 2/), verdict: "pass" });
    expect(result.rows.find((row) => row.metric.startsWith("go: peak RSS"))?.value).toMatch(/MB$/);
    // Without ripgrep the ratios to rg are reported as skipped, not failed.
    expect(result.rows.find((row) => row.metric === "go: first callers, fresh process, empty cache")).toMatchObject({
      verdict: "info",
      value: expect.stringContaining("rg skipped"),
    });
  } finally {
    await temp.cleanup();
  }
}, 120_000);
