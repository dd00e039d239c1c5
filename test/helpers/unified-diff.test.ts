import { describe, expect, test } from "bun:test";
import { applyPatch } from "diff";
import { unifiedDiff } from "../../src/helpers/unified-diff.ts";

const BIG = 1024 * 1024;

/** Every produced diff must turn `before` into `after` when applied by an independent implementation. */
function expectApplies(before: string, after: string, diff: string) {
  expect(applyPatch(before, diff)).toBe(after);
}

describe("unifiedDiff", () => {
  test("a modification has a/ and b/ headers, one hunk with context, and counts", () => {
    const before = "one\ntwo\nthree\nfour\nfive\n";
    const after = "one\ntwo\nTHREE\nfour\nfive\nsix\n";
    const result = unifiedDiff("src/x.ts", before, after, BIG);
    expect(result).toEqual({
      diff: "--- a/src/x.ts\n+++ b/src/x.ts\n@@ -1,5 +1,6 @@\n one\n two\n-three\n+THREE\n four\n five\n+six\n",
      truncated: false,
      added: 2,
      removed: 1,
    });
    expectApplies(before, after, result.diff);
  });

  test("a created file diffs from /dev/null", () => {
    const result = unifiedDiff("new.md", undefined, "# Title\nbody\n", BIG);
    expect(result.diff).toBe("--- /dev/null\n+++ b/new.md\n@@ -0,0 +1,2 @@\n+# Title\n+body\n");
    expect(result).toMatchObject({ added: 2, removed: 0 });
  });

  test("a deleted file diffs to /dev/null", () => {
    const result = unifiedDiff("old.txt", "a\nb\n", undefined, BIG);
    expect(result.diff).toBe("--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n");
    expect(result).toMatchObject({ added: 0, removed: 2 });
  });

  test("identical texts give an empty diff", () => {
    expect(unifiedDiff("x", "same\n", "same\n", BIG)).toEqual({ diff: "", truncated: false, added: 0, removed: 0 });
  });

  test("a missing final newline is marked, and adding one is a change", () => {
    const result = unifiedDiff("x", "a\nb", "a\nb\n", BIG);
    expect(result.diff).toBe("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
    expectApplies("a\nb", "a\nb\n", result.diff);
  });

  test("CRLF lines keep their carriage return and a line-ending change shows", () => {
    const result = unifiedDiff("w.txt", "one\r\ntwo\r\n", "one\r\ntwo\n", BIG);
    expect(result.diff).toBe("--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n one\r\n-two\r\n+two\n");
    expect(result).toMatchObject({ added: 1, removed: 1 });
  });

  test("a lone CR ends a line as LF and CRLF do", () => {
    const result = unifiedDiff("m.txt", "one\rtwo\rthree", "one\rTWO\rthree", BIG);
    expect(result.diff).toBe("--- a/m.txt\n+++ b/m.txt\n@@ -1,3 +1,3 @@\n one\r\n-two\r\n+TWO\r\n three\n\\ No newline at end of file\n");
    expect(result).toMatchObject({ added: 1, removed: 1 });
  });

  test("distant changes make separate hunks; near ones share one", () => {
    const lines = Array.from({ length: 40 }, (_, index) => `line ${index + 1}\n`);
    const far = [...lines];
    far[2] = "changed 3\n";
    far[30] = "changed 31\n";
    const result = unifiedDiff("f", lines.join(""), far.join(""), BIG);
    expect(result.diff.match(/^@@ /gm)).toHaveLength(2);
    expect(result.diff).toContain("@@ -1,6 +1,6 @@");
    expect(result.diff).toContain("@@ -28,7 +28,7 @@");
    expectApplies(lines.join(""), far.join(""), result.diff);

    const near = [...lines];
    near[2] = "changed 3\n";
    near[8] = "changed 9\n";
    const joined = unifiedDiff("f", lines.join(""), near.join(""), BIG);
    expect(joined.diff.match(/^@@ /gm)).toHaveLength(1);
    expectApplies(lines.join(""), near.join(""), joined.diff);
  });

  test("backslashes and leading slashes of the display path are normalised", () => {
    expect(unifiedDiff("dir\\file.txt", "a\n", "b\n", BIG).diff).toStartWith("--- a/dir/file.txt\n+++ b/dir/file.txt\n");
  });

  test("a long diff is cut on a line boundary with a note, and counts stay complete", () => {
    const before = Array.from({ length: 500 }, (_, index) => `value ${index}\n`).join("");
    const after = Array.from({ length: 500 }, (_, index) => `VALUE ${index} ✓\n`).join("");
    const full = unifiedDiff("f", before, after, BIG);
    const cut = unifiedDiff("f", before, after, 2000);
    expect(cut.truncated).toBe(true);
    expect(Buffer.byteLength(cut.diff, "utf8")).toBeLessThanOrEqual(2000);
    expect(cut).toMatchObject({ added: 500, removed: 500 });
    expect(cut.diff).toMatch(/\[diff cut at 2000 bytes: \d+ more diff lines not shown\]\n$/);
    const body = cut.diff.slice(0, cut.diff.lastIndexOf("[diff cut"));
    expect(full.diff.startsWith(body)).toBe(true);
    expect(body.endsWith("\n")).toBe(true);
    const shownLines = body.split("\n").length - 1;
    const omitted = Number(/(\d+) more diff lines/.exec(cut.diff)![1]);
    expect(shownLines + omitted).toBe(full.diff.split("\n").length - 1);
  });

  test("a budget too small for the header still yields the note alone", () => {
    const result = unifiedDiff("f", "a\n", "b\n", 10);
    expect(result.truncated).toBe(true);
    expect(result.diff).toStartWith("[diff cut at 10 bytes");
  });

  test("large rewrites beyond the Myers budget still give a correct diff", () => {
    const lines = Array.from({ length: 60_000 }, (_, index) => `row ${index} ${(index * 7) % 13}\n`);
    const edited = lines.map((line, index) => (index % 3 === 0 ? line.replace("\n", " edited\n") : line));
    const before = lines.join("");
    const after = edited.join("");
    const result = unifiedDiff("big.txt", before, after, 64 * BIG);
    expect(result).toMatchObject({ added: 20_000, removed: 20_000, truncated: false });
    expectApplies(before, after, result.diff);
  });

  test("a reordered file with repeated lines diffs correctly", () => {
    const lines = Array.from({ length: 3000 }, (_, index) => (index % 3 === 0 ? "}\n" : `x${index % 100}\n`));
    const moved = [...lines.slice(1500), ...lines.slice(0, 1500)];
    const result = unifiedDiff("r", lines.join(""), moved.join(""), 64 * BIG);
    expectApplies(lines.join(""), moved.join(""), result.diff);
  });
});
