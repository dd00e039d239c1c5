/**
 * The layers of `src/` as data: who may import whom, and the few rules beside the import graph.
 * `test/architecture.test.ts` checks every import in `src/` against this file, and ARCHITECTURE.md's
 * layer table is rendered from it (`npx bun scripts/gen-architecture.ts`; the test fails when the
 * committed table differs).
 *
 * Order: a layer may import only layers listed in its `may` (all of them below it); peers on one
 * row of the picture never import each other. Files of one layer import each other freely.
 */

export interface Layer {
  /** The name used in `may` lists and in messages. */
  name: string;
  /** Repository-relative prefixes (a folder ends in "/"; a file is named whole). */
  paths: readonly string[];
  /** What the layer is for, one line (the table's "room" column). */
  room: string;
  /** Layers this one may import (static, type, re-export, dynamic import, createRequire). */
  may: readonly string[];
  /** True when the layer may use no file system, process or network module (pure functions). */
  pure?: boolean;
}

const BELOW_POLICY = ["config", "syntax", "text", "helpers", "core"] as const;

export const LAYERS: readonly Layer[] = [
  {
    name: "cli",
    paths: ["src/cli.ts", "src/cli/"],
    room: "command line: flags, commands loaded lazily, the composition root of each command",
    may: ["server", "hosts", "tools", "patch", "policy", ...BELOW_POLICY],
  },
  {
    name: "server",
    paths: ["src/server/"],
    room: "transports (stdio, Streamable HTTP), the one server factory, lifecycle",
    may: ["tools", "policy", "config", "text", "helpers", "core"],
  },
  {
    name: "hosts",
    paths: ["src/hosts/"],
    room: "install into hosts, doctor, service units, the skill catalog, `ast-mcp hook`",
    may: ["tools", "syntax", "config", "text", "helpers", "core"],
  },
  {
    name: "tools",
    paths: ["src/tools/"],
    room: "one file per tool: schema, one call into the layers below, rendering; `ToolServices`",
    may: ["intel", "patch", "policy", ...BELOW_POLICY],
  },
  {
    name: "intel",
    paths: ["src/intel/"],
    room: "code intelligence: facts, the index, graphs, calls, search, run, TypeScript services",
    may: ["policy", ...BELOW_POLICY],
  },
  {
    name: "patch",
    paths: ["src/patch/"],
    room: "the one write pipeline behind `patch/index.ts`: plan, guard, format, lock, journal, commit",
    may: ["policy", ...BELOW_POLICY],
  },
  {
    name: "policy",
    paths: ["src/policy/"],
    room: "the only path authority: roots, rules, held directories, the one reader (`open.ts`)",
    may: ["config", "text", "helpers", "core"],
  },
  {
    name: "config",
    paths: ["src/config/"],
    room: "`ast-mcp.toml` schema and defaults, layering, trust, store; state and cache directories",
    may: ["syntax", "text", "helpers", "core"],
  },
  {
    name: "syntax",
    paths: ["src/syntax/"],
    room: "the one language layer: language ids and detection, the napi loader, parsing, patterns",
    may: ["text", "helpers", "core"],
  },
  {
    name: "helpers",
    paths: ["src/helpers/"],
    room: "small pure functions (globs, gitignore, JSON Pointer, diffs, tokens, edit distance, bounded concurrency, an LRU map, pairs grouped by key)",
    may: ["text", "core"],
    pure: true,
  },
  {
    name: "text",
    paths: ["src/text/"],
    room: "byte fidelity: encodings, the one definition of binary, decode and encode back, lines",
    may: ["core"],
    pure: true,
  },
  {
    name: "core",
    paths: ["src/core/", "package.json"],
    room: "the kernel: errors, limits a client can see, log, version, binary search",
    may: [],
    pure: true,
  },
];

/** The rows of the picture in ARCHITECTURE.md (peers share a row). */
export const PICTURE: readonly (readonly string[])[] = [["cli"], ["server", "hosts"], ["tools"], ["intel", "patch"], ["policy"], ["config"], ["syntax"], ["helpers"], ["text"], [
  "core",
]];

/**
 * Subsystems (a folder) that the named layers reach only through their façade. More come as the
 * façades exist (issue 15 item 6: each subsystem has one `index.ts` the rest imports).
 */
export const FACADES: readonly { folder: string; entry: string; for: readonly string[] }[] = [{ folder: "src/patch/", entry: "src/patch/index.ts", for: ["tools", "cli"] }];

/** The layer whose one module loads `@ast-grep/napi` and the `@ast-grep/lang-*` grammars at run time. */
export const NAPI_LAYER = "syntax";

/** The layer whose one module exports `lineStarts` (CR, LF and CRLF alike); nothing else computes line starts. */
export const LINE_STARTS_LAYER = "text";

/**
 * Where files are opened for reading outside the policy layer's reader, and why. Everything here
 * is outside the roots or is the write path (which keeps its own handle-relative opens). An entry
 * that no longer reads anything fails the test: the list stays as small as the code.
 */
export const READS_ALLOWED: readonly { where: string; why: string }[] = [
  { where: "src/policy/", why: "the reader of resolved files (`open.ts`) and the held directories under it" },
  { where: "src/patch/", why: "writes: journal, locks, staging and the recheck, all through held directories" },
  { where: "src/config/", why: "configuration files and the state and cache directories, outside the roots" },
  { where: "src/hosts/", why: "host settings, install records and the package's own files, outside the roots" },
  { where: "src/intel/index/snapshot.ts", why: "the index snapshot in the user cache directory" },
  { where: "src/intel/typescript/project.ts", why: "TypeScript's own lib files (`lib.*.d.ts`), read from its package" },
];

/**
 * Files that do not exist in `src/` but are loaded at run time beside the bundle, with the source
 * each is built from (its layer is that source's).
 */
export const BUILD_ARTIFACTS: Readonly<Record<string, string>> = {
  "src/cli/hook-config.cjs": "src/config/load.ts",
};

/**
 * Breaks that still exist and are being removed by the restructuring (issue 15). The test fails on
 * any break not listed here and on any entry here that no longer occurs, so this list only shrinks:
 * delete an entry when its break is gone.
 */
export const PENDING: readonly { key: string; owner: string }[] = [];

/**
 * Module-level mutable state in `src/`, each with its kind and why it is not a service built in the
 * composition root (`tools/services.ts`). The test finds every top-level `let` and every top-level
 * lower-case `new Map/Set/WeakMap/WeakSet` and fails on one not listed here, and on a listed name that
 * is gone. `process`: one per process by nature; `memo`: a table keyed by immutable inputs (a WeakMap
 * goes with its key); `side table`: a WeakMap that lives and dies with the object it annotates.
 */
export const MODULE_STATE: readonly { where: string; name: string; kind: "process" | "memo" | "side table"; why: string }[] = [
  { where: "src/core/log.ts", name: "threshold", kind: "process", why: "the log level, from the environment" },
  { where: "src/policy/beneath.ts", name: "kernelProbe", kind: "process", why: "whether the kernel names /proc/self/fd entries" },
  { where: "src/syntax/grammars.ts", name: "napiProcess", kind: "process", why: "napi keeps a process's first grammar registration" },
  { where: "src/syntax/tree-release.ts", name: "treeReleaseProcess", kind: "process", why: "one heap: one collector and one pending release" },
  {
    where: "src/patch/lock-entry.ts",
    name: "processLocks",
    kind: "process",
    why: "the lock entries this process holds; every service queues on them and the exit handler releases them",
  },
  { where: "src/patch/format.ts", name: "compiledCode", kind: "process", why: "dprint's compiled wasm, immutable once compiled" },
  { where: "src/patch/journal-store.ts", name: "lastIdMs", kind: "process", why: "batch ids increase across the whole process" },
  { where: "src/patch/process-identity.ts", name: "self", kind: "process", why: "this process's identity in lock owner files" },
  { where: "src/hosts/package-files.ts", name: "cachedRoot", kind: "process", why: "the installed package's own directory" },
  { where: "src/intel/typescript/load.ts", name: "loading", kind: "process", why: "the one load of the typescript module" },
  { where: "src/patch/format-region.ts", name: "lastSpan", kind: "memo", why: "one entry of a pure function of two texts" },
  { where: "src/server/mcp.ts", name: "publishedCache", kind: "memo", why: "published schemas of a tool list" },
  { where: "src/server/mcp.ts", name: "lastOffered", kind: "side table", why: "the tool set a process last offered, to tell stateless clients of a change between their requests" },
  {
    where: "src/server/mcp.ts",
    name: "warmedForStateless",
    kind: "side table",
    why: "the processes whose index a stateless client's first request started, once each (such clients send no initialized)",
  },
  { where: "src/tools/profiles.ts", name: "cache", kind: "memo", why: "the tools a profile offers, per tool list" },
  { where: "src/syntax/language-names.ts", name: "compiled", kind: "memo", why: "compiled overrides of a frozen config table" },
  { where: "src/syntax/pattern-form.ts", name: "forms", kind: "memo", why: "the form of a pattern per language, a pure function of the two; the last 64 kept" },
  { where: "src/intel/facts/extract.ts", name: "validatedRules", kind: "memo", why: "an extractor's rules, checked once" },
  { where: "src/intel/facts/lang/c-family.ts", name: "extractors", kind: "memo", why: "the extractor built per C-family language" },
  { where: "src/intel/facts/lang/typescript.ts", name: "cache", kind: "memo", why: "the extractor built per dialect" },
  { where: "src/syntax/parse.ts", name: "crTexts", kind: "side table", why: "the text of a tree parsed from CR text" },
  { where: "src/server/oauth.ts", name: "callers", kind: "side table", why: "the caller an OAuth guard admitted, on the request it admitted" },
  { where: "src/intel/facts/lang/swift.ts", name: "extensions", kind: "side table", why: "extensions seen by one facts builder" },
  { where: "src/intel/facts/lang/haskell.ts", name: "notes", kind: "side table", why: "signatures seen by one facts builder" },
  { where: "src/intel/facts/lang/rust.ts", name: "notes", kind: "side table", why: "impl blocks seen by one facts builder" },
];
