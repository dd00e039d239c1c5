/**
 * What the index decides from names and the first bytes of a file: built-in skips, language
 * (config overrides first, then file name, then shebang) and minified bundles.
 */
import { type LanguageId, LanguageOverrides, languageFromPath, languageOf } from "./language-names.ts";
import { supportsSyntaxTree } from "./grammars.ts";

/** Dependency, cache and VCS folders: skipped by name at any depth (nothing in them is a project's own source). */
export const SKIPPED_DIRECTORY_NAMES: ReadonlySet<string> = new Set([
  "node_modules",
  "bower_components",
  "jspm_packages",
  ".git",
  ".hg",
  ".svn",
  ".jj",
  ".next",
  ".nuxt",
  ".svelte-kit",
  ".turbo",
  ".parcel-cache",
  ".cache",
  ".gradle",
  "__pycache__",
  ".venv",
  "venv",
  ".tox",
  ".nox",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
  "site-packages",
]);

/**
 * Build-output and vendored-dependency folders. These names are also ordinary package names deeper
 * in a tree (the Go tree's `src/go/build`, a `dist` module of a library), so they are skipped only
 * where build tools put their output: beside a project manifest, or at an index root. Anywhere
 * else only `.gitignore` hides them.
 */
export const OUTPUT_DIRECTORY_NAMES: ReadonlySet<string> = new Set(["vendor", "dist", "build", "target", "coverage"]);

/** Files whose folder is a project root: the build tools that write the output folders above read one of these. */
const PROJECT_MANIFESTS: ReadonlySet<string> = new Set([
  "package.json",
  "go.mod",
  "go.work",
  "Cargo.toml",
  "pyproject.toml",
  "setup.py",
  "setup.cfg",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "settings.gradle",
  "settings.gradle.kts",
  "build.sbt",
  "composer.json",
  "Gemfile",
  "mix.exs",
  "Package.swift",
  "CMakeLists.txt",
  "pubspec.yaml",
  "deno.json",
  "deno.jsonc",
]);

/** Whether a folder whose entries have these names is a project root (holds a project manifest). */
export function holdsProjectManifest(entryNames: Iterable<string>): boolean {
  for (const name of entryNames) if (PROJECT_MANIFESTS.has(name)) return true;
  return false;
}

/**
 * The built-in skip for a subfolder named `name` of a folder that is (or is not) a project root
 * (an index root, or a folder holding a project manifest). `.gitignore` is applied besides this.
 */
export function isSkippedDirectory(name: string, parentIsProjectRoot: boolean): boolean {
  return SKIPPED_DIRECTORY_NAMES.has(name) || (parentIsProjectRoot && OUTPUT_DIRECTORY_NAMES.has(name));
}

/** Names that mark minified or bundled output. */
const MINIFIED_NAME = /[.-]min\.(?:js|mjs|cjs|css)$|\.bundle\.js$/i;

export function isMinifiedName(name: string): boolean {
  return MINIFIED_NAME.test(name);
}

/** The heuristic's tuning: the head of a file examined, and the line length that counts as minified. */
export const MINIFIED_DEFAULTS = { sniffChars: 64 * 1024, lineChars: 1000 } as const;

/**
 * True when most of the head of `text` sits in very long lines: minified or generated code whose
 * outline would be noise. One long line (a data literal) in an ordinary file does not count.
 */
export function looksMinified(text: string, tuning: { sniffChars: number; lineChars: number } = MINIFIED_DEFAULTS): boolean {
  const head = text.length > tuning.sniffChars ? text.slice(0, tuning.sniffChars) : text;
  if (head.length < tuning.lineChars) return false;
  let inLongLines = 0;
  let start = 0;
  while (start < head.length) {
    let end = head.indexOf("\n", start);
    if (end === -1) end = head.length;
    if (end - start >= tuning.lineChars) inLongLines += end - start;
    start = end + 1;
  }
  return inLongLines * 2 > head.length;
}

/** languageOf with one set of [languages].overrides compiled once (the index asks it for every file). */
export class LanguageDetector extends LanguageOverrides {
  /** A language from the overrides or the file name alone; undefined when only content could tell. */
  fromName(relative: string): LanguageId | undefined {
    return this.match(relative) ?? languageFromPath(relative) ?? undefined;
  }

  /** The language by overrides, name, then shebang; undefined when nothing matches. */
  detect(relative: string, firstLine: string | undefined): LanguageId | undefined {
    return languageOf(relative, firstLine, this);
  }
}

/** Whether a file name has an extension (a file without one may still be a script with a shebang). */
export function hasExtension(name: string): boolean {
  const dot = name.lastIndexOf(".");
  return dot > 0 && dot < name.length - 1;
}

export function isParseable(language: LanguageId | undefined): language is LanguageId {
  return language !== undefined && supportsSyntaxTree(language);
}

/** The first line of a text (up to the first line break). */
export function firstLineOf(text: string): string {
  const end = text.search(/\r|\n/);
  return end === -1 ? text : text.slice(0, end);
}
