/**
 * How specific a glob is for one path it matches: the length of its literal prefix.
 * A leading "**\/" counts the directory prefix it consumed in that path as literal, so
 * "**\/.env" matching "src/.env" is exactly as specific as "src/.env" and beats "src/**".
 */

/** Characters that start glob syntax in picomatch patterns. */
const GLOB_SYNTAX = /[*?[\]{}()!+@\\]/;

/** Characters before the first glob character (the whole pattern when it has none). */
export function literalPrefixLength(pattern: string): number {
  const match = GLOB_SYNTAX.exec(pattern);
  return match ? match.index : pattern.length;
}

/**
 * Specificity of `pattern` for `path` (POSIX, relative), assuming `pattern` matches it.
 * `matches(pattern, path)` is the caller's matcher, so this stays free of any glob engine.
 */
export function globSpecificity(pattern: string, path: string, matches: (pattern: string, path: string) => boolean): number {
  if (!pattern.startsWith("**/")) return literalPrefixLength(pattern);
  const tailPattern = pattern.slice(3);
  const segments = path.split("/");
  // The deepest split wins: it is the reading under which the most of the path is literal.
  for (let consumed = segments.length - 1; consumed >= 0; consumed -= 1) {
    const tail = segments.slice(consumed).join("/");
    if (!matches(tailPattern, tail)) continue;
    const prefixLength = consumed === 0 ? 0 : segments.slice(0, consumed).join("/").length + 1;
    return prefixLength + globSpecificity(tailPattern, tail, matches);
  }
  return 0;
}
