/**
 * The one language layer over ast-grep: maps the language ids of src/syntax/language-names.ts to
 * ast-grep languages, loads the native parsers on first use, and parses source into a tree
 * with its syntax errors located.
 *
 * napi keeps only the FIRST registerDynamicLanguage call of a process (later calls are silently
 * ignored, measured with 0.51.2), so the dynamic grammars cannot be added one by one: the first
 * time any of them is needed, every installed @ast-grep/lang-* package is registered in one call
 * (about 30 ms for all 22, mostly requiring the small package entry points). Nothing else in the
 * process may call registerDynamicLanguage. A short-lived process that needs only a few grammars
 * (the editor hook needs bash) names them first with limitDynamicLanguages and pays for those alone.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Rule, SgNode, SgRoot } from "@ast-grep/napi";
import { LIMITS } from "../core/limits.ts";
import { log } from "../core/log.ts";
import { loneCrLines } from "../text/lines.ts";
import { LANGUAGES, languageFromPath } from "./language-names.ts";

export type LanguageId = string;

type Napi = typeof import("@ast-grep/napi");

/** Built into napi: the value is the napi Lang name. */
const BUILTIN: Readonly<Record<string, string>> = {
  typescript: "TypeScript",
  tsx: "Tsx",
  // tree-sitter-javascript parses JSX, so .jsx files need no grammar of their own.
  javascript: "JavaScript",
  html: "Html",
  css: "Css",
};

/** Loaded from @ast-grep/lang-<package>; the package name is also the registered language name. */
const DYNAMIC: Readonly<Record<string, string>> = {
  python: "python",
  go: "go",
  rust: "rust",
  java: "java",
  kotlin: "kotlin",
  c: "c",
  cpp: "cpp",
  csharp: "csharp",
  ruby: "ruby",
  php: "php",
  swift: "swift",
  scala: "scala",
  lua: "lua",
  bash: "bash",
  elixir: "elixir",
  haskell: "haskell",
  dart: "dart",
  sql: "sql",
  json: "json",
  // Comments parse as tree-sitter-json extras; trailing commas show up as syntax errors.
  jsonc: "json",
  yaml: "yaml",
  toml: "toml",
  markdown: "markdown",
};

/**
 * Named tokens the grammar's external scanner makes, per napi language (for the dynamic ones
 * taken from the package's src/grammar.json; a test keeps them in step). Only these may
 * legitimately be empty (markdown's block_continuation, an empty <script>'s raw_text), so an
 * empty leaf of any other kind is a token the parser had to assume: a MISSING node.
 */
const SCANNER_TOKENS: Readonly<Record<string, readonly string[]>> = {
  JavaScript: ["html_comment", "jsx_text", "escape_sequence", "regex_pattern"],
  TypeScript: ["html_comment", "jsx_text", "escape_sequence", "regex_pattern"],
  Tsx: ["html_comment", "jsx_text", "escape_sequence", "regex_pattern"],
  Html: ["comment", "erroneous_end_tag_name", "raw_text"],
  Css: [],
  bash: ["extglob_pattern", "file_descriptor", "heredoc_body", "heredoc_content", "heredoc_end", "heredoc_start", "regex", "simple_heredoc_body", "test_operator", "variable_name", "word"],
  cpp: ["raw_string_content", "raw_string_delimiter"],
  csharp: [
    "interpolation_brace", "interpolation_close_brace", "interpolation_end_quote", "interpolation_open_brace", "interpolation_quote",
    "interpolation_raw_start", "interpolation_regular_start", "interpolation_start", "interpolation_start_quote",
    "interpolation_string_content", "interpolation_verbatim_start", "raw_string_content", "raw_string_end", "raw_string_start", "string_content",
  ],
  elixir: ["quoted_content"],
  haskell: ["comment", "cpp", "error_sentinel", "haddock", "pragma", "quasiquote_body"],
  kotlin: ["multiline_comment", "safe_nav", "string_content"],
  lua: ["comment_content", "string_content"],
  markdown: [
    "atx_h1_marker", "atx_h2_marker", "atx_h3_marker", "atx_h4_marker", "atx_h5_marker", "atx_h6_marker", "block_continuation",
    "block_quote_marker", "fenced_code_block_delimiter", "minus_metadata", "plus_metadata", "setext_h1_underline", "setext_h2_underline",
  ],
  php: [
    "encapsed_string_chars", "encapsed_string_chars_after_variable", "encapsed_string_chars_after_variable_heredoc", "encapsed_string_chars_heredoc",
    "execution_string_chars", "execution_string_chars_after_variable", "heredoc_end", "heredoc_start", "nowdoc_string", "sentinel_error", "string_content",
  ],
  python: ["block", "comment", "escape_interpolation", "string_end", "string_start"],
  ruby: ["hash_key_symbol", "heredoc_beginning", "heredoc_content", "heredoc_end", "simple_symbol", "string_content"],
  rust: ["doc_comment", "float_literal", "inner_doc_comment_marker", "outer_doc_comment_marker", "raw_string_literal_content", "string_content"],
  scala: ["error_sentinel", "identifier"],
  sql: ["dollar_quote"],
  swift: ["catch_keyword", "default_keyword", "else", "multiline_comment", "raw_str_continuing_indicator", "raw_str_end_part", "raw_str_part", "where_keyword"],
  yaml: [
    "alias_name", "anchor_name", "boolean_scalar", "comment", "directive_name", "directive_parameter", "escape_sequence", "float_scalar",
    "integer_scalar", "null_scalar", "string_scalar", "tag", "tag_handle", "tag_prefix", "timestamp_scalar", "yaml_version",
  ],
};

/** For tests: the scanner token table (napi language name → kinds). */
export function scannerTokenTable(): Readonly<Record<string, readonly string[]>> {
  return SCANNER_TOKENS;
}

/** The shape every @ast-grep/lang-* package exports. */
interface LanguagePackage {
  libraryPath: string;
  extensions: string[];
  languageSymbol?: string;
  metaVarChar?: string;
  expandoChar?: string;
}

/**
 * What each @ast-grep/lang-* package exports besides its parser's path, written out so that
 * registering a grammar needs no require of the package: its entry point loads a build helper that
 * pulls in node:child_process, which alone costs a short-lived hook process ~7 ms. A test compares
 * this table and the resolved parser paths with the packages' own exports.
 */
const PACKAGE_EXPORTS: Readonly<Record<string, Omit<LanguagePackage, "libraryPath">>> = {
  python: { extensions: ["py"], languageSymbol: "tree_sitter_python", expandoChar: "µ" },
  go: { extensions: ["go"], languageSymbol: "tree_sitter_go", expandoChar: "µ" },
  rust: { extensions: ["rs"], languageSymbol: "tree_sitter_rust", expandoChar: "µ" },
  java: { extensions: ["java"], languageSymbol: "tree_sitter_java", expandoChar: "$" },
  kotlin: { extensions: ["kt","ktm","kts"], languageSymbol: "tree_sitter_kotlin", expandoChar: "µ" },
  c: { extensions: ["c","h"], languageSymbol: "tree_sitter_c", expandoChar: "_" },
  cpp: { extensions: ["cc","hpp","cpp","hh","cxx","cu","ino"], languageSymbol: "tree_sitter_cpp", expandoChar: "_" },
  csharp: { extensions: ["cs"], languageSymbol: "tree_sitter_c_sharp", expandoChar: "µ" },
  ruby: { extensions: ["rb","rbw","gemspec"], languageSymbol: "tree_sitter_ruby", expandoChar: "µ" },
  php: { extensions: ["php"], languageSymbol: "tree_sitter_php", expandoChar: "$" },
  swift: { extensions: ["swift"], languageSymbol: "tree_sitter_swift", expandoChar: "µ" },
  scala: { extensions: ["scala","sc","sbt"], languageSymbol: "tree_sitter_scala", expandoChar: "$" },
  lua: { extensions: ["lua"], languageSymbol: "tree_sitter_lua", expandoChar: "$" },
  bash: { extensions: ["bash","bats","cgi","command","env","fcgi","ksh","sh","tmux","tool","zsh"], languageSymbol: "tree_sitter_bash", expandoChar: "$" },
  elixir: { extensions: ["ex","exs"], languageSymbol: "tree_sitter_elixir", expandoChar: "µ" },
  haskell: { extensions: ["hs"], languageSymbol: "tree_sitter_haskell", expandoChar: "µ" },
  dart: { extensions: ["dart"], languageSymbol: "tree_sitter_dart", expandoChar: "$" },
  sql: { extensions: ["sql"], languageSymbol: "tree_sitter_sql", expandoChar: "_" },
  json: { extensions: ["json"], languageSymbol: "tree_sitter_json", expandoChar: "$" },
  yaml: { extensions: ["yaml","yml"], languageSymbol: "tree_sitter_yaml", expandoChar: "$" },
  toml: { extensions: ["toml"], languageSymbol: "tree_sitter_toml", expandoChar: "_" },
  markdown: { extensions: ["md"], languageSymbol: "tree_sitter_markdown", expandoChar: "$" },
};

const PREBUILD_PLATFORM: Readonly<Record<string, string>> = { darwin: "macOS", linux: "Linux", win32: "Windows" };
const PREBUILD_ARCH: Readonly<Record<string, string>> = { x64: "X64", arm64: "ARM64" };

/** Older packages whose entry point always names <package>/parser.so (their install step copies the prebuild there). */
const PARSER_AT_PACKAGE_ROOT: ReadonlySet<string> = new Set(["haskell", "toml"]);

/** The parser library a lang package's entry point names: its prebuild for this platform, else a parser built on install. */
function packageLibraryPath(name: string): string {
  const dir = path.dirname(require.resolve(`@ast-grep/lang-${name}/package.json`));
  if (PARSER_AT_PACKAGE_ROOT.has(name)) return path.join(dir, "parser.so");
  const platform = PREBUILD_PLATFORM[process.platform];
  const arch = PREBUILD_ARCH[process.arch];
  if (platform !== undefined && arch !== undefined) {
    const prebuild = path.join(dir, "prebuilds", `prebuild-${platform}-${arch}`, "parser.so");
    if (existsSync(prebuild)) return prebuild;
  }
  return path.join(dir, "parser.so");
}

interface DynamicState {
  /** Registered package name → the character that stands in for "$" in its patterns. */
  expando: Map<string, string>;
  /** Packages that could not be loaded, with the reason (logged once). */
  failed: Map<string, string>;
}

const require = createRequire(import.meta.url);
/** The working directory at start, to go back to if it is gone by the time the grammars register (see inUsableDirectory). */
const startDirectory = currentDirectory();
let napiModule: Napi | undefined;
let dynamicState: DynamicState | undefined;
/** When set, the only dynamic packages this process registers (see limitDynamicLanguages). */
let dynamicSubset: ReadonlySet<string> | undefined;

function napi(): Napi {
  napiModule ??= require("@ast-grep/napi") as Napi;
  return napiModule;
}

function currentDirectory(): string | undefined {
  try {
    return process.cwd();
  } catch {
    return undefined;
  }
}

/**
 * Runs `work` (napi's grammar registration) in napi's own package directory and goes back after:
 * the registration fails with ENOENT in a working directory that was removed, even one recreated
 * under the same name, whatever the library paths; grammars must not depend on where the server
 * was started. Where the process cannot change directory (a worker thread), `work` runs as is.
 */
function inUsableDirectory<T>(work: () => T): T {
  const back = currentDirectory() ?? startDirectory;
  try {
    process.chdir(path.dirname(require.resolve("@ast-grep/napi/package.json")));
  } catch {
    return work();
  }
  try {
    return work();
  } finally {
    try {
      if (back !== undefined) process.chdir(back);
    } catch (error) {
      log.warn("the working directory is gone; staying in the parser package's directory", { directory: back, reason: error instanceof Error ? error.message : String(error) });
    }
  }
}

function loadPackage(name: string): LanguagePackage {
  const exported = PACKAGE_EXPORTS[name];
  if (exported === undefined) throw new Error("no registration is known for this package");
  const libraryPath = packageLibraryPath(name);
  // napi aborts the registration (or the process) on a library it cannot open, so check first.
  if (!existsSync(libraryPath)) throw new Error(`its parser library ${libraryPath} is missing`);
  return { ...exported, extensions: [...exported.extensions], libraryPath };
}

/** For tests: the registration of a package as this module computes it (name as in @ast-grep/lang-<name>). */
export function packageRegistration(name: string): LanguagePackage {
  return loadPackage(name);
}

/**
 * Restricts this process to the dynamic grammars of these language ids (the others then report no
 * syntax tree support). For short-lived processes that know what they parse: the hook answers a
 * host within its time budget by loading one grammar instead of 22. Returns false, changing
 * nothing, once the grammars are registered (registration happens once per process).
 */
export function limitDynamicLanguages(ids: readonly LanguageId[]): boolean {
  if (dynamicState) return false;
  dynamicSubset = new Set(ids.map(normalizeId).filter((id) => Object.hasOwn(DYNAMIC, id)).map((id) => DYNAMIC[id]!));
  return true;
}

function registerDynamicLanguages(): DynamicState {
  if (dynamicState) return dynamicState;
  const state: DynamicState = { expando: new Map(), failed: new Map() };
  const registrations: Record<string, LanguagePackage> = {};
  for (const name of new Set(Object.values(DYNAMIC))) {
    if (dynamicSubset && !dynamicSubset.has(name)) continue;
    try {
      registrations[name] = loadPackage(name);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      state.failed.set(name, reason);
      log.warn(`syntax trees for ${name} are unavailable: @ast-grep/lang-${name} did not load`, { reason });
    }
  }
  const started = performance.now();
  try {
    inUsableDirectory(() => napi().registerDynamicLanguage(registrations));
    for (const [name, registration] of Object.entries(registrations)) {
      // A registration made elsewhere in the process first would make napi ignore this one.
      try {
        napi().parse(name, "");
        state.expando.set(name, registration.expandoChar ?? "$");
      } catch (error) {
        state.failed.set(name, error instanceof Error ? error.message : String(error));
        log.warn(`syntax trees for ${name} are unavailable: napi did not register it`, { reason: state.failed.get(name) });
      }
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    for (const name of Object.keys(registrations)) state.failed.set(name, reason);
    log.warn("registering the ast-grep language packages failed", { reason });
  }
  log.debug("registered ast-grep language packages", { count: state.expando.size, ms: Math.round(performance.now() - started) });
  dynamicState = state;
  return state;
}

function normalizeId(id: LanguageId): string {
  return id.trim().toLowerCase();
}

/**
 * The napi language name for a language id (a Lang name such as "TypeScript", or a registered
 * dynamic name such as "python"); registers the dynamic grammars on first use. Undefined when the
 * language has no syntax tree support here.
 */
export function astGrepLanguageFor(id: LanguageId): string | undefined {
  const key = normalizeId(id);
  if (Object.hasOwn(BUILTIN, key)) return BUILTIN[key];
  if (!Object.hasOwn(DYNAMIC, key)) return undefined;
  const name = DYNAMIC[key]!;
  return registerDynamicLanguages().expando.has(name) ? name : undefined;
}

/**
 * Why a language that has a grammar package here has no syntax trees in this process (the package
 * or its parser did not load, or napi did not register it); undefined when it has them, or never had a
 * grammar. A check that should have parsed and could not is not a check that passed.
 */
export function syntaxTreeUnavailable(id: LanguageId): string | undefined {
  const key = normalizeId(id);
  if (!Object.hasOwn(DYNAMIC, key)) return undefined;
  const name = DYNAMIC[key]!;
  if (dynamicSubset && !dynamicSubset.has(name)) return undefined;
  return registerDynamicLanguages().failed.get(name);
}

export function supportsSyntaxTree(id: LanguageId): boolean {
  return astGrepLanguageFor(id) !== undefined;
}

/** Language ids with a syntax tree parser available in this process. */
export function listSupportedLanguages(): LanguageId[] {
  return LANGUAGES.filter((id) => supportsSyntaxTree(id));
}

/**
 * A language id from what a caller typed: an id ("python"), any case, or a file extension
 * ("py", ".rs"). Undefined when nothing matches.
 */
export function languageIdFromName(name: string): LanguageId | undefined {
  const key = normalizeId(name).replace(/^\./, "");
  if ((LANGUAGES as readonly string[]).includes(key)) return key;
  if (key.length === 0 || /[\\/]/.test(key)) return undefined;
  return languageFromPath(`file.${key}`) ?? undefined;
}

/**
 * The character ast-grep puts in place of "$" before parsing a pattern of this language ("$" for
 * languages whose identifiers may contain it). Undefined without syntax tree support.
 */
export function patternExpandoFor(id: LanguageId): string | undefined {
  const language = astGrepLanguageFor(id);
  if (language === undefined) return undefined;
  if (Object.hasOwn(BUILTIN, normalizeId(id))) return "$";
  return registerDynamicLanguages().expando.get(language);
}

export interface SyntaxErrorLocation {
  /** 1-based line and column (UTF-16 code units) where the error starts. */
  line: number;
  column: number;
  endLine: number;
  /** The source text of an ERROR node (cut to a bounded length); "" for a missing token. */
  text: string;
  /** "error": text the parser could not fit; "missing": a token the parser had to assume. */
  kind: "error" | "missing";
  /** For a missing token: the token kind the parser expected, such as ")" or "identifier". */
  expected?: string;
}

export interface ParsedSource {
  root: SgRoot;
  /** Outermost ERROR nodes plus MISSING tokens outside them. */
  errorCount: number;
  /** Every counted error, in source order. */
  errors: SyntaxErrorLocation[];
}

/** A direct child of a tree's root: a top-level statement, declaration or comment. */
export interface TopLevelStatement {
  /** UTF-16 offsets into the parsed text, end exclusive. */
  start: number;
  end: number;
  /** 0-based lines of the first and last character. */
  startLine: number;
  endLine: number;
  kind: string;
  /** An import, or an export that names a module (`export … from "m"`): formatters may reorder these as a group. */
  namesModule: boolean;
}

/**
 * The root's direct children, read lazily: an edit needs only the few statements around it, and
 * each napi call on a file of hundreds of statements costs more than the search that avoids it.
 */
export interface TopLevelStatements {
  readonly length: number;
  at(index: number): TopLevelStatement;
}

export function topLevelStatements(root: SgRoot): TopLevelStatements {
  const nodes = root.root().children();
  const read = new Map<number, TopLevelStatement>();
  return {
    length: nodes.length,
    at(index) {
      const known = read.get(index);
      if (known) return known;
      const node = nodes[index];
      if (node === undefined) throw new RangeError(`no top-level statement ${index}`);
      const range = node.range();
      const kind = String(node.kind());
      const statement = {
        start: range.start.index,
        end: range.end.index,
        startLine: range.start.line,
        endLine: range.end.line,
        kind,
        namesModule: kind === "import_statement" || (kind === "export_statement" && node.field("source" as never) !== null),
      };
      read.set(index, statement);
      return statement;
    },
  };
}

/** `statement` moved `chars` characters and `lines` lines further into its text. */
export function shiftStatement(statement: TopLevelStatement, chars: number, lines: number): TopLevelStatement {
  return { ...statement, start: statement.start + chars, end: statement.end + chars, startLine: statement.startLine + lines, endLine: statement.endLine + lines };
}

/** A list of statements read out earlier, seen as TopLevelStatements. */
export function statementList(statements: readonly TopLevelStatement[]): TopLevelStatements {
  return {
    length: statements.length,
    at(index) {
      const statement = statements[index];
      if (statement === undefined) throw new RangeError(`no top-level statement ${index}`);
      return statement;
    },
  };
}

/**
 * Languages whose grammar decides where a top-level statement ends from the next token alone (ASI
 * included): a run of statements, taken with one statement on either side, parses the same apart
 * from its file as inside it. Callers add what a cut text cannot show (see parseStatementRun).
 */
const RUNS_PARSE_APART = new Set<LanguageId>(["typescript", "tsx", "javascript"]);

export function statementRunsParseApart(id: LanguageId): boolean {
  return RUNS_PARSE_APART.has(id);
}

/**
 * text[start, end), a run of whole top-level statements whose first line is `startLine` (0-based),
 * parsed on its own: the tree, and its statements at their offsets and lines in `text`. Undefined
 * when the run has syntax errors or the language no parser. The caller checks the statements
 * against the ones it cut the run from: only statements that come back the same prove the run
 * parsed as it does in its file.
 */
export function parseStatementRun(id: LanguageId, text: string, start: number, end: number, startLine: number): { root: SgRoot; statements: TopLevelStatement[] } | undefined {
  const parsed = parseSource(id, text.slice(start, end));
  if (!parsed || parsed.errorCount > 0) return undefined;
  const found = topLevelStatements(parsed.root);
  const statements: TopLevelStatement[] = [];
  for (let index = 0; index < found.length; index++) statements.push(shiftStatement(found.at(index), start, startLine));
  return { root: parsed.root, statements };
}

/** Whether two statements have the same kind and place. */
export function sameStatement(a: TopLevelStatement, b: TopLevelStatement | undefined): boolean {
  return b !== undefined && a.kind === b.kind && a.start === b.start && a.end === b.end;
}

/** The tree alone, without locating syntax errors; undefined when the language has no parser here. */
export function parseTree(id: LanguageId, text: string): SgRoot | undefined {
  const language = astGrepLanguageFor(id);
  return language === undefined ? undefined : napi().parse(language, text);
}

type Collector = (options?: { type: "minor" }) => void;
let collector: Collector | null | undefined;

/** The engine's collector, or null where it cannot be reached (then trees go on V8's own schedule). */
function gcFunction(): Collector | null {
  if (collector !== undefined) return collector;
  collector = null;
  try {
    const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
    if (bun !== undefined) collector = () => bun.gc(true);
    else {
      // --expose-gc set at run time exposes gc() to contexts created afterwards: one is made for it.
      // Loaded here, not at the top: most commands (the hook above all) never collect.
      (require("node:v8") as typeof import("node:v8")).setFlagsFromString("--expose-gc");
      const found: unknown = (require("node:vm") as typeof import("node:vm")).runInNewContext("typeof gc === 'function' ? gc : undefined");
      if (typeof found === "function") collector = found as Collector;
    }
  } catch (error) {
    log.debug("no garbage collector to call: syntax trees are freed on the engine's schedule", { error: String(error) });
  }
  return collector;
}

/**
 * Code that parses many files in a row: V8 does not see the native memory of syntax trees
 * (tens of times the source size), and a tree is freed only after two collections (the first
 * collects the node wrappers, whose finalizers release the root on a later turn of the event
 * loop; the second the root itself). Left to V8's schedule, hundreds of dead trees piled up
 * between collections and the allocator kept their memory. A TreeBudget counts parsed bytes and
 * asks for a collection each time LIMITS.intel.index.treeReleaseBytes of source have been parsed,
 * so dead trees never add up to much more than that.
 */
export class TreeBudget {
  #bytes = 0;
  /** Collections asked for so far. */
  collections = 0;

  constructor(private readonly limit: number = LIMITS.intel.index.treeReleaseBytes) {}

  /** Counts `bytes` of parsed source; collects when the budget is spent. */
  add(bytes: number): void {
    this.#bytes += bytes;
    if (this.#bytes < this.limit) return;
    this.#bytes = 0;
    if (collectGarbage()) this.collections++;
  }
}

/**
 * For code that parses in batches (run): frees the trees of a finished batch with two collections
 * and a turn of the event loop between them. Full collections free them all, but cost time in
 * proportion to the live heap (with a large index in the heap they made run half again slower
 * than the ast-grep CLI). So they are used while they cost at most `share` of the batch they
 * follow, and young-generation collections after that (they free most of a batch's trees in
 * milliseconds, as its wrappers die young).
 */
export class TreeRelease {
  #young = false;

  constructor(private readonly share: number) {}

  /** True once full collections proved too dear for this run. */
  get young(): boolean {
    return this.#young;
  }

  async after(batchMs: number): Promise<void> {
    const started = performance.now();
    if (await releaseTrees(this.#young) && performance.now() - started > batchMs * this.share) this.#young = true;
  }
}

/**
 * Frees dead syntax trees: a tree goes only after two collections with a turn of the event loop
 * between them (the first collects the node wrappers, whose finalizers release the root on a later
 * turn; the second the root itself). False where the engine lets no code ask for a collection.
 */
async function releaseTrees(young = false): Promise<boolean> {
  if (!collectGarbage(young)) return false;
  await new Promise<void>((resolve) => setImmediate(resolve));
  collectGarbage(young);
  return true;
}

let laterRelease: NodeJS.Timeout | undefined;
/** Releases run by releaseTreesLater so far (tests watch it). */
export const treeReleaseCounter = { runs: 0 };

/**
 * For work that leaves a batch of dead trees behind when it returns (a run): nothing makes V8
 * collect their small wrappers soon, so repeated runs piled their trees up (about 10 MB more
 * resident after each run over the Python corpus, freed only by a collection V8 had no reason to
 * start). Two collections shortly after, once the answer has gone out rather than while it is
 * awaited; calls meanwhile share one release.
 */
export function releaseTreesLater(): void {
  if (laterRelease !== undefined) return;
  laterRelease = setTimeout(() => {
    laterRelease = undefined;
    void releaseTrees().then((released) => {
      if (released) treeReleaseCounter.runs++;
    });
  }, LIMITS.intel.run.releaseDelayMs);
  laterRelease.unref?.();
}

/**
 * Runs a full garbage collection now, where the engine lets code ask for one (Node through a
 * run-time --expose-gc, Bun through Bun.gc); false where it cannot. For memory V8 does not see
 * or counts late: native syntax trees, and large typed arrays just replaced.
 * `young` asks Node for a collection of the young generation only: milliseconds rather than tens
 * of them with a large heap, and enough for trees whose wrappers never outlived a collection
 * (Bun collects fully).
 */
export function collectGarbage(young = false): boolean {
  const gc = gcFunction();
  if (gc === null) return false;
  if (young && (globalThis as { Bun?: unknown }).Bun === undefined) gc({ type: "minor" });
  else gc();
  return true;
}

/**
 * The tree alone, parsed on the libuv thread pool so several files parse at once (the code index
 * keeps a few in flight); undefined when the language has no parser here.
 */
export async function parseTreeAsync(id: LanguageId, text: string): Promise<SgRoot | undefined> {
  const language = astGrepLanguageFor(id);
  return language === undefined ? undefined : napi().parseAsync(language, text);
}

/** Parses `text` as language `id`; undefined when the language has no parser here. */
export function parseSource(id: LanguageId, text: string): ParsedSource | undefined {
  const language = astGrepLanguageFor(id);
  if (language === undefined) return undefined;
  return withErrors(napi().parse(language, text), text, language);
}

/** parseSource with the parse itself on the libuv thread pool (the write path formats meanwhile). */
export async function parseSourceAsync(id: LanguageId, text: string): Promise<ParsedSource | undefined> {
  const language = astGrepLanguageFor(id);
  if (language === undefined) return undefined;
  return withErrors(await napi().parseAsync(language, text), text, language);
}

function withErrors(root: SgRoot, text: string, language: string): ParsedSource {
  const errors = syntaxErrorsOf(root.root(), text, language);
  return { root, errorCount: errors.length, errors };
}

interface Span {
  start: number;
  end: number;
  location: SyntaxErrorLocation;
}

function spanOf(node: SgNode, text: string, kind: "error" | "missing", crLines: ReturnType<typeof loneCrLines>): Span {
  const range = node.range();
  const start = crLines?.(range.start.index) ?? range.start;
  const location: SyntaxErrorLocation = {
    line: start.line + 1,
    column: start.column + 1,
    endLine: (crLines?.(range.end.index) ?? range.end).line + 1,
    text: kind === "error" ? text.slice(range.start.index, Math.min(range.end.index, range.start.index + LIMITS.patch.maxErrorTextChars)) : "",
    kind,
  };
  if (kind === "missing") location.expected = String(node.kind());
  return { start: range.start.index, end: range.end.index, location };
}

/**
 * The syntax errors of a tree parsed from `text` as napi language `language`. Both kinds are
 * found natively: ERROR nodes by kind, MISSING tokens as empty leaves (napi has no isMissing)
 * that are not scanner tokens. Errors inside an ERROR node fold into it, so one broken region
 * counts once.
 */
function syntaxErrorsOf(root: SgNode, text: string, language: string): SyntaxErrorLocation[] {
  const spans: Span[] = [];
  const crLines = loneCrLines(text);
  const scannerTokens = SCANNER_TOKENS[language] ?? [];
  // One traversal for both kinds (each findAll walks the whole tree); in an empty text every node is empty.
  const rule: Rule = text.length > 0 ? { any: [{ kind: "ERROR" }, { regex: "^$" }] } : { kind: "ERROR" };
  for (const node of root.findAll({ rule })) {
    const kind = String(node.kind());
    if (kind === "ERROR") {
      spans.push(spanOf(node, text, "error", crLines));
      continue;
    }
    // Empty inner nodes hold only empty leaves.
    if (!node.isLeaf() || node.parent() === null) continue;
    if (node.isNamed() && scannerTokens.includes(kind)) continue;
    spans.push(spanOf(node, text, "missing", crLines));
  }
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const outermost: SyntaxErrorLocation[] = [];
  let covered: { start: number; end: number } | undefined;
  for (const span of spans) {
    if (covered && span.start >= covered.start && span.end <= covered.end) continue;
    outermost.push(span.location);
    if (span.location.kind === "error" && span.end > span.start) covered = { start: span.start, end: span.end };
  }
  return outermost;
}
