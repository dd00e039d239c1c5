/**
 * Text encoding detection and decoding over bytes already in memory (no I/O).
 * Only a BOM can announce UTF-16; everything else must be valid UTF-8 to count as text.
 */

export type TextEncodingName = "utf-8" | "utf-8-bom" | "utf-16le" | "utf-16be";
/** "unknown" means the bytes are not valid in any encoding we decode. */
export type DetectedEncoding = TextEncodingName | "unknown";

export interface BomInfo {
  encoding: TextEncodingName;
  /** Bytes the BOM occupies (0 when there is none). */
  length: number;
}

/** Which encoding the byte-order mark announces; plain UTF-8 when there is no BOM. */
export function detectBom(bytes: Uint8Array): BomInfo {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: "utf-8-bom", length: 3 };
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: "utf-16le", length: 2 };
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: "utf-16be", length: 2 };
  return { encoding: "utf-8", length: 0 };
}

/**
 * The product's one meaning of binary: a NUL byte anywhere in the bytes at hand (UTF-16 text is
 * full of NULs, so a UTF-16 BOM exempts the file). Anywhere, not in a first few kilobytes: every
 * caller holds the whole file and decodes all of it anyway (the search for a NUL is a memchr,
 * cheap beside the decoding), and a prefix rule made a file with a NUL past the prefix readable
 * and indexed as text while the write path refused it as binary.
 */
export function looksBinary(bytes: Uint8Array): boolean {
  const bom = detectBom(bytes);
  if (bom.encoding === "utf-16le" || bom.encoding === "utf-16be") return false;
  return bytes.indexOf(0) !== -1;
}

export type DecodeResult =
  | { ok: true; text: string; encoding: TextEncodingName; bom: boolean }
  | {
    ok: false;
    encoding: "unknown";
    bom: boolean;
    /** Refused as binary (see looksBinary) rather than for an invalid sequence. */
    binary: boolean;
    /** Byte offset of the first invalid sequence (of the first NUL when binary), when known. */
    invalidAt: number | null;
    reason: string;
  };

/**
 * The one bytes → text decoder: by the BOM (UTF-8 otherwise); binary bytes and invalid sequences
 * are refused, never replaced.
 */
export function decodeText(bytes: Uint8Array): DecodeResult {
  const bom = detectBom(bytes);
  if (looksBinary(bytes)) return { ok: false, encoding: "unknown", bom: bom.length > 0, binary: true, invalidAt: bytes.indexOf(0), reason: "it contains a NUL byte" };
  const body = bytes.subarray(bom.length);
  const label = bom.encoding === "utf-8-bom" ? "utf-8" : bom.encoding;
  try {
    const text = new TextDecoder(label, { fatal: true, ignoreBOM: true }).decode(body);
    return { ok: true, text, encoding: bom.encoding, bom: bom.length > 0 };
  } catch {
    if (label === "utf-8") {
      const offset = findInvalidUtf8(body);
      return {
        ok: false,
        encoding: "unknown",
        bom: bom.length > 0,
        binary: false,
        invalidAt: offset === -1 ? null : offset + bom.length,
        reason: offset === -1 ? "invalid UTF-8" : `invalid UTF-8 at byte ${offset + bom.length}`,
      };
    }
    return { ok: false, encoding: "unknown", bom: true, binary: false, invalidAt: null, reason: `invalid ${label.toUpperCase()} (odd length or unpaired surrogate)` };
  }
}

/** Offset of the first byte that starts an invalid UTF-8 sequence, or -1 when all is valid. */
export function findInvalidUtf8(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index]!;
    if (lead < 0x80) {
      index += 1;
      continue;
    }
    let needed: number;
    let min: number;
    let codePoint: number;
    if (lead >= 0xc2 && lead <= 0xdf) {
      needed = 1;
      min = 0x80;
      codePoint = lead & 0x1f;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      needed = 2;
      min = 0x800;
      codePoint = lead & 0x0f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      needed = 3;
      min = 0x10000;
      codePoint = lead & 0x07;
    } else {
      return index;
    }
    for (let offset = 1; offset <= needed; offset++) {
      const continuation = bytes[index + offset];
      if (continuation === undefined || (continuation & 0xc0) !== 0x80) return index;
      codePoint = (codePoint << 6) | (continuation & 0x3f);
    }
    // Overlong forms, UTF-16 surrogates and values past U+10FFFF are not UTF-8.
    if (codePoint < min || (codePoint >= 0xd800 && codePoint <= 0xdfff) || codePoint > 0x10ffff) return index;
    index += needed + 1;
  }
  return -1;
}

/** Bytes `text` occupies in UTF-8 (an unpaired surrogate counts as the 3 bytes of U+FFFD), without encoding it. */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, "utf8");
}
