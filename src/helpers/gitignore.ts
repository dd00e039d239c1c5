/**
 * A .gitignore matcher (pure; the caller reads the files). Supports what git documents for
 * pattern files: comments, escaped "#"/"!"/trailing spaces, negation, directory-only patterns
 * (trailing "/"), anchored patterns (a "/" at the start or in the middle), "*", "?", "[...]"
 * classes and the "**" forms ("**\/x", "x/**", "a/**\/b").
 *
 * Precedence follows git: within one file the last matching pattern decides; a file deeper in
 * the tree overrides the ones above it. A directory that is ignored is never entered, so its
 * contents cannot be re-included (the walker enforces that by not descending).
 */

export interface IgnoreRule {
  /** The pattern as written (for diagnostics). */
  source: string;
  negated: boolean;
  directoryOnly: boolean;
  regex: RegExp;
}

export interface IgnoreFile {
  /** The directory the file applies to, relative to the walk's root ("" for the root), POSIX separators. */
  base: string;
  rules: IgnoreRule[];
}

/** Parses the text of one ignore file whose directory is `base` (relative, POSIX, "" for the root). */
export function parseIgnoreFile(text: string, base: string): IgnoreFile {
  const rules: IgnoreRule[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    const rule = parseLine(rawLine);
    if (rule) rules.push(rule);
  }
  return { base: trimSlashes(base), rules };
}

function trimSlashes(path: string): string {
  return path.replace(/^\/+|\/+$/g, "");
}

function parseLine(rawLine: string): IgnoreRule | undefined {
  let line = stripTrailingSpaces(rawLine);
  if (line === "" || line.startsWith("#")) return undefined;
  let negated = false;
  if (line.startsWith("!")) {
    negated = true;
    line = line.slice(1);
  } else if (line.startsWith("\\!") || line.startsWith("\\#")) {
    line = line.slice(1);
  }
  let directoryOnly = false;
  if (line.endsWith("/") && !line.endsWith("\\/")) {
    directoryOnly = true;
    line = line.replace(/\/+$/, "");
  }
  if (line === "") return undefined;
  // A slash anywhere but at the end anchors the pattern to the file's directory.
  const anchored = line.includes("/");
  if (line.startsWith("/")) line = line.slice(1);
  const body = translate(line);
  if (body === undefined) return undefined;
  const prefix = anchored ? "^" : "^(?:.*/)?";
  return { source: rawLine.trim(), negated, directoryOnly, regex: new RegExp(`${prefix}${body}$`, "u") };
}

/** Trailing spaces are dropped unless escaped with a backslash. */
function stripTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && (line[end - 1] === " " || line[end - 1] === "\t" || line[end - 1] === "\r")) {
    if (line[end - 1] === " " && end >= 2 && line[end - 2] === "\\") break;
    end -= 1;
  }
  return line.slice(0, end);
}

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\/]/;

function escapeChar(char: string): string {
  return REGEX_SPECIAL.test(char) ? `\\${char}` : char;
}

/** The regex body for a glob; undefined when the pattern cannot match anything (an unclosed escape). */
function translate(glob: string): string | undefined {
  let out = "";
  let index = 0;
  while (index < glob.length) {
    const char = glob[index]!;
    if (char === "*") {
      if (glob[index + 1] === "*") {
        const atStart = index === 0 || glob[index - 1] === "/";
        const atEnd = index + 2 === glob.length || glob[index + 2] === "/";
        if (atStart && atEnd) {
          if (index + 2 === glob.length) {
            // "x/**": everything inside; a bare "**": everything.
            out += ".*";
            index += 2;
          } else {
            // "**/" (leading or between segments): zero or more directories.
            out += "(?:.*/)?";
            index += 3;
          }
          continue;
        }
        // "**" inside a segment is an ordinary star.
        out += "[^/]*";
        index += 2;
        while (glob[index] === "*") index += 1;
        continue;
      }
      out += "[^/]*";
      index += 1;
      continue;
    }
    if (char === "?") {
      out += "[^/]";
      index += 1;
      continue;
    }
    if (char === "\\") {
      const next = glob[index + 1];
      if (next === undefined) return undefined;
      out += escapeChar(next);
      index += 2;
      continue;
    }
    if (char === "[") {
      const parsed = characterClass(glob, index);
      if (parsed) {
        out += parsed.regex;
        index = parsed.end;
        continue;
      }
      out += "\\[";
      index += 1;
      continue;
    }
    out += escapeChar(char);
    index += 1;
  }
  return out;
}

/** "[abc]", "[!a-z]", "[^0-9]", "[]x]": the class and the index after it; undefined when unclosed. */
function characterClass(glob: string, start: number): { regex: string; end: number } | undefined {
  let index = start + 1;
  let negate = false;
  if (glob[index] === "!" || glob[index] === "^") {
    negate = true;
    index += 1;
  }
  let body = "";
  let first = true;
  while (index < glob.length) {
    const char = glob[index]!;
    if (char === "]" && !first) {
      // A class never matches "/", as in git's wildmatch with pathname matching.
      return { regex: negate ? `[^/${body}]` : `(?!/)[${body}]`, end: index + 1 };
    }
    first = false;
    if (char === "\\" && index + 1 < glob.length) {
      const escaped = glob[index + 1]!;
      // Unicode-mode regexes reject needless escapes, so only class syntax is escaped.
      body += /[\]\\^\-[]/.test(escaped) ? `\\${escaped}` : escaped;
      index += 2;
      continue;
    }
    body += char === "]" || char === "[" || char === "^" ? `\\${char}` : char;
    index += 1;
  }
  return undefined;
}

/**
 * Whether `relative` (POSIX, relative to the walk's root) is ignored by `files`, given in order from
 * the root down. Only files whose base contains the path apply. Undefined when no rule matched.
 */
export function ignoredBy(files: readonly IgnoreFile[], relative: string, isDirectory: boolean): boolean | undefined {
  let verdict: boolean | undefined;
  for (const file of files) {
    let local: string;
    if (file.base === "") local = relative;
    else if (relative.startsWith(`${file.base}/`)) local = relative.slice(file.base.length + 1);
    else continue;
    for (const rule of file.rules) {
      if (rule.directoryOnly && !isDirectory) continue;
      if (rule.regex.test(local)) verdict = !rule.negated;
    }
  }
  return verdict;
}

/** True when the path is ignored (no matching rule means not ignored). */
export function isIgnored(files: readonly IgnoreFile[], relative: string, isDirectory: boolean): boolean {
  return ignoredBy(files, relative, isDirectory) === true;
}
