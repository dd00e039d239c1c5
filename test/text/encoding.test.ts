import { describe, expect, test } from "bun:test";
import { decodeText, detectBom, findInvalidUtf8, looksBinary, utf8Length } from "../../src/text/index.ts";

const bytes = (...values: number[]) => new Uint8Array(values);
const utf16le = (text: string) => new Uint8Array(Buffer.from(text, "utf16le"));
const utf16be = (text: string) => {
  const le = Buffer.from(text, "utf16le");
  return new Uint8Array(le.swap16());
};

describe("detectBom", () => {
  test("recognizes the three byte-order marks and defaults to UTF-8", () => {
    expect(detectBom(bytes(0xef, 0xbb, 0xbf, 0x41))).toEqual({ encoding: "utf-8-bom", length: 3 });
    expect(detectBom(bytes(0xff, 0xfe, 0x41, 0))).toEqual({ encoding: "utf-16le", length: 2 });
    expect(detectBom(bytes(0xfe, 0xff, 0, 0x41))).toEqual({ encoding: "utf-16be", length: 2 });
    expect(detectBom(bytes(0x41, 0x42))).toEqual({ encoding: "utf-8", length: 0 });
    expect(detectBom(bytes(0xef, 0xbb))).toEqual({ encoding: "utf-8", length: 0 });
  });
});

describe("looksBinary", () => {
  test("a NUL byte anywhere means binary, however far into the file", () => {
    expect(looksBinary(bytes(0x41, 0x00, 0x42))).toBe(true);
    expect(looksBinary(new Uint8Array([...new TextEncoder().encode("x".repeat(100_000)), 0x00]))).toBe(true);
    expect(looksBinary(new TextEncoder().encode("plain text\n"))).toBe(false);
  });
  test("a UTF-16 BOM exempts the file from the NUL rule", () => {
    expect(looksBinary(bytes(0xff, 0xfe, 0x41, 0x00))).toBe(false);
    expect(looksBinary(bytes(0xfe, 0xff, 0x00, 0x41))).toBe(false);
  });
});

describe("decodeText", () => {
  test("refuses binary bytes as binary, with the first NUL's offset", () => {
    const decoded = decodeText(new Uint8Array([0x41, 0x42, 0x00, 0x43]));
    expect(decoded).toMatchObject({ ok: false, binary: true, invalidAt: 2 });
    expect(decodeText(new Uint8Array([0xc3, 0x28]))).toMatchObject({ ok: false, binary: false });
  });
  test("plain UTF-8", () => {
    expect(decodeText(new TextEncoder().encode("héllo ✓"))).toEqual({ ok: true, text: "héllo ✓", encoding: "utf-8", bom: false });
  });
  test("UTF-8 with BOM strips the BOM from the text", () => {
    expect(decodeText(bytes(0xef, 0xbb, 0xbf, 0x68, 0x69))).toEqual({ ok: true, text: "hi", encoding: "utf-8-bom", bom: true });
  });
  test("UTF-16LE and UTF-16BE by BOM", () => {
    const le = new Uint8Array([0xff, 0xfe, ...utf16le("añ😀")]);
    expect(decodeText(le)).toEqual({ ok: true, text: "añ😀", encoding: "utf-16le", bom: true });
    const be = new Uint8Array([0xfe, 0xff, ...utf16be("añ😀")]);
    expect(decodeText(be)).toEqual({ ok: true, text: "añ😀", encoding: "utf-16be", bom: true });
  });
  test("invalid UTF-8 is refused with the offset of the first bad byte", () => {
    const result = decodeText(bytes(0x61, 0x62, 0xff, 0x63));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.encoding).toBe("unknown");
    expect(result.invalidAt).toBe(2);
    expect(result.reason).toContain("byte 2");
  });
  test("the offset counts the BOM", () => {
    const result = decodeText(bytes(0xef, 0xbb, 0xbf, 0x61, 0xc3));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.invalidAt).toBe(4);
  });
  test("odd-length UTF-16 is refused", () => {
    const result = decodeText(bytes(0xff, 0xfe, 0x41, 0x00, 0x42));
    expect(result.ok).toBe(false);
  });
});

describe("findInvalidUtf8", () => {
  test("accepts valid multi-byte sequences", () => {
    expect(findInvalidUtf8(new TextEncoder().encode("aé€😀"))).toBe(-1);
  });
  test("rejects truncated, overlong, surrogate and out-of-range sequences", () => {
    expect(findInvalidUtf8(bytes(0x61, 0xe2, 0x82))).toBe(1); // truncated €
    expect(findInvalidUtf8(bytes(0xc0, 0xaf))).toBe(0); // overlong "/"
    expect(findInvalidUtf8(bytes(0xe0, 0x80, 0xaf))).toBe(0); // overlong 3-byte
    expect(findInvalidUtf8(bytes(0xed, 0xa0, 0x80))).toBe(0); // U+D800
    expect(findInvalidUtf8(bytes(0xf4, 0x90, 0x80, 0x80))).toBe(0); // > U+10FFFF
    expect(findInvalidUtf8(bytes(0x61, 0x80))).toBe(1); // stray continuation
  });
});

describe("utf8Length", () => {
  test("matches the encoder for every width", () => {
    for (const text of ["", "abc", "é", "€", "😀", "a😀b€é", "\ud800x"]) {
      expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
    }
  });
});
