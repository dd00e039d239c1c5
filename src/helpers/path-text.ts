/**
 * Pure checks and conversions on path text. Nothing here touches the file system:
 * the policy layer decides with these before it makes any file system call.
 */
import { ToolError } from "../core/errors.ts";
import { LONE_SURROGATE } from "../text/index.ts";

/** Index of the first control character (C0, DEL or C1, NUL included), or -1 when there is none. */
export function findControlCharacter(text: string): number {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return index;
  }
  return -1;
}

/** Index of the first lone surrogate (half of a UTF-16 pair without its other half), or -1 when the text is well-formed. */
export function findLoneSurrogate(text: string): number {
  return text.search(LONE_SURROGATE);
}

/**
 * Refuses a path that is not well-formed Unicode: file names travel as UTF-8, where a lone surrogate
 * becomes U+FFFD, so several different inputs would name one file.
 */
export function assertWellFormedPath(input: string): void {
  const index = findLoneSurrogate(input);
  if (index < 0) return;
  throw new ToolError("invalid_path", `Path contains the lone surrogate ${describeCodePoint(input, index)} at offset ${index}; it is not well-formed Unicode.`, {
    hint: "Pass the path as well-formed Unicode (every surrogate in its pair); a lone surrogate cannot name a file.",
  });
}

/** "U+0000" style name of the character at `index`, for messages that must not print it raw. */
export function describeCodePoint(text: string, index: number): string {
  const code = text.codePointAt(index) ?? 0;
  return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * When `child` equals or lies under `parent` (both normalized absolute paths), the remainder
 * after `parent` without a leading separator ("" when equal); otherwise undefined.
 * Purely textual: "/a/bc" is not inside "/a/b".
 */
export function relativeInside(parent: string, child: string, separator: string): string | undefined {
  if (child === parent) return "";
  const prefix = parent.endsWith(separator) ? parent : parent + separator;
  return child.startsWith(prefix) ? child.slice(prefix.length) : undefined;
}

/** Splits a relative path into its non-empty segments. */
export function splitSegments(relative: string, separator: string): string[] {
  return relative.split(separator).filter((segment) => segment.length > 0);
}

/** Platform-separated relative path → POSIX form used for rule matching and output. */
export function toPosix(relative: string, separator: string): string {
  return separator === "/" ? relative : relative.split(separator).join("/");
}

/**
 * Rule paths as users write them: "./src/" and "src" mean the same thing.
 * Leading "./" and trailing "/" are dropped; "." alone means the root ("").
 */
export function normalizeRulePath(text: string): string {
  let result = text;
  while (result.startsWith("./")) result = result.slice(2);
  while (result.length > 1 && result.endsWith("/")) result = result.slice(0, -1);
  return result === "." ? "" : result;
}
