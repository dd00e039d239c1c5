import { describe, expect, test } from "bun:test";
import { ignoredBy, isIgnored, parseIgnoreFile } from "../../src/helpers/gitignore.ts";

function rules(text: string, base = "") {
  return [parseIgnoreFile(text, base)];
}

describe("gitignore patterns", () => {
  test("an unanchored name matches at any depth, files and directories", () => {
    const files = rules("*.log\nbuild\n");
    expect(isIgnored(files, "a.log", false)).toBe(true);
    expect(isIgnored(files, "deep/er/a.log", false)).toBe(true);
    expect(isIgnored(files, "src/build", true)).toBe(true);
    expect(isIgnored(files, "src/build", false)).toBe(true);
    expect(isIgnored(files, "src/builder", true)).toBe(false);
    expect(isIgnored(files, "a.log.txt", false)).toBe(false);
  });

  test("a slash at the start or in the middle anchors the pattern to the file's directory", () => {
    const files = rules("/top.txt\ndocs/gen\n");
    expect(isIgnored(files, "top.txt", false)).toBe(true);
    expect(isIgnored(files, "sub/top.txt", false)).toBe(false);
    expect(isIgnored(files, "docs/gen", true)).toBe(true);
    expect(isIgnored(files, "x/docs/gen", true)).toBe(false);
  });

  test("a trailing slash matches directories only", () => {
    const files = rules("cache/\n");
    expect(isIgnored(files, "cache", true)).toBe(true);
    expect(isIgnored(files, "a/cache", true)).toBe(true);
    expect(isIgnored(files, "cache", false)).toBe(false);
  });

  test("negation re-includes, and the last matching line wins", () => {
    const files = rules("*.ts\n!keep.ts\n");
    expect(isIgnored(files, "a.ts", false)).toBe(true);
    expect(isIgnored(files, "keep.ts", false)).toBe(false);
    expect(ignoredBy(files, "keep.ts", false)).toBe(false);
    expect(ignoredBy(files, "other.js", false)).toBeUndefined();
    const reversed = rules("!keep.ts\n*.ts\n");
    expect(isIgnored(reversed, "keep.ts", false)).toBe(true);
  });

  test("double-star forms", () => {
    const files = rules("**/logs\na/**/z.txt\nout/**\n");
    expect(isIgnored(files, "logs", true)).toBe(true);
    expect(isIgnored(files, "x/y/logs", true)).toBe(true);
    expect(isIgnored(files, "a/z.txt", false)).toBe(true);
    expect(isIgnored(files, "a/b/c/z.txt", false)).toBe(true);
    expect(isIgnored(files, "b/a/z.txt", false)).toBe(false);
    expect(isIgnored(files, "out/anything/here.js", false)).toBe(true);
    expect(isIgnored(files, "out", true)).toBe(false);
  });

  test("wildcards do not cross directories; classes and ? match one character", () => {
    const files = rules("src/*.gen.ts\nfile?.c\n[abc].md\n[!x]y.txt\n");
    expect(isIgnored(files, "src/a.gen.ts", false)).toBe(true);
    expect(isIgnored(files, "src/sub/a.gen.ts", false)).toBe(false);
    expect(isIgnored(files, "file1.c", false)).toBe(true);
    expect(isIgnored(files, "file12.c", false)).toBe(false);
    expect(isIgnored(files, "b.md", false)).toBe(true);
    expect(isIgnored(files, "d.md", false)).toBe(false);
    expect(isIgnored(files, "ay.txt", false)).toBe(true);
    expect(isIgnored(files, "xy.txt", false)).toBe(false);
  });

  test("comments, blank lines, escapes and trailing spaces", () => {
    const files = rules("# comment\n\n\\#hash\n\\!bang\nspaced   \nkept\\ \n");
    expect(isIgnored(files, "# comment", false)).toBe(false);
    expect(isIgnored(files, "#hash", false)).toBe(true);
    expect(isIgnored(files, "!bang", false)).toBe(true);
    expect(isIgnored(files, "spaced", false)).toBe(true);
    expect(isIgnored(files, "kept ", false)).toBe(true);
    expect(isIgnored(files, "kept", false)).toBe(false);
  });

  test("a nested file applies below its directory and overrides the files above it", () => {
    const chain = [parseIgnoreFile("*.tmp\n", ""), parseIgnoreFile("!special.tmp\n/local.txt\n", "pkg")];
    expect(isIgnored(chain, "a.tmp", false)).toBe(true);
    expect(isIgnored(chain, "pkg/special.tmp", false)).toBe(false);
    expect(isIgnored(chain, "special.tmp", false)).toBe(true);
    expect(isIgnored(chain, "pkg/local.txt", false)).toBe(true);
    expect(isIgnored(chain, "local.txt", false)).toBe(false);
    expect(isIgnored(chain, "pkg/sub/local.txt", false)).toBe(false);
  });

  test("CRLF files and odd input do not throw", () => {
    const files = rules("a.txt\r\n[unclosed\r\nback\\\r\n");
    expect(isIgnored(files, "a.txt", false)).toBe(true);
    expect(isIgnored(files, "[unclosed", false)).toBe(true);
  });
});
