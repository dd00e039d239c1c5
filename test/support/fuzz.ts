/**
 * A seeded, schema-guided fuzzer for the built server: it walks every tool's published input schema to
 * make adversarial arguments, drives `node dist/cli.js mcp` over stdio, and checks the process-level
 * guarantees after every call. Used by the seeded slice in test/ and the long run in stress/.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { PROTOTYPE_NAMES } from "./prototype-names.ts";
import { random } from "./random.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: any };

// ───────────────────────────── the fixture ─────────────────────────────

/** Files the root starts with; writes and renames reshape it as the run goes. */
const ROOT_FILES: Record<string, string> = {
  "a.ts": "export const a = 1;\nexport function f(x: number) {\n  return x + a;\n}\n",
  "c2.ts": "export const c2 = 0;\n",
  "e.rs": "fn main() {}\n",
  "p.py": "def g(y):\n    return y\n",
  "data.json": "{\"name\": \"demo\", \"list\": [1, 2]}\n",
  "conf.yaml": "key: value\nlist:\n  - 1\n",
  "notes.md": "# Title\n\ntext\n",
  "src/b.ts": "import { a } from \"../a\";\nexport const b = a + 1;\n",
  "d/x.txt": "inside\n",
};

/**
 * A root, a sentinel directory beside it that nothing may change, links from the root that lead into
 * the sentinel (to a file, a directory and a missing name), and files named after Object.prototype members.
 */
export function buildFixture(base: string): { root: string; sentinel: string } {
  const root = path.join(base, "root");
  const sentinel = path.join(base, "sentinel");
  for (const [relative, text] of Object.entries(ROOT_FILES)) {
    mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    writeFileSync(path.join(root, relative), text);
  }
  for (const name of PROTOTYPE_NAMES) writeFileSync(path.join(root, name), `${name}\n`);
  mkdirSync(path.join(root, "proto"), { recursive: true });
  writeFileSync(path.join(root, "proto", "constructor.ts"), "export function constructor() { return 1; }\nexport const __proto__ = 2;\n");
  mkdirSync(path.join(sentinel, "dir"), { recursive: true });
  writeFileSync(path.join(sentinel, "secret.txt"), "outside\n");
  writeFileSync(path.join(sentinel, "dir", "x.txt"), "outside x\n");
  writeFileSync(path.join(sentinel, "run.sh"), "#!/bin/sh\n");
  chmodSync(path.join(sentinel, "run.sh"), 0o644);
  symlinkSync(path.join(sentinel, "secret.txt"), path.join(root, "out-file"));
  symlinkSync(path.join(sentinel, "dir"), path.join(root, "out-dir"));
  symlinkSync(path.join(sentinel, "missing.txt"), path.join(root, "out-missing"));
  symlinkSync("../sentinel/run.sh", path.join(root, "out-relative"));
  return { root, sentinel };
}

/**
 * Every entry under `dir` (links not followed) with its kind, mode, mtime and content or target.
 * Without `directoryTimes` a directory's mtime is left out (a refused write may stage and remove a file).
 */
export function snapshotTree(dir: string, directoryTimes = true): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (current: string, relative: string): void => {
    let stats;
    try {
      stats = lstatSync(current);
    } catch {
      return;
    }
    const head = `${stats.mode.toString(8)}:${stats.mtimeMs}`;
    if (stats.isSymbolicLink()) out.set(relative, `link:${head}:${readlinkSync(current)}`);
    else if (stats.isDirectory()) {
      out.set(relative, directoryTimes ? `dir:${head}` : `dir:${stats.mode.toString(8)}`);
      for (const name of readdirSync(current).sort()) walk(path.join(current, name), relative === "" ? name : `${relative}/${name}`);
    } else if (stats.isFile()) out.set(relative, `file:${head}:${createHash("sha256").update(readFileSync(current)).digest("hex")}`);
    else out.set(relative, `other:${head}`);
  };
  walk(dir, "");
  return out;
}

/** Root-relative names whose entry differs between two snapshots. */
export function treeDifferences(before: Map<string, string>, after: Map<string, string>): string[] {
  const changed: string[] = [];
  for (const [name, value] of before) if (after.get(name) !== value) changed.push(name);
  for (const name of after.keys()) if (!before.has(name)) changed.push(name);
  return changed;
}

// ───────────────────────────── the generator ─────────────────────────────

const HUGE = "x".repeat(200_000);
const ODD_TEXT = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff.ts",
  "\u202eevil.ts",
  "e\u0301\u0301\u0301",
  "😀",
  "\ufeff",
  "\r\n",
  "%s%n",
  "${x}",
  "'; rm -rf / #",
  "..",
  ".",
  "/",
  "\\",
  "C:\\Windows",
  "~",
  "~/.ssh/id_rsa",
  HUGE,
  "a".repeat(5000),
];
const OUTSIDE_PATHS = [
  "../x.txt",
  "../sentinel/secret.txt",
  "/etc/passwd",
  "/proc/self/environ",
  "~",
  "~/x",
  "/",
  "..",
  "a/../../x",
  "/tmp",
  "out-file",
  "out-dir/x.txt",
  "out-dir/new.txt",
  "out-missing",
  "out-relative",
  "out-dir",
];
const INSIDE_PATHS = [
  "a.ts",
  "c2.ts",
  "e.rs",
  "p.py",
  "data.json",
  "conf.yaml",
  "notes.md",
  "src/b.ts",
  "src",
  "d/x.txt",
  "d",
  ".",
  "new.ts",
  "new/deep/n.py",
  "proto/constructor.ts",
  "./__proto__",
  "./constructor",
  ".git/config",
  ".env",
];
const PATTERNS = ["$A", "$$$", "function $F($$$A) { $$$B }", "export const $X = $V;", "(", "[", "$", "$$$$", "\\", "(((", "a.*b", "(?<=x)", "def $F($$$):", HUGE.slice(0, 10_000)];
const VALID_CONTENT: Record<string, string[]> = {
  ts: ["export const c2 = 1;\n", "export const c2 = 2;\n", "export function f(x: number) {\n  return x;\n}\n"],
  rs: ["fn main() { println!(\"x\"); }\n"],
  py: ["def g(y):\n    return y + 1\n"],
  json: ["{\"name\": \"demo2\"}\n"],
  yaml: ["key: other\n"],
};
const BROKEN_CONTENT: Record<string, string[]> = {
  ts: ["export const = ;", "function (((", "}}}"],
  rs: ["line a\nline b\n", "fn main( {"],
  py: ["def (((:", "class"],
  json: ["{", "{\"a\": }"],
  yaml: ["key: [unclosed", ":\n  - - :"],
};

/** The generator's memory: hashes learned from answers, so compare-and-swap writes can succeed. */
export class FuzzMemory {
  readonly hashes = new Map<string, string>();
  learn(result: unknown): void {
    const visit = (value: unknown): void => {
      if (value === null || typeof value !== "object") return;
      if (Array.isArray(value)) return value.forEach(visit);
      const record = value as Record<string, unknown>;
      if (typeof record.path === "string" && typeof record.sha256 === "string") this.hashes.set(record.path, record.sha256);
      for (const item of Object.values(record)) visit(item);
    };
    visit(result);
  }
}

export class ArgumentGenerator {
  readonly next: () => number;
  constructor(seed: number, readonly memory: FuzzMemory) {
    this.next = random(seed);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
  int(max: number): number {
    return Math.floor(this.next() * max);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  path(): string {
    const roll = this.next();
    if (roll < 0.45) return this.pick(INSIDE_PATHS);
    if (roll < 0.7) return this.pick(OUTSIDE_PATHS);
    if (roll < 0.82) return this.pick(PROTOTYPE_NAMES);
    if (roll < 0.92) return this.pick(ODD_TEXT);
    return `${this.pick(["src/", "d/", "new/", ""])}${this.pick(ODD_TEXT).slice(0, 50)}${this.pick([".ts", ".py", ".json", ""])}`;
  }

  /** Content for a file at `key`: valid or broken code for its language, or odd text. */
  content(key: string): string {
    const extension = path.extname(key).slice(1) || "ts";
    const roll = this.next();
    if (roll < 0.4) return this.pick(VALID_CONTENT[extension] ?? VALID_CONTENT.ts!);
    if (roll < 0.75) return this.pick(BROKEN_CONTENT[extension] ?? BROKEN_CONTENT.ts!);
    return this.pick(ODD_TEXT);
  }

  hashFor(key: string): Json {
    const known = this.memory.hashes.get(key);
    const roll = this.next();
    if (known && roll < 0.7) return known;
    if (roll < 0.8) return null;
    if (roll < 0.9) return "0".repeat(64);
    return this.pick(["", "XYZ", "0".repeat(63), HUGE.slice(0, 100)]);
  }

  string(schema: Schema, field: string): Json {
    if (this.chance(0.03)) return this.wrongType();
    if (/path|destination|from|to|contextFile/i.test(field) && field !== "pattern") return this.path();
    if (field === "pattern" || field === "glob" || field === "selector" || field === "regex") return this.pick([...PATTERNS, "**/*.ts", "*", "{", "[!"]);
    if (field === "query" || field === "symbol" || field === "target") return this.pick([...PROTOTYPE_NAMES, "f", "a", "g", ...ODD_TEXT.slice(0, 12)]);
    if (field === "rewrite" || field === "fix" || field === "replace") return this.pick(["$A", "", "x", HUGE.slice(0, 100_000), "export const = ;", "def (((:"]);
    if (field === "search") return this.pick(["export const a = 1;", "return y", "", "zzz"]);
    if (field === "chmod") return this.pick(["644", "755", "+x", "-x", "7777", "u+s", "999", "abc", "0"]);
    if (field === "batchId" || field === "previewReceipt") return this.pick(["x", "../../etc", ...PROTOTYPE_NAMES.slice(0, 3), "0".repeat(200)]);
    if (field === "lang") return this.pick(["typescript", "python", "rust", "constructor", "toString", "", "TS", "nope"]);
    if (field === "expectedSha256") return this.hashFor(field);
    if (Array.isArray(schema.enum) && this.chance(0.9)) return this.pick(schema.enum);
    return this.pick([...ODD_TEXT, ...PROTOTYPE_NAMES]);
  }

  number(schema: Schema): Json {
    const roll = this.next();
    const min = typeof schema.minimum === "number" ? schema.minimum : 0;
    const max = typeof schema.maximum === "number" ? Math.min(schema.maximum, 1e6) : 1e6;
    if (roll < 0.6) return min + this.int(Math.min(max - min + 1, 50));
    if (roll < 0.7) return max;
    return this.pick([-1, 0, 1.5, -0.0, 1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 31, max + 1, min - 1]);
  }

  wrongType(): Json {
    return this.pick<Json>([null, true, 0, -1, "", [], {}, [null], { constructor: 1 }, "x"]);
  }

  /** A value for `schema` (draft-7 JSON Schema from zod); `field` steers strings toward paths, patterns and so on. */
  value(schema: Schema, field: string, depth = 0): Json {
    if (depth > 6) return null;
    if (schema.anyOf) return this.value(this.pick(schema.anyOf as Schema[]), field, depth + 1);
    if (schema.const !== undefined) return schema.const;
    switch (schema.type) {
      case "object":
        return this.object(schema, depth);
      case "array": {
        if (this.chance(0.03)) return this.wrongType();
        const count = this.chance(0.05) ? this.pick([0, 51, 200]) : 1 + this.int(3);
        return Array.from({ length: count }, () => this.value(schema.items ?? {}, field, depth + 1));
      }
      case "string":
        return this.string(schema, field);
      case "integer":
      case "number":
        return this.chance(0.03) ? this.wrongType() : this.number(schema);
      case "boolean":
        return this.chance(0.03) ? this.wrongType() : this.chance(0.5);
      case "null":
        return null;
      default:
        return this.pick<Json>([1, "x", { a: 1 }, [1, 2], null]);
    }
  }

  object(schema: Schema, depth: number): Json {
    if (this.chance(0.02)) return this.wrongType();
    const out: { [key: string]: Json } = {};
    if (schema.properties) {
      const required = new Set<string>(schema.required ?? []);
      for (const [name, sub] of Object.entries(schema.properties as Record<string, Schema>)) {
        if (required.has(name) ? this.chance(0.97) : this.chance(0.5)) out[name] = this.value(sub, name, depth + 1);
      }
      if (this.chance(0.03)) out[this.pick(["extra", ...PROTOTYPE_NAMES])] = 1;
      return out;
    }
    // A record keyed by paths (batch tools): mix learned, valid and refused entries in one batch.
    const count = this.chance(0.05) ? this.pick([0, 60]) : 1 + this.int(3);
    for (let index = 0; index < count; index++) {
      const key = this.path();
      const entry = this.value(schema.additionalProperties ?? {}, "entry", depth + 1);
      if (entry !== null && typeof entry === "object" && !Array.isArray(entry)) {
        if ("content" in entry && this.chance(0.9)) entry.content = this.content(key);
        if ("expectedSha256" in entry || this.chance(0.5)) entry.expectedSha256 = this.hashFor(key);
      }
      out[key] = entry;
    }
    return out;
  }
}

/**
 * Hand-made sequences that past defects needed (a refused entry next to a syntax error; a prepared
 * write followed by a broken one with the right hash), played with the learned hashes.
 */
export function scenarioCalls(generator: ArgumentGenerator, skipPreparedThenBroken = false): Array<{ name: string; args: Json }> {
  const choice = generator.int(3);
  switch (skipPreparedThenBroken && choice === 1 ? 2 : choice) {
    case 0:
      return [
        { name: "file_hash", args: { filePaths: ["e.rs"] } },
        { name: "file_write", args: { files: { "../x.txt": { content: "x" }, "e.rs": { content: "line a\nline b\n", expectedSha256: "@e.rs" } } } },
      ];
    case 1:
      return [
        { name: "file_hash", args: { filePaths: ["c2.ts"] } },
        { name: "file_write", args: { files: { "c2.ts": { content: generator.pick(VALID_CONTENT.ts!), expectedSha256: "@c2.ts" } } } },
        { name: "file_write", args: { files: { "c2.ts": { content: "export const = ;", expectedSha256: "@c2.ts" } } } },
      ];
    default:
      return [
        { name: "file_hash", args: { filePaths: ["a.ts", "data.json"] } },
        {
          name: "file_write",
          args: { files: { "a.ts": { content: "export const a = 3;\n", expectedSha256: "@a.ts" }, "data.json": { content: "{", expectedSha256: "@data.json" } } },
        },
      ];
  }
}

/** Replaces "@path" placeholders with the hash learned for that path (scenarios refer to hashes they learn on the way). */
export function withLearnedHashes(args: Json, memory: FuzzMemory): Json {
  if (typeof args === "string" && args.startsWith("@")) return memory.hashes.get(args.slice(1)) ?? null;
  if (Array.isArray(args)) return args.map((item) => withLearnedHashes(item, memory));
  if (args !== null && typeof args === "object") return Object.fromEntries(Object.entries(args).map(([key, value]) => [key, withLearnedHashes(value, memory)]));
  return args;
}

// ───────────────────────────── the supervisor ─────────────────────────────

export interface Finding {
  call: number;
  kind: "exit" | "hang" | "internal_error" | "protocol_error" | "outside_change" | "uncommitted_root_change" | "leftover_temp" | "descriptor_leak";
  tool: string;
  detail: string;
  args?: string;
  /** The #14 defect this finding matches, when its signature is known. */
  defect?: number;
}

/** The known defects by their signature: an exit on an unhandled syntax-guard refusal, a write that hangs. */
function knownDefect(kind: Finding["kind"], tool: string, detail: string): number | undefined {
  if (kind === "exit" && /syntax_regression|refuseRegression/.test(detail)) return 1;
  if (kind === "hang" && tool === "file_write") return 2;
  if (kind === "internal_error" && /is not a function|prototype/i.test(detail)) return 5;
  return undefined;
}

interface Pending {
  resolve: (message: any) => void;
}

/**
 * Which wire the fuzzer speaks: `legacy` opens a 2025-06-18 session with initialize; `modern` speaks
 * 2026-07-28, with no handshake and the protocol version, capabilities and client info in every request's `_meta`.
 */
export type FuzzEra = "legacy" | "modern";

const MODERN_ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "fuzz", version: "1" },
};

/** One server process over stdio with newline-framed JSON-RPC. */
class ServerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  #nextId = 1;
  #pending = new Map<number, Pending>();
  #buffer = "";
  exited: { code: number | null; signal: string | null } | undefined;
  stderr = "";

  constructor(cli: string, root: string, env: Record<string, string>, readonly era: FuzzEra = "legacy") {
    this.child = spawn("node", [cli, "mcp", root], { env, cwd: path.dirname(root), stdio: "pipe" });
    this.child.stdout.on("data", (chunk: Buffer) => {
      this.#buffer += chunk.toString();
      for (let nl = this.#buffer.indexOf("\n"); nl !== -1; nl = this.#buffer.indexOf("\n")) {
        const line = this.#buffer.slice(0, nl);
        this.#buffer = this.#buffer.slice(nl + 1);
        if (line.trim() === "") continue;
        let message: any;
        try {
          message = JSON.parse(line);
        } catch {
          continue;
        }
        const waiter = typeof message.id === "number" ? this.#pending.get(message.id) : undefined;
        if (waiter) {
          this.#pending.delete(message.id);
          waiter.resolve(message);
        }
      }
    });
    this.child.stderr.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-20_000);
    });
    this.child.on("exit", (code, signal) => {
      this.exited = { code, signal };
      for (const waiter of this.#pending.values()) waiter.resolve({ exited: true });
      this.#pending.clear();
    });
  }

  request(method: string, params: unknown, timeoutMs: number): Promise<any> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        resolve({ timedOut: true });
      }, timeoutMs);
      this.#pending.set(id, {
        resolve: (message) => {
          clearTimeout(timer);
          resolve(message);
        },
      });
      if (this.exited) return resolve({ exited: true });
      const framed = this.era === "modern" ? { ...(params as object), _meta: MODERN_ENVELOPE } : params;
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params: framed })}\n`);
    });
  }

  async start(): Promise<void> {
    if (this.era === "modern") {
      const discovered = await this.request("server/discover", {}, 30_000);
      if (!discovered.result?.supportedVersions?.includes("2026-07-28")) throw new Error(`the server did not answer server/discover: ${JSON.stringify(discovered)} ${this.stderr}`);
      return;
    }
    const init = await this.request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } }, 30_000);
    if (!init.result) throw new Error(`the server did not initialize: ${JSON.stringify(init)} ${this.stderr}`);
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  }

  descriptors(): number {
    try {
      return readdirSync(`/proc/${this.child.pid}/fd`).length;
    } catch {
      return -1;
    }
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    this.child.stdin.end();
    const gone = new Promise((resolve) => this.child.once("exit", resolve));
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5_000);
    await gone;
    clearTimeout(timer);
  }
}

export interface FuzzOptions {
  cli: string;
  base: string;
  env: Record<string, string>;
  seed: number;
  calls: number;
  /** Per-call limit; a call over it is a hang. */
  callTimeoutMs?: number;
  /** Leaves out the scenario that hangs until #14 defect 2 is fixed (each hang costs the whole call limit). */
  skipPreparedThenBroken?: boolean;
  /** The wire to speak (default legacy). */
  era?: FuzzEra;
  log?: (line: string) => void;
}

export interface FuzzReport {
  seed: number;
  calls: number;
  findings: Finding[];
  errorCodes: Record<string, number>;
  commits: number;
  restarts: number;
}

async function leftoverTemps(dirs: string[]): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.name.startsWith(".ast-mcp-")) found.push(full);
      if (entry.isDirectory() && depth < 8) await walk(full, depth + 1);
    }
  };
  for (const dir of dirs) await walk(dir, 0);
  return found.sort();
}

/** Errors a tool answers with, from the text of an isError result. */
function errorCodesOf(result: any): string[] {
  const codes: string[] = [];
  const text = result?.content?.[0]?.text;
  if (result?.isError && typeof text === "string") {
    try {
      codes.push(JSON.parse(text).error.code);
    } catch {
      codes.push("unparseable_error");
    }
  }
  // Batch tools also answer per entry.
  const visit = (value: unknown): void => {
    if (value === null || typeof value !== "object") return;
    if (Array.isArray(value)) return value.forEach(visit);
    const record = value as Record<string, any>;
    if (record.error && typeof record.error.code === "string") codes.push(record.error.code);
    for (const item of Object.values(record)) visit(item);
  };
  visit(result?.structuredContent);
  return codes;
}

function reportedCommit(result: any): boolean {
  const content = result?.structuredContent;
  return content !== undefined && content !== null && (content.committed === true || (typeof content.batchId === "string" && content.batchId.length > 0));
}

/** Runs the fuzzer and returns what it found; it never throws for a finding, so a run counts them all. */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const log = options.log ?? (() => {});
  const callTimeoutMs = options.callTimeoutMs ?? 30_000;
  const { root, sentinel } = buildFixture(options.base);
  const memory = new FuzzMemory();
  const generator = new ArgumentGenerator(options.seed, memory);
  const findings: Finding[] = [];
  const errorCodes: Record<string, number> = Object.create(null);
  let commits = 0;
  let restarts = 0;

  let server = new ServerProcess(options.cli, root, options.env, options.era);
  await server.start();
  const { result: listed } = await server.request("tools/list", {}, 30_000);
  const tools: Array<{ name: string; inputSchema: Schema }> = listed.tools;
  const sentinelBefore = snapshotTree(sentinel);
  const tempsBefore = await leftoverTemps([root, sentinel]);
  let baselineDescriptors = -1;
  const queue: Array<{ name: string; args: Json }> = [];

  for (let call = 0; call < options.calls; call++) {
    if (queue.length === 0) {
      if (generator.chance(0.08)) queue.push(...scenarioCalls(generator, options.skipPreparedThenBroken));
      else {
        const tool = generator.pick(tools);
        queue.push({ name: tool.name, args: generator.chance(0.01) ? generator.wrongType() : generator.value(tool.inputSchema, "arguments") });
      }
    }
    const next = queue.shift()!;
    const args = withLearnedHashes(next.args, memory);
    const shown = JSON.stringify(args)?.slice(0, 600) ?? String(args);
    const rootBefore = snapshotTree(root, false);
    const started = Date.now();
    const answer = await server.request("tools/call", { name: next.name, arguments: args }, callTimeoutMs);
    const record = (kind: Finding["kind"], detail: string) => {
      const defect = knownDefect(kind, next.name, detail);
      findings.push({ call, kind, tool: next.name, detail, args: shown, ...(defect === undefined ? {} : { defect }) });
      log(`call ${call} ${kind} ${next.name}: ${detail.slice(0, 300)} args=${shown.slice(0, 300)}`);
    };

    if (answer.exited || answer.timedOut) {
      // Give a dying process a moment so an exit after the answer is told apart from a hang.
      if (answer.timedOut) record("hang", `no answer in ${Date.now() - started} ms`);
      else record("exit", `the process exited (${JSON.stringify(server.exited)}): ${server.stderr.slice(-800)}`);
      await server.stop();
      server = new ServerProcess(options.cli, root, options.env, options.era);
      await server.start();
      restarts += 1;
      queue.length = 0;
      continue;
    }
    if (answer.error) {
      // Protocol-level answers are fine when the params were malformed (-32602); anything else is not.
      if (answer.error.code !== -32602) record("protocol_error", JSON.stringify(answer.error).slice(0, 400));
      errorCodes[`jsonrpc ${answer.error.code}`] = (errorCodes[`jsonrpc ${answer.error.code}`] ?? 0) + 1;
    } else {
      const codes = errorCodesOf(answer.result);
      for (const code of codes) errorCodes[code] = (errorCodes[code] ?? 0) + 1;
      if (codes.includes("internal_error")) record("internal_error", answer.result.content?.[0]?.text ?? "");
      memory.learn(answer.result.structuredContent);
    }
    const committed = reportedCommit(answer.result);
    if (committed) commits += 1;
    const rootChanges = treeDifferences(rootBefore, snapshotTree(root, false));
    if (!committed && rootChanges.length > 0) record("uncommitted_root_change", rootChanges.slice(0, 10).join(", "));
    const sentinelChanges = treeDifferences(sentinelBefore, snapshotTree(sentinel));
    if (sentinelChanges.length > 0) {
      record("outside_change", sentinelChanges.join(", "));
      sentinelBefore.clear();
      for (const [name, value] of snapshotTree(sentinel)) sentinelBefore.set(name, value);
    }
    // The descriptor baseline is taken once every tool has warmed its caches.
    if (call === Math.min(200, options.calls - 1)) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      baselineDescriptors = server.descriptors();
    }
  }

  await new Promise((resolve) => setTimeout(resolve, 1_000));
  // 2026-07-28 has no ping: server/discover is its cheapest request.
  const probe = server.era === "modern" ? "server/discover" : "ping";
  const ping = await server.request(probe, {}, 10_000);
  if (!ping.result) findings.push({ call: options.calls, kind: "hang", tool: probe, detail: `the server did not answer ${probe} at the end: ${JSON.stringify(ping)}` });
  const finalDescriptors = server.descriptors();
  // Slack for descriptors a cache may still hold open (the index watcher, a parser pool).
  if (baselineDescriptors > 0 && restarts === 0 && finalDescriptors > baselineDescriptors + 8) {
    findings.push({ call: options.calls, kind: "descriptor_leak", tool: "-", detail: `${baselineDescriptors} descriptors after warm-up, ${finalDescriptors} at the end` });
  }
  const tempsAfter = (await leftoverTemps([root, sentinel])).filter((name) => !tempsBefore.includes(name));
  if (tempsAfter.length > 0) findings.push({ call: options.calls, kind: "leftover_temp", tool: "-", detail: tempsAfter.slice(0, 20).join(", ") });
  await server.stop();
  return { seed: options.seed, calls: options.calls, findings, errorCodes: { ...errorCodes }, commits, restarts };
}

/** Findings counted by kind (and, for internal errors and exits, by tool). */
export function summarize(findings: readonly Finding[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const finding of findings) {
    const key = finding.defect !== undefined ?
      `defect ${finding.defect} (${finding.kind})` :
      finding.kind === "internal_error" || finding.kind === "exit" || finding.kind === "hang" ?
      `${finding.kind} ${finding.tool}` :
      finding.kind;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
