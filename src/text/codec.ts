/**
 * Byte fidelity for text edits: decode a file exactly as it is (encoding, BOM, its own line
 * endings), and encode an edited text back the same way, so every untouched byte stays identical.
 * Pure functions over bytes in memory.
 */
import { ToolError } from "../core/errors.ts";
import { decodeText } from "./encoding.ts";
import { hasFinalNewline, type LineBreak, type LineEnding, lineBreakCounts, lineEndingOf } from "./lines.ts";

export type EditEncoding = "utf-8" | "utf-16le" | "utf-16be";
/** A line terminator an edit writes (the same kinds a text can hold). */
export type Eol = LineBreak;

export interface DecodedFile {
  /** The text with its line endings untouched (never normalised). */
  text: string;
  encoding: EditEncoding;
  bom: boolean;
  /** The terminator inserted text gets: the file's style, the dominant one when mixed, "\n" when none. */
  eol: Eol;
  lineEnding: LineEnding;
  finalNewline: boolean;
}

/** Each encoding an edit writes back: its byte-order mark and its encoder. */
const ENCODERS: Readonly<Record<EditEncoding, { bom: Buffer; encode: (text: string) => Buffer }>> = {
  "utf-8": { bom: Buffer.from([0xef, 0xbb, 0xbf]), encode: (text) => Buffer.from(text, "utf8") },
  "utf-16le": { bom: Buffer.from([0xff, 0xfe]), encode: (text) => Buffer.from(text, "utf16le") },
  "utf-16be": { bom: Buffer.from([0xfe, 0xff]), encode: (text) => Buffer.from(text, "utf16le").swap16() },
};
const LINE_BREAK = /\r\n|\r|\n/g;
/** Half of a UTF-16 surrogate pair without its other half. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Decodes a file for editing. Refuses binary files (a NUL byte anywhere, unless a UTF-16 BOM
 * announces 16-bit text) and bytes that are not valid in their detected encoding: those files are
 * only ever handled byte-exactly, never re-encoded.
 */
export function decodeForEdit(bytes: Uint8Array, displayPath: string): DecodedFile {
  const decoded = decodeText(bytes);
  if (!decoded.ok && decoded.binary) {
    throw new ToolError("binary_file", `${displayPath} looks binary (it contains a NUL byte); it cannot be edited as text.`);
  }
  if (!decoded.ok) {
    throw new ToolError("unsupported_encoding", `${displayPath} cannot be edited as text: ${decoded.reason}.`, {
      details: { invalidAt: decoded.invalidAt, reason: decoded.reason },
    });
  }
  const encoding: EditEncoding = decoded.encoding === "utf-8-bom" ? "utf-8" : decoded.encoding;
  const breaks = lineBreakCounts(decoded.text);
  const file: DecodedFile = {
    text: decoded.text,
    encoding,
    bom: decoded.bom,
    eol: dominantOf(breaks),
    lineEnding: lineEndingOf(breaks),
    finalNewline: hasFinalNewline(decoded.text),
  };
  // Belt and braces: an edit is only offered when re-encoding the unchanged text reproduces the bytes.
  if (!encodeLike(file.text, file).equals(bytes)) {
    throw new ToolError("unsupported_encoding", `${displayPath} does not round-trip through ${encoding}; it is only handled byte-exactly.`, {
      details: { reason: "re-encoding the decoded text changes its bytes" },
    });
  }
  return file;
}

/** Encodes text in the given encoding, with a BOM when the original had one. */
export function encodeLike(text: string, like: Pick<DecodedFile, "encoding" | "bom">): Buffer {
  // An unpaired surrogate has no encoding; Buffer would silently substitute U+FFFD.
  if (LONE_SURROGATE.test(text)) {
    throw new ToolError("invalid_input", "The text contains an unpaired UTF-16 surrogate, which cannot be encoded; send well-formed Unicode.");
  }
  const encoder = ENCODERS[like.encoding];
  const body = encoder.encode(text);
  return like.bom ? Buffer.concat([encoder.bom, body]) : body;
}

/** Converts every line break of inserted text ("\n", "\r\n" or a lone "\r") to the file's style. */
export function adaptLineEndings(inserted: string, eol: Eol): string {
  return inserted.replace(LINE_BREAK, () => eol);
}

export function newFileDefaults(): Pick<DecodedFile, "encoding" | "bom" | "eol"> {
  return { encoding: "utf-8", bom: false, eol: "\n" };
}

/** The most frequent line terminator; a tie goes to the one that occurs first; "\n" without any. */
export function dominantEol(text: string): Eol {
  return dominantOf(lineBreakCounts(text));
}

function dominantOf(counts: ReadonlyMap<LineBreak, number>): Eol {
  let best: Eol = "\n";
  let bestCount = 0;
  // Map iteration follows first occurrence, so a strict ">" keeps the earlier style on a tie.
  for (const [eol, count] of counts) {
    if (count > bestCount) {
      best = eol;
      bestCount = count;
    }
  }
  return best;
}
