/**
 * Call accuracy against each language's own analyser: `callers` of the built CLI (over stdio) scored
 * against go/types for Go, jedi for Python and the TypeScript compiler's checker for TypeScript (on
 * ajv and zod, published as source, fetched once with `npm pack` into the bench cache), on real
 * trees Debian installs (Go, Python). A phase of
 * `npm run bench` (`--phases accuracy`); alone: `bun bench/accuracy.ts`. Needs `golang-go`,
 * `python3-jedi` and the trees' packages (`apt-get install -y golang-go python3-jedi
 * golang-github-yuin-goldmark-dev golang-github-gin-gonic-gin-dev python3-oauthlib python3-babel`);
 * a tree whose tools are missing is reported as skipped.
 *
 * Options: --accuracy-trees goldmark,gin,oauthlib,babel,ajv,zod (default all; "none" skips the phase),
 * --accuracy-per-kind N (symbols drawn per kind and tree, default 20), --accuracy-seed N (default 17),
 * --strict.
 *
 * Scoring rules (docs/decisions/0029-call-accuracy-against-the-analysers.md says why):
 * - The analysers. Go: bench/accuracy/go-calls.go, built into the bench cache, type-checks each
 *   package of the tree in GOPATH mode over /usr/share/gocode (dependencies from source) and names,
 *   for every call whose callee is a declared function or method, the declaration go/types resolves
 *   it to (through an interface value: the interface method). Python: bench/accuracy/py-calls.py
 *   lists declarations with Python's `ast` and asks jedi's `goto` (imports followed) for every call
 *   of a drawn symbol's name. TypeScript: bench/accuracy/ts-calls.ts type-checks the tree's `.ts`
 *   files as one program and names, for every call, the declaration the checker resolves its callee
 *   to (an overload's signatures stand for their implementation; an `any` receiver, or a value
 *   imported from a module outside the tree's root, which ast-mcp may not read: not resolved).
 * - The symbols. Declarations of the tree (not in test files) whose name is called at least once in
 *   it, dunder methods left out, in four kinds: function, method, interface method (Go) and decoy
 *   (a function or method whose name has another declaration in the tree, interface methods
 *   included; it is in no other kind). Each kind is sorted by place, shuffled with the seed
 *   (mulberry32) and its first N are drawn.
 * - A site is a (file, line) pair; the truth of a symbol is every site the analyser resolves to its
 *   declaration (file and line of the name). A site the analyser resolves to several declarations
 *   counts for each.
 * - Precision counts each site `callers` lists (depth 1) that the analyser resolved: in the truth, a
 *   hit; resolved elsewhere, an extra. A listed site the analyser did not resolve (jedi found
 *   nothing; go/types had no object for the name) or outside the files it read is not scored, and
 *   counted apart. Recall is hits over the truth. Both are summed over symbols (micro).
 * - Default confidence is every edge; "exact+inferred" drops ambiguous edges, for both precision and
 *   recall. Unresolved candidates are not calls and are not counted; neither are the calls `callers`
 *   lists apart as ones that may dispatch to the symbol (`dispatch`: through an interface it implements).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { benchCacheDir } from "./corpora.ts";
import {
  CLI,
  connectStdioServer,
  createFixture,
  type PhaseReport,
  positiveInt,
  progressFor,
  type ResultRow,
  readPeakRss,
  runPhaseMain,
  type StdioSession,
  verdict,
} from "./lib.ts";

const TARGETS = { recall: 0.9, precision: 0.9, confidentPrecision: 0.97 } as const;

const GOPATH = "/usr/share/gocode";
const PYTHON = "/usr/bin/python3";
const CALLERS_TIMEOUT_MS = 120_000;
/** Misses and extras listed per language in the report (all of them go to the results file). */
const LISTED_FAULTS = 25;

type Language = "go" | "python" | "typescript";
type Kind = "function" | "method" | "interface_method" | "decoy";
const KINDS: readonly Kind[] = ["function", "method", "interface_method", "decoy"];

interface TreeSpec {
  id: string;
  language: Language;
  /** Go: the import path under GOPATH; Python: the package folder. */
  root: string;
  importPath?: string;
  packages: string;
  /** An npm package the bench fetches (`npm pack`) into its cache; `root` is then relative to the package's folder. */
  npm?: string;
}

const TREES: Record<string, TreeSpec> = {
  goldmark: {
    id: "goldmark",
    language: "go",
    root: join(GOPATH, "src/github.com/yuin/goldmark"),
    importPath: "github.com/yuin/goldmark",
    packages: "golang-go golang-github-yuin-goldmark-dev",
  },
  gin: {
    id: "gin",
    language: "go",
    root: join(GOPATH, "src/github.com/gin-gonic/gin"),
    importPath: "github.com/gin-gonic/gin",
    packages: "golang-go golang-github-gin-gonic-gin-dev",
  },
  // Trees without a stub in jedi's bundled typeshed: jedi would answer with the stub, not the source.
  oauthlib: { id: "oauthlib", language: "python", root: "/usr/lib/python3/dist-packages/oauthlib", packages: "python3-jedi python3-oauthlib" },
  babel: { id: "babel", language: "python", root: "/usr/lib/python3/dist-packages/babel", packages: "python3-jedi python3-babel" },
  // TypeScript published as source: the compiler is the project's own dependency.
  ajv: { id: "ajv", language: "typescript", npm: "ajv@8.20.0", root: "lib", packages: "(npm registry)" },
  zod: { id: "zod", language: "typescript", npm: "zod@4.6.7", root: "src/v4", packages: "(npm registry)" },
};

/** An npm tree's folder in the bench cache, fetched once with `npm pack` (the registry's tarball, unpacked). */
async function npmTree(tree: TreeSpec): Promise<string> {
  const dir = join(benchCacheDir(), "accuracy", "npm", tree.npm!);
  const root = join(dir, "package", tree.root);
  if (existsSync(root)) return root;
  await mkdir(dir, { recursive: true });
  const tarball = (await run("npm", ["pack", tree.npm!, "--silent", "--pack-destination", dir])).trim().split("\n").pop()!;
  await run("tar", ["xzf", join(dir, tarball), "-C", dir]);
  return root;
}

export const ACCURACY_FLAGS = {
  "accuracy-trees": { type: "string", default: Object.keys(TREES).join(",") },
  "accuracy-per-kind": { type: "string", default: "20" },
  "accuracy-seed": { type: "string", default: "17" },
} as const;

export interface AccuracyOptions {
  trees: string[];
  perKind: number;
  seed: number;
}

export function accuracyOptionsFrom(values: Record<string, unknown>): AccuracyOptions {
  const list = String(values["accuracy-trees"] ?? "").trim();
  const trees = list === "none" || list === "" ? [] : list.split(",").map((item) => item.trim());
  for (const id of trees) if (!(id in TREES)) throw new Error(`--accuracy-trees: unknown tree ${id} (known: ${Object.keys(TREES).join(", ")}, none)`);
  return { trees, perKind: positiveInt("accuracy-per-kind", values["accuracy-per-kind"]), seed: positiveInt("accuracy-seed", values["accuracy-seed"]) };
}

// ---------------------------------------------------------------- the analysers

interface Declaration {
  file: string;
  line: number;
  name: string;
  /** As ast-mcp names it: "Type.Method", "Class.method", "function". */
  qualifiedName: string;
  kind: Exclude<Kind, "decoy">;
  /** Declared in a test file: its file is read, but it is not drawn. */
  test?: boolean;
}

interface Site {
  file: string;
  line: number;
  name: string;
  /** The declarations (file:line) the analyser resolves the callee to; empty: it could not resolve it. */
  targets: string[];
}

async function run(command: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  return await new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    const out: Buffer[] = [];
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => {
      err = (err + chunk.toString()).slice(-4000);
    });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(Buffer.concat(out).toString()) : reject(new Error(`${command} ${args.join(" ")} exited ${code}: ${err}`))));
  });
}

function jsonLines(text: string): Array<Record<string, unknown>> {
  return text.split("\n").filter((line) => line.trim().length > 0).map((line) => JSON.parse(line) as Record<string, unknown>);
}

const placeKey = (file: string, line: number): string => `${file}:${line}`;

/** The Go analyser, built once into the bench cache (never the repository). */
async function goAnalyser(): Promise<string> {
  const dir = join(benchCacheDir(), "accuracy", "go-calls");
  const binary = join(dir, "go-calls");
  await mkdir(dir, { recursive: true });
  const source = join(import.meta.dir, "accuracy", "go-calls.go");
  // Rebuilt every run: a second on this machine, and never stale against the source.
  await run("go", ["build", "-o", binary, source], { GO111MODULE: "off", GOCACHE: join(dir, "gocache"), GOPATH });
  return binary;
}

/** Declarations and calls as go-calls.go and ts-calls.ts print them (a call's `target`, or its `targets`). */
function analyserFacts(records: ReadonlyArray<Record<string, unknown>>): { declarations: Declaration[]; sites: Site[] } {
  const declarations: Declaration[] = [];
  const sites: Site[] = [];
  for (const record of records) {
    const file = String(record.file);
    const line = Number(record.line);
    const name = String(record.name);
    if (record.t === "decl") {
      const owner = typeof record.owner === "string" && record.owner.length > 0 ? record.owner : undefined;
      declarations.push({ file, line, name, qualifiedName: owner ? `${owner}.${name}` : name, kind: record.kind as Declaration["kind"], test: record.test === true });
    } else if (record.t === "call") {
      const targets = (record.targets as Array<{ file: string; line: number }> | undefined) ?? (record.target ? [record.target as { file: string; line: number }] : []);
      sites.push({ file, line, name, targets: targets.map((target) => placeKey(target.file, target.line)) });
    }
  }
  return { declarations, sites };
}

async function goFacts(tree: TreeSpec): Promise<{ declarations: Declaration[]; sites: Site[] }> {
  const binary = await goAnalyser();
  return analyserFacts(jsonLines(await run(binary, [GOPATH, tree.importPath!], { GO111MODULE: "off", GOPATH })));
}

/** The TypeScript analyser (bench/accuracy/ts-calls.ts), run with the bench's own runtime. */
async function typescriptFacts(root: string): Promise<{ declarations: Declaration[]; sites: Site[] }> {
  return analyserFacts(jsonLines(await run(process.execPath, [join(import.meta.dir, "accuracy", "ts-calls.ts"), root])));
}

async function pythonDeclarations(tree: TreeSpec): Promise<Declaration[]> {
  const script = join(import.meta.dir, "accuracy", "py-calls.py");
  return jsonLines(await run(PYTHON, [script, "decls", tree.root])).map((record) => ({
    file: String(record.file),
    line: Number(record.line),
    name: String(record.name),
    qualifiedName: String(record.qualifiedName),
    kind: record.kind as Declaration["kind"],
  }));
}

async function pythonSites(tree: TreeSpec, names: readonly string[]): Promise<Site[]> {
  const script = join(import.meta.dir, "accuracy", "py-calls.py");
  return jsonLines(await run(PYTHON, [script, "calls", tree.root, names.join(",")])).map((record) => ({
    file: String(record.file),
    line: Number(record.line),
    name: String(record.name),
    targets: (record.targets as Array<{ file: string | null; line: number | null }>).map((target) => placeKey(target.file ?? "?", target.line ?? 0)),
  }));
}

/** The names called anywhere in the tree (Python's `ast`, no jedi), for the draw: a symbol drawn must be called. */
async function pythonCalledNames(tree: TreeSpec): Promise<Set<string>> {
  const script = join(import.meta.dir, "accuracy", "py-calls.py");
  return new Set(jsonLines(await run(PYTHON, [script, "called", tree.root])).map((record) => String(record.name)));
}

// ---------------------------------------------------------------- the draw

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Drawn extends Declaration {
  drawnAs: Kind;
}

function draw(declarations: readonly Declaration[], called: ReadonlySet<string>, perKind: number, seed: number): Drawn[] {
  const count = new Map<string, number>();
  for (const declaration of declarations) count.set(declaration.name, (count.get(declaration.name) ?? 0) + 1);
  const drawn: Drawn[] = [];
  for (const kind of KINDS) {
    const pool = declarations
      .filter((declaration) => called.has(declaration.name) && !/^__.*__$/.test(declaration.name) && declaration.test !== true)
      .filter((declaration) => {
        // An interface method always shares its name with its implementations: it is a kind of its own.
        if (declaration.kind === "interface_method") return kind === "interface_method";
        const shared = (count.get(declaration.name) ?? 0) > 1;
        return kind === "decoy" ? shared : declaration.kind === kind && !shared;
      })
      .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
    const random = mulberry32(seed);
    for (let index = pool.length - 1; index > 0; index--) {
      const other = Math.floor(random() * (index + 1));
      [pool[index], pool[other]] = [pool[other]!, pool[index]!];
    }
    for (const declaration of pool.slice(0, perKind)) drawn.push({ ...declaration, drawnAs: kind });
  }
  return drawn;
}

// ---------------------------------------------------------------- scoring

interface Listed {
  key: string;
  confidence: "exact" | "inferred" | "ambiguous";
}

interface SymbolScore {
  symbol: string;
  kind: Kind;
  truth: number;
  /** By level: "all" (default confidence) and "confident" (exact+inferred). */
  hits: { all: number; confident: number };
  scored: { all: number; confident: number };
  unscored: number;
  misses: string[];
  extras: string[];
  /** Calls listed apart as ones that may dispatch to the symbol (not scored). */
  dispatch: number;
  error?: string;
}

async function callersOf(client: Client, root: string, symbol: Drawn): Promise<{ listed: Listed[]; dispatch: number }> {
  const result = await client.callTool(
    { name: "callers", arguments: { symbol: `${relative(root, symbol.file)}#${symbol.qualifiedName}`, depth: 1, limit: 2000 } },
    undefined,
    { timeout: CALLERS_TIMEOUT_MS, resetTimeoutOnProgress: true },
  );
  const content = Array.isArray(result.content) ? (result.content as Array<{ type: string; text?: string }>) : [];
  if (result.isError) throw new Error(content.map((item) => item.text ?? "").join(" ").slice(0, 300));
  const structured = result.structuredContent as {
    symbol: { startLine: number; endLine: number };
    calls: Array<{ path: string; line: number; confidence: Listed["confidence"] }>;
    dispatch?: unknown[];
  };
  if (!(structured.symbol.startLine <= symbol.line && symbol.line <= structured.symbol.endLine)) {
    throw new Error(`callers chose the declaration at line ${structured.symbol.startLine}, not ${symbol.line}`);
  }
  return { listed: structured.calls.map((call) => ({ key: placeKey(join(root, call.path), call.line), confidence: call.confidence })), dispatch: structured.dispatch?.length ?? 0 };
}

function score(symbol: Drawn, answer: { listed: readonly Listed[]; dispatch: number }, sites: readonly Site[], analysedFiles: ReadonlySet<string>, root: string): SymbolScore {
  const { listed } = answer;
  const own = placeKey(symbol.file, symbol.line);
  const resolvedAt = new Map<string, boolean>();
  const truth = new Set<string>();
  for (const site of sites) {
    const key = placeKey(site.file, site.line);
    if (site.targets.includes(own)) truth.add(key);
    // A line is resolved when any call on it of a listed name was resolved.
    if (site.targets.length > 0) resolvedAt.set(key, true);
    else if (!resolvedAt.has(key)) resolvedAt.set(key, false);
  }
  const result: SymbolScore = {
    symbol: `${relative(root, symbol.file)}#${symbol.qualifiedName}`,
    kind: symbol.drawnAs,
    truth: truth.size,
    hits: { all: 0, confident: 0 },
    scored: { all: 0, confident: 0 },
    unscored: 0,
    misses: [],
    extras: [],
    dispatch: answer.dispatch,
  };
  const found = new Set<string>();
  for (const call of new Map(listed.map((call) => [call.key, call])).values()) {
    const file = call.key.slice(0, call.key.lastIndexOf(":"));
    const confident = call.confidence !== "ambiguous";
    if (truth.has(call.key)) {
      found.add(call.key);
      result.hits.all++;
      result.scored.all++;
      if (confident) {
        result.hits.confident++;
        result.scored.confident++;
      }
    } else if (!analysedFiles.has(file) || resolvedAt.get(call.key) !== true) result.unscored++;
    else {
      result.scored.all++;
      if (confident) result.scored.confident++;
      result.extras.push(`${relative(root, call.key)} [${call.confidence}]`);
    }
  }
  for (const key of truth) if (!found.has(key)) result.misses.push(relative(root, key));
  return result;
}

interface Totals {
  symbols: number;
  truth: number;
  hits: { all: number; confident: number };
  scored: { all: number; confident: number };
  unscored: number;
}

function total(scores: readonly SymbolScore[]): Totals {
  const sum: Totals = { symbols: 0, truth: 0, hits: { all: 0, confident: 0 }, scored: { all: 0, confident: 0 }, unscored: 0 };
  for (const one of scores) {
    if (one.error !== undefined) continue;
    sum.symbols++;
    sum.truth += one.truth;
    sum.hits.all += one.hits.all;
    sum.hits.confident += one.hits.confident;
    sum.scored.all += one.scored.all;
    sum.scored.confident += one.scored.confident;
    sum.unscored += one.unscored;
  }
  return sum;
}

const ratio = (part: number, whole: number): number | undefined => (whole === 0 ? undefined : part / whole);
const fixed = (value: number | undefined): string => (value === undefined ? "—" : value.toFixed(3));

// ---------------------------------------------------------------- one tree

async function benchTree(spec: TreeSpec, options: AccuracyOptions): Promise<{ scores: SymbolScore[]; peakRssMB: number | undefined; note?: string }> {
  const progress = progressFor(`accuracy ${spec.id}`);
  if (spec.npm !== undefined) progress(`fetching ${spec.npm}`);
  const tree = spec.npm === undefined ? spec : { ...spec, root: await npmTree(spec) };
  if (!existsSync(tree.root)) return { scores: [], peakRssMB: undefined, note: `${tree.id}: skipped, ${tree.root} is missing (apt-get install -y ${tree.packages})` };
  progress("running the analyser");
  let declarations: Declaration[];
  let sitesFor: (names: readonly string[]) => Promise<Site[]>;
  let called: Set<string>;
  if (tree.language === "go" || tree.language === "typescript") {
    const facts = tree.language === "go" ? await goFacts(tree) : await typescriptFacts(tree.root);
    declarations = facts.declarations;
    called = new Set(facts.sites.map((site) => site.name));
    sitesFor = async (names) => facts.sites.filter((site) => names.includes(site.name));
  } else {
    declarations = await pythonDeclarations(tree);
    called = await pythonCalledNames(tree);
    sitesFor = (names) => pythonSites(tree, names);
  }
  const analysedFiles = new Set(declarations.map((declaration) => declaration.file));
  const drawn = draw(declarations, called, options.perKind, options.seed);
  progress(`${drawn.length} symbols drawn; asking the analyser about their names' calls`);
  const sites = await sitesFor([...new Set(drawn.map((symbol) => symbol.name))]);
  for (const site of sites) analysedFiles.add(site.file);

  const fixture = await createFixture();
  const stateDir = await mkdtemp(join(tmpdir(), "ast-mcp-bench-accuracy-"));
  let session: StdioSession | undefined;
  try {
    progress("indexing with ast-mcp");
    session = await connectStdioServer(CLI, ["mcp", tree.root], { ...fixture.env, AST_MCP_STATE_DIR: stateDir, AST_MCP_INDEX_BACKGROUND: "false" });
    await session.client.callTool({ name: "index", arguments: { rebuild: true } }, undefined, { timeout: CALLERS_TIMEOUT_MS * 5, resetTimeoutOnProgress: true });
    const scores: SymbolScore[] = [];
    for (const symbol of drawn) {
      const bySymbol = sites.filter((site) => site.name === symbol.name);
      try {
        scores.push(score(symbol, await callersOf(session.client, tree.root, symbol), bySymbol, analysedFiles, tree.root));
      } catch (error) {
        const failed = score(symbol, { listed: [], dispatch: 0 }, bySymbol, analysedFiles, tree.root);
        failed.error = (error instanceof Error ? error.message : String(error)).slice(0, 300);
        scores.push(failed);
      }
    }
    const peak = readPeakRss(session.pid);
    return { scores, peakRssMB: peak === undefined ? undefined : Math.round(peak / 1048576) };
  } finally {
    await session?.close().catch(() => {});
    await fixture.cleanup();
    await rm(stateDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- the phase

export async function runAccuracyBench(options: AccuracyOptions): Promise<PhaseReport> {
  const report: PhaseReport = { phase: "accuracy", rows: [], peers: [], notes: [], details: { options, targets: TARGETS, trees: {} } };
  const byLanguage = new Map<Language, SymbolScore[]>();
  for (const id of options.trees) {
    const tree = TREES[id]!;
    try {
      const result = await benchTree(tree, options);
      if (result.note) report.notes.push(result.note);
      byLanguage.set(tree.language, [...(byLanguage.get(tree.language) ?? []), ...result.scores]);
      (report.details.trees as Record<string, unknown>)[id] = {
        language: tree.language,
        root: tree.npm ?? tree.root,
        totals: total(result.scores),
        scores: result.scores,
        peakRssMB: result.peakRssMB,
      };
      for (const failed of result.scores.filter((one) => one.error !== undefined)) report.notes.push(`${id}: ${failed.symbol} not scored: ${failed.error}`);
    } catch (error) {
      report.rows.push({ metric: `${id}: accuracy run`, value: "failed", target: "completes", verdict: "FAIL" });
      report.notes.push(`${id}: failed: ${(error instanceof Error ? error.message : String(error)).slice(0, 1000)}`);
    }
  }
  const table: string[][] = [];
  for (const [language, scores] of byLanguage) {
    const sum = total(scores);
    const recall = ratio(sum.hits.all, sum.truth);
    const precision = ratio(sum.hits.all, sum.scored.all);
    const confident = ratio(sum.hits.confident, sum.scored.confident);
    const rows: ResultRow[] = [
      {
        metric: `${language}: recall (${sum.symbols} symbols, ${sum.truth} true call sites)`,
        value: fixed(recall),
        target: `≥ ${TARGETS.recall}`,
        verdict: verdict(recall === undefined ? undefined : recall >= TARGETS.recall),
      },
      {
        metric: `${language}: precision, default confidence (${sum.unscored} listed sites not scored)`,
        value: fixed(precision),
        target: `≥ ${TARGETS.precision}`,
        verdict: verdict(precision === undefined ? undefined : precision >= TARGETS.precision),
      },
      {
        metric: `${language}: precision, exact+inferred (recall ${fixed(ratio(sum.hits.confident, sum.truth))})`,
        value: fixed(confident),
        target: `≥ ${TARGETS.confidentPrecision}`,
        verdict: verdict(confident === undefined ? undefined : confident >= TARGETS.confidentPrecision),
      },
    ];
    report.rows.push(...rows);
    for (const kind of KINDS) {
      const kindSum = total(scores.filter((one) => one.kind === kind));
      if (kindSum.symbols === 0) continue;
      table.push([
        language,
        kind,
        String(kindSum.symbols),
        String(kindSum.truth),
        fixed(ratio(kindSum.hits.all, kindSum.truth)),
        fixed(ratio(kindSum.hits.all, kindSum.scored.all)),
        fixed(ratio(kindSum.hits.confident, kindSum.truth)),
        fixed(ratio(kindSum.hits.confident, kindSum.scored.confident)),
      ]);
    }
    const misses = scores.flatMap((one) => one.misses.map((site) => `${one.symbol} ← ${site}`));
    const extras = scores.flatMap((one) => one.extras.map((site) => `${one.symbol} ← ${site}`));
    report.notes.push(
      `${language}: ${misses.length} misses${misses.length > 0 ? `: ${misses.slice(0, LISTED_FAULTS).join("; ")}${misses.length > LISTED_FAULTS ? "; …" : ""}` : ""}`,
    );
    report.notes.push(`${language}: ${scores.reduce((sum, one) => sum + one.dispatch, 0)} calls listed apart as ones that may dispatch to a drawn symbol (not scored)`);
    report.notes.push(
      `${language}: ${extras.length} extras${extras.length > 0 ? `: ${extras.slice(0, LISTED_FAULTS).join("; ")}${extras.length > LISTED_FAULTS ? "; …" : ""}` : ""}`,
    );
  }
  report.peers.push({
    title: "per kind (recall and precision at the default confidence, then exact+inferred only)",
    headers: ["language", "kind", "symbols", "true sites", "recall", "precision", "recall e+i", "precision e+i"],
    rows: table,
  });
  return report;
}

if (import.meta.main) runPhaseMain("accuracy", ACCURACY_FLAGS, accuracyOptionsFrom, runAccuracyBench);
