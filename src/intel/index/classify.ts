/**
 * What the index makes of a file's bytes: binary, not valid text, no language with a parser here,
 * a minified bundle, or source text in a language. classifySource is pure, so the walk, a
 * single-file load and a later partial pass all decide the same way; readSourceFile reads one file
 * a caller asked for by path and says, as the tool error a model can act on, why it has no facts.
 */
import type { Stats } from "node:fs";
import { ToolError } from "../../core/errors.ts";
import { readBounded, resolvedTarget } from "../../policy/open.ts";
import type { ResolvedPath } from "../../policy/workspace.ts";
import { decodeText, hasFinalNewline, lineBreakCounts, looksBinary } from "../../text/index.ts";
import { firstLineOf, isParseable, type LanguageDetector, type LanguageId, looksMinified } from "../../syntax/index.ts";

export type SourceVerdict =
  | { kind: "source"; text: string; language: LanguageId }
  | { kind: "binary" }
  | { kind: "undecodable"; reason: string }
  | { kind: "no_parser"; language: string | undefined }
  | { kind: "minified" };

/**
 * Classifies a file at this root-relative path by its bytes: [languages].overrides and the name
 * decide its language, then the first line (a shebang). `checkMinified`: a bundle is a verdict of
 * its own (the walk leaves bundles out; a file asked for by path is parsed anyway).
 */
export function classifySource(bytes: Buffer, relative: string, detector: LanguageDetector, checkMinified: boolean): SourceVerdict {
  if (looksBinary(bytes)) return { kind: "binary" };
  const decoded = decodeText(bytes);
  if (!decoded.ok) return { kind: "undecodable", reason: decoded.reason };
  const text = decoded.text;
  const language = detector.fromName(relative) ?? detector.detect(relative, firstLineOf(text));
  if (!isParseable(language)) return { kind: "no_parser", language };
  if (checkMinified && looksMinified(text)) return { kind: "minified" };
  return { kind: "source", text, language };
}

/** Lines of a text as splitLines counts them: CR, LF and CRLF each end a line, and a final line break does not start another. */
export function lineCount(text: string): number {
  if (text.length === 0) return 0;
  let breaks = 0;
  for (const count of lineBreakCounts(text).values()) breaks += count;
  return breaks + (hasFinalNewline(text) ? 0 : 1);
}

/** A file asked for by path, read whole and classified; throws when it cannot have facts (the walk records a status instead). */
export async function readSourceFile(
  resolved: ResolvedPath,
  detector: LanguageDetector,
  limit: number,
): Promise<{ loaded: { bytes: Buffer; stats: Stats }; text: string; language: LanguageId }> {
  if (resolved.kind !== "file" || !resolved.exists) {
    throw new ToolError(resolved.exists ? "not_a_file" : "file_not_found", `${resolved.display} ${resolved.exists ? "is not a regular file" : "does not exist"}.`);
  }
  const loaded = await readBounded(resolvedTarget(resolved), limit);
  if (loaded === "gone") throw new ToolError("file_not_found", `${resolved.display} does not exist (it disappeared while being read).`);
  if (loaded === "too_large" || "skipped" in loaded) {
    throw new ToolError("file_too_large", `${resolved.display} is larger than ${limit} bytes, too large to parse for an outline.`, {
      hint: "Read it in line ranges with file_read (mode: \"text\").",
    });
  }
  const verdict = classifySource(loaded.bytes, resolved.relative, detector, false);
  if (verdict.kind === "binary") throw new ToolError("binary_file", `${resolved.display} looks binary.`);
  if (verdict.kind === "undecodable") throw new ToolError("unsupported_encoding", `${resolved.display} is not valid text: ${verdict.reason}.`);
  if (verdict.kind !== "source") {
    const detected = verdict.kind === "no_parser" ? verdict.language : undefined;
    throw new ToolError("invalid_input", `${resolved.display} has no language with a syntax tree parser here${detected === undefined ? "" : ` (detected ${detected})`}.`, {
      hint: "Read it with file_read (mode: \"text\"); [languages].overrides in the config can assign a language to a file pattern.",
    });
  }
  return { loaded, text: verdict.text, language: verdict.language };
}
