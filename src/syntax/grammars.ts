/**
 * The grammars, and the one napi loader of the product: maps the language ids of
 * src/syntax/language-names.ts to ast-grep languages and loads the native parsers on first use.
 * Nothing else requires @ast-grep/napi: code that needs napi itself (run's findInFiles) asks napi().
 *
 * napi keeps only the FIRST registerDynamicLanguage call of a process (later calls are silently
 * ignored, as of 0.51.2), so the dynamic grammars cannot be added one by one: the first time any of
 * them is needed, every installed @ast-grep/lang-* package is registered in one call. Nothing else in
 * the process may call registerDynamicLanguage. A short-lived process that needs only a few grammars
 * (the editor hook needs bash) names them first with limitDynamicLanguages and pays for those alone.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { log } from "../core/log.ts";
import { isLanguage, languageFromPath, type LanguageId } from "./language-names.ts";

export type Napi = typeof import("@ast-grep/napi");

/** Built into napi: the value is the napi Lang name. */
const BUILTIN: Readonly<Record<string, string>> = {
  typescript: "TypeScript",
  tsx: "Tsx",
  // tree-sitter-javascript parses JSX, so .jsx files need no grammar of their own.
  javascript: "JavaScript",
  html: "Html",
  css: "Css",
};

/**
 * Named tokens the grammar's external scanner makes, per napi language (for the dynamic ones
 * taken from the package's src/grammar.json; a test keeps them in step). Only these may
 * legitimately be empty (markdown's block_continuation, an empty <script>'s raw_text), so an
 * empty leaf of any other kind is a token the parser had to assume: a MISSING node.
 */
export const SCANNER_TOKENS: Readonly<Record<string, readonly string[]>> = {
  JavaScript: ["html_comment", "jsx_text", "escape_sequence", "regex_pattern"],
  TypeScript: ["html_comment", "jsx_text", "escape_sequence", "regex_pattern"],
  Tsx: ["html_comment", "jsx_text", "escape_sequence", "regex_pattern"],
  Html: ["comment", "erroneous_end_tag_name", "raw_text"],
  Css: [],
  bash: [
    "extglob_pattern",
    "file_descriptor",
    "heredoc_body",
    "heredoc_content",
    "heredoc_end",
    "heredoc_start",
    "regex",
    "simple_heredoc_body",
    "test_operator",
    "variable_name",
    "word",
  ],
  cpp: ["raw_string_content", "raw_string_delimiter"],
  csharp: [
    "interpolation_brace",
    "interpolation_close_brace",
    "interpolation_end_quote",
    "interpolation_open_brace",
    "interpolation_quote",
    "interpolation_raw_start",
    "interpolation_regular_start",
    "interpolation_start",
    "interpolation_start_quote",
    "interpolation_string_content",
    "interpolation_verbatim_start",
    "raw_string_content",
    "raw_string_end",
    "raw_string_start",
    "string_content",
  ],
  elixir: ["quoted_content"],
  haskell: ["comment", "cpp", "error_sentinel", "haddock", "pragma", "quasiquote_body"],
  kotlin: ["multiline_comment", "safe_nav", "string_content"],
  lua: ["comment_content", "string_content"],
  markdown: [
    "atx_h1_marker",
    "atx_h2_marker",
    "atx_h3_marker",
    "atx_h4_marker",
    "atx_h5_marker",
    "atx_h6_marker",
    "block_continuation",
    "block_quote_marker",
    "fenced_code_block_delimiter",
    "minus_metadata",
    "plus_metadata",
    "setext_h1_underline",
    "setext_h2_underline",
  ],
  php: [
    "encapsed_string_chars",
    "encapsed_string_chars_after_variable",
    "encapsed_string_chars_after_variable_heredoc",
    "encapsed_string_chars_heredoc",
    "execution_string_chars",
    "execution_string_chars_after_variable",
    "heredoc_end",
    "heredoc_start",
    "nowdoc_string",
    "sentinel_error",
    "string_content",
  ],
  python: ["block", "comment", "escape_interpolation", "string_end", "string_start"],
  ruby: ["hash_key_symbol", "heredoc_beginning", "heredoc_content", "heredoc_end", "simple_symbol", "string_content"],
  rust: ["doc_comment", "float_literal", "inner_doc_comment_marker", "outer_doc_comment_marker", "raw_string_literal_content", "string_content"],
  scala: ["error_sentinel", "identifier"],
  sql: ["dollar_quote"],
  swift: ["catch_keyword", "default_keyword", "else", "multiline_comment", "raw_str_continuing_indicator", "raw_str_end_part", "raw_str_part", "where_keyword"],
  yaml: [
    "alias_name",
    "anchor_name",
    "boolean_scalar",
    "comment",
    "directive_name",
    "directive_parameter",
    "escape_sequence",
    "float_scalar",
    "integer_scalar",
    "null_scalar",
    "string_scalar",
    "tag",
    "tag_handle",
    "tag_prefix",
    "timestamp_scalar",
    "yaml_version",
  ],
};

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
  kotlin: { extensions: ["kt", "ktm", "kts"], languageSymbol: "tree_sitter_kotlin", expandoChar: "µ" },
  c: { extensions: ["c", "h"], languageSymbol: "tree_sitter_c", expandoChar: "_" },
  cpp: { extensions: ["cc", "hpp", "cpp", "hh", "cxx", "cu", "ino"], languageSymbol: "tree_sitter_cpp", expandoChar: "_" },
  csharp: { extensions: ["cs"], languageSymbol: "tree_sitter_c_sharp", expandoChar: "µ" },
  ruby: { extensions: ["rb", "rbw", "gemspec"], languageSymbol: "tree_sitter_ruby", expandoChar: "µ" },
  php: { extensions: ["php"], languageSymbol: "tree_sitter_php", expandoChar: "$" },
  swift: { extensions: ["swift"], languageSymbol: "tree_sitter_swift", expandoChar: "µ" },
  scala: { extensions: ["scala", "sc", "sbt"], languageSymbol: "tree_sitter_scala", expandoChar: "$" },
  lua: { extensions: ["lua"], languageSymbol: "tree_sitter_lua", expandoChar: "$" },
  bash: { extensions: ["bash", "bats", "cgi", "command", "env", "fcgi", "ksh", "sh", "tmux", "tool", "zsh"], languageSymbol: "tree_sitter_bash", expandoChar: "$" },
  elixir: { extensions: ["ex", "exs"], languageSymbol: "tree_sitter_elixir", expandoChar: "µ" },
  haskell: { extensions: ["hs"], languageSymbol: "tree_sitter_haskell", expandoChar: "µ" },
  dart: { extensions: ["dart"], languageSymbol: "tree_sitter_dart", expandoChar: "$" },
  sql: { extensions: ["sql"], languageSymbol: "tree_sitter_sql", expandoChar: "_" },
  json: { extensions: ["json"], languageSymbol: "tree_sitter_json", expandoChar: "$" },
  yaml: { extensions: ["yaml", "yml"], languageSymbol: "tree_sitter_yaml", expandoChar: "$" },
  toml: { extensions: ["toml"], languageSymbol: "tree_sitter_toml", expandoChar: "_" },
  markdown: { extensions: ["md"], languageSymbol: "tree_sitter_markdown", expandoChar: "$" },
};

/** Loaded from @ast-grep/lang-<package> (the package name is also the registered language name): each package's own id, and aliases. */
const DYNAMIC: Readonly<Record<string, string>> = {
  ...Object.fromEntries(Object.keys(PACKAGE_EXPORTS).map((name) => [name, name])),
  // Comments parse as tree-sitter-json extras; trailing commas show up as syntax errors.
  jsonc: "json",
};

const PREBUILD_PLATFORM: Readonly<Record<string, string>> = { darwin: "macOS", linux: "Linux", win32: "Windows" };
const PREBUILD_ARCH: Readonly<Record<string, string>> = { x64: "X64", arm64: "ARM64" };

/** Older packages whose entry point always names <package>/parser.so (their install step copies the prebuild there). */
const PARSER_AT_PACKAGE_ROOT: ReadonlySet<string> = new Set(["haskell", "toml"]);

/**
 * The parser library a lang package's entry point names: its prebuild for this platform, else a parser
 * built on install. Where no install step ran (the Claude Desktop bundle ships every platform's
 * prebuilds, scripts/build-mcpb.ts), an older package has no parser.so at its root: its prebuild then.
 */
function packageLibraryPath(name: string): string {
  const dir = path.dirname(require.resolve(`@ast-grep/lang-${name}/package.json`));
  const atRoot = path.join(dir, "parser.so");
  if (PARSER_AT_PACKAGE_ROOT.has(name) && existsSync(atRoot)) return atRoot;
  const platform = PREBUILD_PLATFORM[process.platform];
  const arch = PREBUILD_ARCH[process.arch];
  if (platform !== undefined && arch !== undefined) {
    const prebuild = path.join(dir, "prebuilds", `prebuild-${platform}-${arch}`, "parser.so");
    if (existsSync(prebuild)) return prebuild;
  }
  return atRoot;
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
/**
 * Process-wide by nature: napi keeps the first grammar registration of a process, so the module, what
 * it registered (`dynamic`) and the only dynamic packages it may register (`subset`, see
 * limitDynamicLanguages) are one per process.
 */
const napiProcess: { module?: Napi; dynamic?: DynamicState; subset?: ReadonlySet<string> } = {};

/** The napi module, required on first use (the only require of it in the product). */
export function napi(): Napi {
  napiProcess.module ??= require("@ast-grep/napi") as Napi;
  return napiProcess.module;
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

/** The registration of a package as this module computes it (name as in @ast-grep/lang-<name>); throws when its parser library is missing (also for tests and `ast-mcp doctor`). */
export function packageRegistration(name: string): LanguagePackage {
  const exported = PACKAGE_EXPORTS[name];
  if (exported === undefined) throw new Error("no registration is known for this package");
  const libraryPath = packageLibraryPath(name);
  // napi aborts the registration (or the process) on a library it cannot open, so check first.
  if (!existsSync(libraryPath)) throw new Error(`its parser library ${libraryPath} is missing`);
  return { ...exported, extensions: [...exported.extensions], libraryPath };
}

/**
 * Restricts this process to the dynamic grammars of these language ids (the others then report no
 * syntax tree support). For short-lived processes that know what they parse: the hook answers a
 * host within its time budget by loading one grammar instead of 22. Returns false, changing
 * nothing, once the grammars are registered (registration happens once per process).
 */
export function limitDynamicLanguages(ids: readonly string[]): boolean {
  if (napiProcess.dynamic) return false;
  napiProcess.subset = new Set(ids.map(normalizeId).filter((id) => Object.hasOwn(DYNAMIC, id)).map((id) => DYNAMIC[id]!));
  return true;
}

function registerDynamicLanguages(): DynamicState {
  if (napiProcess.dynamic) return napiProcess.dynamic;
  const state: DynamicState = { expando: new Map(), failed: new Map() };
  const registrations: Record<string, LanguagePackage> = {};
  for (const name of new Set(Object.values(DYNAMIC))) {
    if (napiProcess.subset && !napiProcess.subset.has(name)) continue;
    try {
      registrations[name] = packageRegistration(name);
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
  napiProcess.dynamic = state;
  return state;
}

function normalizeId(id: string): string {
  return id.trim().toLowerCase();
}

/**
 * The napi language name for a language id (a Lang name such as "TypeScript", or a registered
 * dynamic name such as "python"); registers the dynamic grammars on first use. Undefined when the
 * language has no syntax tree support here.
 */
export function astGrepLanguageFor(id: string): string | undefined {
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
export function syntaxTreeUnavailable(id: string): string | undefined {
  const key = normalizeId(id);
  if (!Object.hasOwn(DYNAMIC, key)) return undefined;
  const name = DYNAMIC[key]!;
  if (napiProcess.subset && !napiProcess.subset.has(name)) return undefined;
  return registerDynamicLanguages().failed.get(name);
}

export function supportsSyntaxTree(id: string): boolean {
  return astGrepLanguageFor(id) !== undefined;
}

/**
 * A language id from what a caller typed: an id ("python"), any case, or a file extension
 * ("py", ".rs"). Undefined when nothing matches.
 */
export function languageIdFromName(name: string): LanguageId | undefined {
  const key = normalizeId(name).replace(/^\./, "");
  if (isLanguage(key)) return key;
  if (key.length === 0 || /[\\/]/.test(key)) return undefined;
  return languageFromPath(`file.${key}`) ?? undefined;
}

/**
 * The character ast-grep puts in place of "$" before parsing a pattern of this language ("$" for
 * languages whose identifiers may contain it). Undefined without syntax tree support.
 */
export function patternExpandoFor(id: string): string | undefined {
  const language = astGrepLanguageFor(id);
  if (language === undefined) return undefined;
  if (Object.hasOwn(BUILTIN, normalizeId(id))) return "$";
  return registerDynamicLanguages().expando.get(language);
}

/** The scanner tokens of a napi language (see SCANNER_TOKENS). */
export function scannerTokensOf(language: string): readonly string[] {
  return SCANNER_TOKENS[language] ?? [];
}
