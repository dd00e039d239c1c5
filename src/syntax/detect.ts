/**
 * What the index decides from names and the first bytes of a file: built-in skips, language
 * (config overrides first, then file name, then shebang) and minified bundles.
 */
import { type LanguageId, LanguageOverrides, languageFromPath, languageOf } from "./language-names.ts";
import { supportsSyntaxTree } from "./grammars.ts";

/** Dependency, cache and VCS folders: skipped by name at any depth (nothing in them is a project's own source). */
const SKIPPED_DIRECTORY_NAMES: ReadonlySet<string> = new Set([
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
 * in a tree (the Go tree's `src/go/build` and `src/cmd/dist`, a `dist` module of a library), so
 * they are skipped only where a build tool puts its output: beside the manifest of a tool that
 * writes that folder (`target` beside Cargo.toml, `vendor` beside go.mod, `dist` beside
 * package.json), and every one of them at an index root. Anywhere else only `.gitignore` hides them.
 */
const OUTPUT_DIRECTORY_NAMES: ReadonlySet<string> = new Set(["vendor", "dist", "build", "target", "coverage"]);

const NO_OUTPUT: ReadonlySet<string> = new Set();

/** Project manifest → the output folders its build tool writes beside it. */
const OUTPUT_BESIDE_MANIFEST: ReadonlyMap<string, ReadonlySet<string>> = new Map<string, ReadonlySet<string>>([
  ["package.json", new Set(["dist", "build", "coverage"])],
  ["deno.json", new Set(["dist", "coverage"])],
  ["deno.jsonc", new Set(["dist", "coverage"])],
  ["go.mod", new Set(["vendor"])],
  ["Cargo.toml", new Set(["target"])],
  ["pom.xml", new Set(["target"])],
  ["build.sbt", new Set(["target"])],
  ["build.gradle", new Set(["build"])],
  ["build.gradle.kts", new Set(["build"])],
  ["settings.gradle", new Set(["build"])],
  ["settings.gradle.kts", new Set(["build"])],
  ["pyproject.toml", new Set(["build", "dist"])],
  ["setup.py", new Set(["build", "dist"])],
  ["setup.cfg", new Set(["build", "dist"])],
  ["composer.json", new Set(["vendor"])],
  ["Gemfile", new Set(["vendor"])],
  ["CMakeLists.txt", new Set(["build"])],
  ["pubspec.yaml", new Set(["build"])],
]);

/**
 * The output folder names skipped among the subfolders of one folder: every one at an index root,
 * else those of the manifests among `entryNames` (the folder's file names).
 */
export function outputDirectoryNames(entryNames: Iterable<string>, isIndexRoot: boolean): ReadonlySet<string> {
  if (isIndexRoot) return OUTPUT_DIRECTORY_NAMES;
  let found: Set<string> | undefined;
  for (const name of entryNames) {
    const output = OUTPUT_BESIDE_MANIFEST.get(name);
    if (!output) continue;
    found ??= new Set();
    for (const folder of output) found.add(folder);
  }
  return found ?? NO_OUTPUT;
}

/** The built-in skip for a subfolder `name`, given its parent's outputDirectoryNames. `.gitignore` is applied besides this. */
export function isSkippedDirectory(name: string, outputNames: ReadonlySet<string>): boolean {
  return SKIPPED_DIRECTORY_NAMES.has(name) || outputNames.has(name);
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
