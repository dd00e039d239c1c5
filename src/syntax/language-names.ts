/**
 * The one authority on language identity: the LanguageId union, and languageOf, which decides a
 * file's language from the [languages].overrides, its name (extension or well-known name), then a
 * shebang. Every part of the product that asks "what language is this file" asks languageOf.
 */
import picomatch from "picomatch";

export const LANGUAGES = [
  "typescript",
  "tsx",
  "javascript",
  "python",
  "go",
  "rust",
  "java",
  "kotlin",
  "c",
  "cpp",
  "csharp",
  "ruby",
  "php",
  "swift",
  "scala",
  "lua",
  "bash",
  "elixir",
  "haskell",
  "dart",
  "sql",
  "json",
  "jsonc",
  "yaml",
  "toml",
  "markdown",
  "html",
  "css",
] as const;
export type LanguageId = (typeof LANGUAGES)[number];

export function isLanguage(value: string): value is LanguageId {
  return (LANGUAGES as readonly string[]).includes(value);
}

/** Structured data formats document_query can parse. */
export const DOCUMENT_LANGUAGES = ["json", "jsonc", "toml", "yaml"] as const;
export type DocumentLanguage = (typeof DOCUMENT_LANGUAGES)[number];

const BY_EXTENSION: Record<string, LanguageId> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascript",
  py: "python",
  pyi: "python",
  pyw: "python",
  go: "go",
  rs: "rust",
  java: "java",
  kt: "kotlin",
  kts: "kotlin",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  "c++": "cpp",
  hh: "cpp",
  hpp: "cpp",
  hxx: "cpp",
  "h++": "cpp",
  ipp: "cpp",
  cs: "csharp",
  rb: "ruby",
  rake: "ruby",
  gemspec: "ruby",
  php: "php",
  swift: "swift",
  scala: "scala",
  sc: "scala",
  lua: "lua",
  sh: "bash",
  bash: "bash",
  zsh: "bash",
  ex: "elixir",
  exs: "elixir",
  hs: "haskell",
  lhs: "haskell",
  dart: "dart",
  sql: "sql",
  json: "json",
  jsonc: "jsonc",
  "code-workspace": "jsonc",
  yaml: "yaml",
  yml: "yaml",
  toml: "toml",
  md: "markdown",
  markdown: "markdown",
  html: "html",
  htm: "html",
  css: "css",
};

/** Files whose name alone says the language (checked before the extension). */
const BY_FILE_NAME: Record<string, LanguageId> = {
  // These .json files are read by tools that accept comments and trailing commas.
  "tsconfig.json": "jsonc",
  "jsconfig.json": "jsonc",
  ".eslintrc.json": "jsonc",
  ".babelrc": "jsonc",
  ".swcrc": "jsonc",
  "devcontainer.json": "jsonc",
  ".devcontainer.json": "jsonc",
  rakefile: "ruby",
  gemfile: "ruby",
  "cargo.lock": "toml",
  "poetry.lock": "toml",
  pipfile: "toml",
  ".bashrc": "bash",
  ".bash_profile": "bash",
  ".profile": "bash",
  ".zshrc": "bash",
};

/** Interpreter names in a shebang (after any directory and `env` options). */
const BY_INTERPRETER: Array<[RegExp, LanguageId]> = [
  [/^(node|nodejs)$/, "javascript"],
  [/^(deno|bun|ts-node|tsx)$/, "typescript"],
  [/^python([0-9.]*)?$/, "python"],
  [/^(bash|sh|zsh|dash|ksh)$/, "bash"],
  [/^ruby([0-9.]*)?$/, "ruby"],
  [/^php([0-9.]*)?$/, "php"],
  [/^lua([0-9.]*)?$|^luajit$/, "lua"],
  [/^(elixir|iex)$/, "elixir"],
  [/^(runghc|runhaskell|stack)$/, "haskell"],
  [/^swift$/, "swift"],
  [/^(scala|amm)$/, "scala"],
  [/^dart$/, "dart"],
];

function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] ?? path;
}

/** Language from the file name only; null when nothing matches. */
export function languageFromPath(path: string): LanguageId | null {
  const name = baseName(path).toLowerCase();
  const named = Object.hasOwn(BY_FILE_NAME, name) ? BY_FILE_NAME[name] : undefined;
  if (named) return named;
  if (/^tsconfig\..+\.json$/.test(name) || /^jsconfig\..+\.json$/.test(name)) return "jsonc";
  const dot = name.lastIndexOf(".");
  if (dot === -1) return null;
  const extension = name.slice(dot + 1);
  return Object.hasOwn(BY_EXTENSION, extension) ? BY_EXTENSION[extension]! : null;
}

/** Language from a first line such as "#!/usr/bin/env -S deno run" or "#!/bin/bash -e"; null otherwise. */
export function languageFromShebang(firstLine: string): LanguageId | null {
  if (!firstLine.startsWith("#!")) return null;
  const words = firstLine.slice(2).trim().split(/\s+/).filter((word) => word.length > 0);
  let index = 0;
  if (words[0] !== undefined && baseName(words[0]) === "env") {
    index = 1;
    // Skip env's own options and VAR=value assignments to reach the interpreter.
    while (index < words.length && (words[index]!.startsWith("-") || words[index]!.includes("="))) index++;
  }
  const program = words[index];
  if (program === undefined) return null;
  const interpreter = baseName(program);
  for (const [pattern, language] of BY_INTERPRETER) {
    if (pattern.test(interpreter)) return language;
  }
  return null;
}

/** [languages].overrides compiled: glob → language, the first glob that matches wins. */
export class LanguageOverrides {
  readonly #rules: Array<{ match: (path: string) => boolean; language: LanguageId }> = [];

  constructor(overrides: Readonly<Record<string, string>>) {
    for (const [glob, language] of Object.entries(overrides)) {
      // The config schema admits known ids only; anything else names no language.
      if (!isLanguage(language)) continue;
      // As in .gitignore: a glob without "/" matches the file name at any depth.
      const matcher = picomatch(glob, { dot: true, basename: !glob.includes("/") });
      this.#rules.push({ match: (path: string) => matcher(path), language });
    }
  }

  /** The language an override gives this root-relative POSIX path; undefined when none matches. */
  match(relative: string): LanguageId | undefined {
    for (const rule of this.#rules) if (rule.match(relative)) return rule.language;
    return undefined;
  }
}

/** Compiled overrides per config table (a table is never mutated once loaded, so this only saves compiling it again). */
const compiled = new WeakMap<object, LanguageOverrides>();

function overridesOf(overrides: Readonly<Record<string, string>> | LanguageOverrides | undefined): LanguageOverrides | undefined {
  if (overrides === undefined || overrides instanceof LanguageOverrides) return overrides;
  let known = compiled.get(overrides);
  if (known === undefined) compiled.set(overrides, known = new LanguageOverrides(overrides));
  return known;
}

/**
 * A file's language: the overrides first (matched against `path`, relative to its root, POSIX),
 * then the file name, then a shebang on `firstLine` for extensionless scripts; undefined when
 * nothing tells. The index, run, the write path and file_capabilities all decide through this.
 */
export function languageOf(path: string, firstLine: string | undefined, overrides?: Readonly<Record<string, string>> | LanguageOverrides): LanguageId | undefined {
  return overridesOf(overrides)?.match(path) ?? languageFromPath(path) ?? (firstLine === undefined ? undefined : languageFromShebang(firstLine) ?? undefined);
}

export function isDocumentLanguage(language: LanguageId | null | undefined): language is DocumentLanguage {
  return language != null && (DOCUMENT_LANGUAGES as readonly string[]).includes(language);
}

export type FileKind = "source" | "document" | "text" | "binary";

/** Data and prose formats are documents; every other known language is source. */
export function kindOf(language: LanguageId | null | undefined, binary: boolean): FileKind {
  if (binary) return "binary";
  if (language == null) return "text";
  return isDocumentLanguage(language) || language === "markdown" ? "document" : "source";
}
