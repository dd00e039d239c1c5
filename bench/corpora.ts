/**
 * Real source trees for the code-intelligence benchmark, fetched on first use into the user cache
 * directory (never into the repository): TypeScript sources from npm packages that ship them, and
 * Go and Python sources from Debian packages. Each corpus is fetched once and kept; every run works
 * on a fresh copy, because the refresh measurement edits files.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { isSkippedDirectory, outputDirectoryNames } from "../src/syntax/detect.ts";

const run = promisify(execFile);

/** Downloads and unpacking may take a while on a slow link; nothing waits forever. */
const FETCH_TIMEOUT_MS = 10 * 60_000;
/** Written last into a corpus directory: its presence means the fetch finished. */
const COMPLETE_MARKER = ".ast-mcp-bench-corpus.json";
/**
 * How a fetched tree is prepared; a corpus prepared another way is fetched again. 2: only the
 * folders the index itself skips are dropped (output folders only at a project root, so the Go
 * tree keeps src/go/build and src/cmd/dist), and a Debian tree keeps its own folder name (django/, so the root's
 * package is named as Django's imports name it).
 */
const PREPARATION = 2;

export type CorpusId = "ts" | "python" | "go";

interface NpmSource {
  kind: "npm";
  /** name@version, pinned: the numbers of two runs compare only on the same code. */
  spec: string;
  /** Subdirectory of the package kept (the sources; dist/ and typings are dropped). */
  keep: string;
}

interface DebianSource {
  kind: "debian";
  /** Package name; Debian moves versions within a release, so the version fetched is recorded, not pinned. */
  name: string;
  /** Directory inside the unpacked package that holds the sources. */
  keep: string;
}

export interface CorpusSpec {
  id: CorpusId;
  title: string;
  /** ast-grep CLI language name (`-l`) and our `run` lang. */
  astGrepLang: string;
  /** File extension of the corpus language, for sampling files. */
  extension: string;
  sources: Array<NpmSource | DebianSource>;
  /** A structural pattern with many matches, for `run` beside the ast-grep CLI. */
  runPattern: string;
  /** A literal that occurs in the tree, for `search` beside ripgrep. */
  literal: string;
  /** Natural queries for warm `search` latency. */
  searchQueries: string[];
}

export const CORPORA: Record<CorpusId, CorpusSpec> = {
  ts: {
    id: "ts",
    title: "TypeScript: rxjs 7.8.2 + effect 3.22.4 (src/ of the npm packages)",
    astGrepLang: "ts",
    extension: ".ts",
    sources: [
      { kind: "npm", spec: "rxjs@7.8.2", keep: "src" },
      { kind: "npm", spec: "effect@3.22.4", keep: "src" },
    ],
    runPattern: "$OBJ.pipe($$$ARGS)",
    literal: "subscriber",
    searchQueries: ["retry with backoff", "subscribe observable", "schedule timer", "parse json schema", "stream merge"],
  },
  python: {
    id: "python",
    title: "Python: Django (Debian python3-django)",
    astGrepLang: "python",
    extension: ".py",
    sources: [{ kind: "debian", name: "python3-django", keep: "usr/lib/python3/dist-packages/django" }],
    runPattern: "isinstance($A, $B)",
    literal: "get_queryset",
    searchQueries: ["queryset filter", "migration operation", "template render", "csrf token", "form validation"],
  },
  go: {
    id: "go",
    title: "Go: the Go 1.19 tree (Debian golang-1.19-src), vendor/ dropped",
    astGrepLang: "go",
    extension: ".go",
    sources: [{ kind: "debian", name: "golang-1.19-src", keep: "usr/share/go-1.19" }],
    runPattern: "if err != nil { return $$$R }",
    literal: "ReadFull",
    searchQueries: ["read full buffer", "tls handshake", "parse duration", "http request header", "goroutine scheduler"],
  },
};

/** $XDG_CACHE_HOME/ast-mcp-bench or ~/.cache/ast-mcp-bench; AST_MCP_BENCH_CACHE overrides. */
export function benchCacheDir(): string {
  const override = process.env.AST_MCP_BENCH_CACHE?.trim();
  if (override) return override;
  const xdg = process.env.XDG_CACHE_HOME?.trim();
  return join(xdg && xdg.startsWith("/") ? xdg : join(homedir(), ".cache"), "ast-mcp-bench");
}

export interface FetchedCorpus {
  spec: CorpusSpec;
  /** The pristine corpus in the cache. */
  dir: string;
  /** What was fetched, with versions. */
  provenance: string[];
}

function errorText(error: unknown): string {
  if (error && typeof error === "object" && "stderr" in error && typeof error.stderr === "string" && error.stderr.trim() !== "") {
    return error.stderr.trim().split("\n").slice(-3).join(" / ");
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Removes the folders the index skips by its built-in rule (the same function decides), so every
 * tool compared sees the same files. `dir` is the corpus root, which the index treats as a project root.
 */
export async function dropSkippedDirs(dir: string, isRoot = true): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  const outputNames = outputDirectoryNames(entries.filter((entry) => !entry.isDirectory()).map((entry) => entry.name), isRoot);
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    if (isSkippedDirectory(entry.name, outputNames)) await rm(path, { recursive: true, force: true });
    else await dropSkippedDirs(path, false);
  }
}

async function fetchNpm(source: NpmSource, workDir: string, into: string): Promise<string> {
  const { stdout } = await run("npm", ["pack", source.spec, "--pack-destination", workDir, "--json", "--silent"], {
    cwd: workDir,
    timeout: FETCH_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  const packed = JSON.parse(stdout) as Array<{ filename: string; id: string }>;
  const tarball = packed[0]?.filename;
  if (!tarball) throw new Error(`npm pack ${source.spec} produced no tarball`);
  const unpacked = join(workDir, "unpacked");
  await mkdir(unpacked, { recursive: true });
  await run("tar", ["-xzf", join(workDir, tarball), "-C", unpacked], { timeout: FETCH_TIMEOUT_MS });
  const kept = join(unpacked, "package", source.keep);
  if (!existsSync(kept)) throw new Error(`${source.spec} ships no ${source.keep}/`);
  await rename(kept, into);
  return packed[0]?.id ?? source.spec;
}

async function fetchDebian(source: DebianSource, workDir: string, into: string): Promise<string> {
  try {
    await run("apt-get", ["download", source.name], { cwd: workDir, timeout: FETCH_TIMEOUT_MS });
  } catch (error) {
    throw new Error(`apt-get download ${source.name} failed (${errorText(error)}); on Debian/Ubuntu run \`apt-get update\` and retry`);
  }
  const deb = (await readdir(workDir)).find((name) => name.endsWith(".deb"));
  if (!deb) throw new Error(`apt-get download ${source.name} left no .deb`);
  const { stdout: version } = await run("dpkg-deb", ["-f", join(workDir, deb), "Version"], { timeout: FETCH_TIMEOUT_MS });
  const unpacked = join(workDir, "unpacked");
  await run("dpkg-deb", ["-x", join(workDir, deb), unpacked], { timeout: FETCH_TIMEOUT_MS });
  const kept = join(unpacked, source.keep);
  if (!existsSync(kept)) throw new Error(`${source.name} has no ${source.keep}`);
  await rename(kept, into);
  return `${source.name}=${version.trim()} (Debian)`;
}

/**
 * The corpus in the cache, fetching it first when missing. Throws with a readable reason when it
 * cannot be fetched (no network, no apt-get): the caller skips the corpus with that note.
 */
export async function ensureCorpus(spec: CorpusSpec, progress: (text: string) => void): Promise<FetchedCorpus> {
  const cacheDir = benchCacheDir();
  const dir = join(cacheDir, "corpora", spec.id);
  const marker = join(dir, COMPLETE_MARKER);
  if (existsSync(marker)) {
    const saved = JSON.parse(await readFile(marker, "utf8")) as { provenance: string[]; sources: string; preparation?: number };
    if (saved.sources === JSON.stringify(spec.sources) && saved.preparation === PREPARATION) return { spec, dir, provenance: saved.provenance };
  }
  progress(`fetching corpus ${spec.id} into ${dir}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await mkdir(cacheDir, { recursive: true });
  const provenance: string[] = [];
  for (const source of spec.sources) {
    const workDir = await mkdtemp(join(cacheDir, "fetch-"));
    try {
      const name = source.kind === "npm" ? source.spec.replace(/[@/]/g, (c) => (c === "@" ? "-" : "_")).replace(/^-/, "") : basename(source.keep);
      provenance.push(source.kind === "npm" ? await fetchNpm(source, workDir, join(dir, name)) : await fetchDebian(source, workDir, join(dir, name)));
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }
  await dropSkippedDirs(dir);
  await writeFile(marker, JSON.stringify({ provenance, sources: JSON.stringify(spec.sources), preparation: PREPARATION, fetchedAt: new Date().toISOString() }, null, 2));
  return { spec, dir, provenance };
}

/** A fresh working copy of a corpus (without the marker) under `parent`. */
export async function copyCorpus(corpus: FetchedCorpus, parent: string): Promise<string> {
  const root = join(parent, corpus.spec.id);
  await cp(corpus.dir, root, { recursive: true, filter: (source) => !source.endsWith(COMPLETE_MARKER) });
  return root;
}
