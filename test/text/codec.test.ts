import { describe, expect, test } from "bun:test";
import { ToolError } from "../../src/core/errors.ts";
import { adaptLineEndings, decodeForEdit, dominantEol, encodeLike, newFileDefaults } from "../../src/text/index.ts";

const utf8 = (text: string) => new Uint8Array(Buffer.from(text, "utf8"));
const withBom = (bom: number[], body: Buffer) => new Uint8Array(Buffer.concat([Buffer.from(bom), body]));
const utf16le = (text: string) => withBom([0xff, 0xfe], Buffer.from(text, "utf16le"));
const utf16be = (text: string) => withBom([0xfe, 0xff], Buffer.from(text, "utf16le").swap16());

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof ToolError) return error.code;
    throw error;
  }
  return undefined;
}

/** Decoding then re-encoding the unchanged text must give back the very same bytes. */
function expectRoundTrip(bytes: Uint8Array) {
  const decoded = decodeForEdit(bytes, "f.txt");
  expect(encodeLike(decoded.text, decoded).equals(bytes)).toBe(true);
  return decoded;
}

describe("decodeForEdit + encodeLike round trips", () => {
  test("CRLF keeps its line endings in the text", () => {
    const decoded = expectRoundTrip(utf8("one\r\ntwo\r\n"));
    expect(decoded.text).toBe("one\r\ntwo\r\n");
    expect(decoded).toMatchObject({ encoding: "utf-8", bom: false, eol: "\r\n", lineEnding: "crlf", finalNewline: true });
  });
  test("classic Mac CR", () => {
    expect(expectRoundTrip(utf8("a\rb\rc\r"))).toMatchObject({ eol: "\r", lineEnding: "cr", finalNewline: true });
  });
  test("mixed endings pick the dominant style and keep every byte", () => {
    const decoded = expectRoundTrip(utf8("a\r\nb\nc\r\nd\r\n"));
    expect(decoded).toMatchObject({ eol: "\r\n", lineEnding: "mixed" });
    expect(decoded.text).toBe("a\r\nb\nc\r\nd\r\n");
  });
  test("UTF-8 BOM is remembered and not part of the text", () => {
    const decoded = expectRoundTrip(withBom([0xef, 0xbb, 0xbf], Buffer.from("x = 1\n")));
    expect(decoded).toMatchObject({ encoding: "utf-8", bom: true, text: "x = 1\n" });
  });
  test("UTF-16LE and UTF-16BE with BOM, including an astral character", () => {
    const text = "héllo 🌍\r\nwörld\r\n";
    const le = expectRoundTrip(utf16le(text));
    expect(le).toMatchObject({ encoding: "utf-16le", bom: true, text, eol: "\r\n" });
    const be = expectRoundTrip(utf16be(text));
    expect(be).toMatchObject({ encoding: "utf-16be", bom: true, text });
  });
  test("tabs, no final newline, non-ASCII and astral characters", () => {
    const decoded = expectRoundTrip(utf8("\tfunction f() {\n\t\treturn '世界 𝒳 🎉';\n}"));
    expect(decoded).toMatchObject({ finalNewline: false, lineEnding: "lf", eol: "\n" });
  });
  test("an empty file and a file without any line break", () => {
    expect(expectRoundTrip(new Uint8Array())).toMatchObject({ text: "", lineEnding: "none", eol: "\n", finalNewline: false });
    expect(expectRoundTrip(utf8("single line"))).toMatchObject({ lineEnding: "none", eol: "\n" });
  });
  test("an edit in the middle leaves the bytes around it identical", () => {
    const original = withBom([0xef, 0xbb, 0xbf], Buffer.from("keep\r\nchange me\r\nkeep too 🌍\r\n"));
    const decoded = decodeForEdit(original, "f.txt");
    const edited = decoded.text.replace("change me", "changed");
    const bytes = encodeLike(edited, decoded);
    expect(bytes.subarray(0, 9).equals(Buffer.from(original.subarray(0, 9)))).toBe(true);
    expect(bytes.toString("utf8")).toBe("\ufeffkeep\r\nchanged\r\nkeep too 🌍\r\n");
  });
});

describe("decodeForEdit refusals", () => {
  test("NUL bytes without a UTF-16 BOM are binary, even far into the file", () => {
    expect(codeOf(() => decodeForEdit(new Uint8Array([0x41, 0x00, 0x42]), "b.bin"))).toBe("binary_file");
    const late = Buffer.concat([Buffer.alloc(20_000, 0x61), Buffer.from([0])]);
    expect(codeOf(() => decodeForEdit(new Uint8Array(late), "b.bin"))).toBe("binary_file");
  });
  test("invalid UTF-8 is unsupported_encoding with the offset", () => {
    try {
      decodeForEdit(new Uint8Array([0x61, 0x62, 0xff, 0x63]), "latin1.txt");
      throw new Error("expected a refusal");
    } catch (error) {
      expect(error).toBeInstanceOf(ToolError);
      const toolError = error as ToolError;
      expect(toolError.code).toBe("unsupported_encoding");
      expect(toolError.message).toContain("latin1.txt");
      expect(toolError.details).toMatchObject({ invalidAt: 2 });
    }
  });
  test("UTF-16 with an odd byte count or an unpaired surrogate is unsupported_encoding", () => {
    expect(codeOf(() => decodeForEdit(new Uint8Array([0xff, 0xfe, 0x41, 0x00, 0x42]), "odd.txt"))).toBe("unsupported_encoding");
    expect(codeOf(() => decodeForEdit(new Uint8Array([0xff, 0xfe, 0x00, 0xd8, 0x41, 0x00]), "lone.txt"))).toBe("unsupported_encoding");
    expect(codeOf(() => decodeForEdit(new Uint8Array([0xfe, 0xff, 0xd8, 0x00, 0x00, 0x41]), "lone.txt"))).toBe("unsupported_encoding");
  });
});

describe("encodeLike", () => {
  test("writes the BOM and byte order of the original", () => {
    expect([...encodeLike("A", { encoding: "utf-16le", bom: true })]).toEqual([0xff, 0xfe, 0x41, 0x00]);
    expect([...encodeLike("A", { encoding: "utf-16be", bom: true })]).toEqual([0xfe, 0xff, 0x00, 0x41]);
    expect([...encodeLike("A", { encoding: "utf-8", bom: true })]).toEqual([0xef, 0xbb, 0xbf, 0x41]);
    expect([...encodeLike("A", { encoding: "utf-8", bom: false })]).toEqual([0x41]);
  });
  test("refuses unpaired surrogates instead of substituting U+FFFD", () => {
    expect(codeOf(() => encodeLike("bad \ud800 text", { encoding: "utf-8", bom: false }))).toBe("invalid_input");
    expect(codeOf(() => encodeLike("bad \udc00", { encoding: "utf-16le", bom: true }))).toBe("invalid_input");
    expect(encodeLike("ok 🌍", { encoding: "utf-8", bom: false }).toString("utf8")).toBe("ok 🌍");
  });
});

describe("adaptLineEndings", () => {
  test("converts inserted LF and CRLF text to the file's style", () => {
    expect(adaptLineEndings("a\nb\r\nc\n", "\r\n")).toBe("a\r\nb\r\nc\r\n");
    expect(adaptLineEndings("a\r\nb\n", "\n")).toBe("a\nb\n");
    expect(adaptLineEndings("a\nb\r\n", "\r")).toBe("a\rb\r");
  });
  test("leaves text without line breaks and $ patterns alone", () => {
    expect(adaptLineEndings("price $& $1 $$", "\r\n")).toBe("price $& $1 $$");
  });
});

describe("dominantEol and newFileDefaults", () => {
  test("majority wins; a tie goes to the first style seen", () => {
    expect(dominantEol("a\nb\nc\r\n")).toBe("\n");
    expect(dominantEol("a\r\nb\nc\r\n")).toBe("\r\n");
    expect(dominantEol("a\rb\n")).toBe("\r");
    expect(dominantEol("none")).toBe("\n");
  });
  test("new files are UTF-8 without BOM, LF", () => {
    expect(newFileDefaults()).toEqual({ encoding: "utf-8", bom: false, eol: "\n" });
  });
});
