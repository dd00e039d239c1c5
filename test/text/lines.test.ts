import { describe, expect, test } from "bun:test";
import {
  detectLineEnding,
  hasFinalNewline,
  lineBreakCounts,
  lineColumnAt,
  lineIndexAt,
  lineStartBefore,
  lineStarts,
  type LineWindowRequest,
  prefixWithin,
  splitLines,
  takeLineWindow,
  usesTabIndentation,
} from "../../src/text/index.ts";

describe("detectLineEnding", () => {
  test("each kind, mixed and none", () => {
    expect(detectLineEnding("a\nb\n")).toBe("lf");
    expect(detectLineEnding("a\r\nb\r\n")).toBe("crlf");
    expect(detectLineEnding("a\rb\r")).toBe("cr");
    expect(detectLineEnding("a\r\nb\n")).toBe("mixed");
    expect(detectLineEnding("a\rb\n")).toBe("mixed");
    expect(detectLineEnding("single line")).toBe("none");
    expect(detectLineEnding("")).toBe("none");
  });
});

describe("lineBreakCounts", () => {
  test("counts each kind in the order it first occurs, with and without carriage returns", () => {
    expect([...lineBreakCounts("a\nb\nc")]).toEqual([["\n", 2]]);
    expect([...lineBreakCounts("a\r\nb\nc\r\n\rd")]).toEqual([["\r\n", 2], ["\n", 1], ["\r", 1]]);
    expect([...lineBreakCounts("\n\r")]).toEqual([["\n", 1], ["\r", 1]]);
    expect(lineBreakCounts("no breaks").size).toBe(0);
  });
});

describe("splitLines", () => {
  test("a final terminator ends the last line instead of starting another", () => {
    expect(splitLines("a\nb\n")).toEqual(["a", "b"]);
    expect(splitLines("a\nb")).toEqual(["a", "b"]);
    expect(splitLines("a\r\nb\rc\n")).toEqual(["a", "b", "c"]);
    expect(splitLines("")).toEqual([]);
    expect(splitLines("\n")).toEqual([""]);
    expect(splitLines("\n\n")).toEqual(["", ""]);
  });
});

describe("hasFinalNewline / usesTabIndentation", () => {
  test("final newline", () => {
    expect(hasFinalNewline("a\n")).toBe(true);
    expect(hasFinalNewline("a\r")).toBe(true);
    expect(hasFinalNewline("a")).toBe(false);
    expect(hasFinalNewline("")).toBe(false);
  });
  test("tabs only count in leading whitespace", () => {
    expect(usesTabIndentation("x\n\tindented\n")).toBe(true);
    expect(usesTabIndentation("x\n  \tmixed\n")).toBe(true);
    expect(usesTabIndentation("a\tb\n  spaces\n")).toBe(false);
  });
});

describe("lineColumnAt", () => {
  test("1-based line and column across every terminator", () => {
    expect(lineColumnAt("abc", 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumnAt("ab\ncd", 4)).toEqual({ line: 2, column: 2 });
    expect(lineColumnAt("ab\r\ncd", 5)).toEqual({ line: 2, column: 2 });
    expect(lineColumnAt("a\rb\nc", 4)).toEqual({ line: 3, column: 1 });
  });
});

describe("prefixWithin", () => {
  test("respects bytes and characters and never splits a surrogate pair", () => {
    expect(prefixWithin("abcdef", 3, 100)).toBe(3);
    expect(prefixWithin("abcdef", 100, 2)).toBe(2);
    expect(prefixWithin("éé", 3, 100)).toBe(1);
    expect(prefixWithin("a😀b", 4, 100)).toBe(1);
    expect(prefixWithin("a😀b", 5, 100)).toBe(3);
    expect(prefixWithin("a😀b", 100, 2)).toBe(1);
  });
});

describe("takeLineWindow", () => {
  const lines = ["one", "two", "three", "four", "five"];
  const base: LineWindowRequest = { startLine: 1, endLine: 5, maxBytes: 1000, maxChars: 1000, perLineOverhead: 0, cutFirstLineAtOutputLimit: true };

  test("returns the whole requested range when budgets allow", () => {
    const window = takeLineWindow(lines, { ...base, startLine: 2, endLine: 4 });
    expect(window).toMatchObject({ lines: ["two", "three", "four"], endLine: 4, limitedBy: null, cutLine: null });
  });
  test("stops at the last whole line within maxBytes, counting separators", () => {
    // "one\ntwo" is 7 bytes; adding "\nthree" makes 13.
    const window = takeLineWindow(lines, { ...base, maxBytes: 12 });
    expect(window).toMatchObject({ lines: ["one", "two"], endLine: 2, limitedBy: "maxBytes" });
  });
  test("stops at the character budget including per-line overhead", () => {
    const window = takeLineWindow(lines, { ...base, maxChars: 20, perLineOverhead: 5 });
    expect(window.lines).toEqual(["one", "two"]);
    expect(window.limitedBy).toBe("outputLimit");
    expect(window.charsUsed).toBe(16);
  });
  test("cuts a first line that alone exceeds maxBytes", () => {
    const window = takeLineWindow(["x".repeat(100), "next"], { ...base, endLine: 2, maxBytes: 10 });
    expect(window.lines).toEqual(["x".repeat(10)]);
    expect(window.endLine).toBe(1);
    expect(window.cutLine).toEqual({ line: 1, keptChars: 10, totalChars: 100 });
    expect(window.limitedBy).toBe("maxBytes");
  });
  test("does not cut the first line at the output limit unless allowed", () => {
    const request = { ...base, endLine: 2, maxChars: 10, cutFirstLineAtOutputLimit: false };
    const refused = takeLineWindow(["x".repeat(100), "next"], request);
    expect(refused).toMatchObject({ lines: [], endLine: 0, limitedBy: "outputLimit", cutLine: null });
    const cut = takeLineWindow(["x".repeat(100), "next"], { ...request, cutFirstLineAtOutputLimit: true });
    expect(cut.lines).toEqual(["x".repeat(10)]);
    expect(cut.limitedBy).toBe("outputLimit");
  });
  test("an empty range returns nothing", () => {
    expect(takeLineWindow([], { ...base, endLine: 0 })).toMatchObject({ lines: [], endLine: 0, limitedBy: null });
  });
});

describe("lineStarts", () => {
  test("LF, CRLF and a lone CR each end a line; a final terminator leaves text.length as the last start", () => {
    expect(lineStarts("")).toEqual([0]);
    expect(lineStarts("a\nb")).toEqual([0, 2]);
    expect(lineStarts("a\r\nb\r\n")).toEqual([0, 3, 6]);
    expect(lineStarts("a\rb\rc")).toEqual([0, 2, 4]);
    expect(lineStarts("a\r\n\rb\nc")).toEqual([0, 3, 4, 6]);
  });
  test("agrees with splitLines on every mix of terminators", () => {
    for (const text of ["x\ry\r", "x\r\ny\nz", "\r\r\n\n", "one"]) {
      const starts = lineStarts(text);
      const lines = splitLines(text);
      const sliced = lines.map((_, index) => text.slice(starts[index], starts[index + 1] ?? text.length).replace(/(\r\n|\r|\n)$/, ""));
      expect(sliced).toEqual(lines);
    }
  });
  test("lineIndexAt finds the line of an offset, terminators belonging to the line they end", () => {
    const text = "ab\rcd\r\nef";
    const starts = lineStarts(text);
    expect([0, 2, 3, 5, 6, 7, 8].map((offset) => lineIndexAt(starts, offset))).toEqual([0, 0, 1, 1, 1, 2, 2]);
  });
  test("lineStartBefore steps back over any of the three line breaks, never into the middle of a CRLF", () => {
    const text = "ab\rcd\r\nef";
    expect(lineStartBefore(text, 4)).toBe(3);
    expect(lineStartBefore(text, 8)).toBe(7);
    expect(lineStartBefore(text, 6)).toBe(3);
    expect(lineStartBefore(text, 1)).toBe(0);
  });
});
