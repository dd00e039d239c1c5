/** The pure helpers the policy decides with. */
import { describe, expect, test } from "bun:test";
import picomatch from "picomatch";
import { globSpecificity, literalPrefixLength } from "../../src/helpers/glob-specificity.ts";
import { findControlCharacter, normalizeRulePath, relativeInside, toPosix } from "../../src/helpers/path-text.ts";

const matches = (pattern: string, path: string) => picomatch(pattern, { dot: true })(path);

describe("glob specificity", () => {
  test("literal prefix stops at the first glob character", () => {
    expect(literalPrefixLength("src/**")).toBe(4);
    expect(literalPrefixLength("src/foo*.ts")).toBe(7);
    expect(literalPrefixLength("src/a.ts")).toBe(8);
    expect(literalPrefixLength("**/.env")).toBe(0);
  });

  test("a leading **/ counts the consumed directories as literal", () => {
    expect(globSpecificity("**/.env", "src/.env", matches)).toBe("src/.env".length);
    expect(globSpecificity("**/.env", ".env", matches)).toBe(4);
    expect(globSpecificity("**/.git/**", "a/.git/objects/x", matches)).toBe("a/.git/".length);
    expect(globSpecificity("**/*.pem", "certs/k.pem", matches)).toBe("certs/".length);
    expect(globSpecificity("src/**", "src/.env", matches)).toBe(4);
  });
});

describe("path text", () => {
  test("control characters are found, including NUL, DEL and C1", () => {
    expect(findControlCharacter("src/a.ts")).toBe(-1);
    expect(findControlCharacter("ünïcödé/ファイル")).toBe(-1);
    expect(findControlCharacter("a\0b")).toBe(1);
    expect(findControlCharacter("\u007f")).toBe(0);
    expect(findControlCharacter("ab\u009b")).toBe(2);
  });

  test("containment is by whole segments", () => {
    expect(relativeInside("/a/b", "/a/b", "/")).toBe("");
    expect(relativeInside("/a/b", "/a/b/c/d", "/")).toBe("c/d");
    expect(relativeInside("/a/b", "/a/bc", "/")).toBeUndefined();
    expect(relativeInside("/", "/etc", "/")).toBe("etc");
  });

  test("rule paths and separators are normalized", () => {
    expect(normalizeRulePath("./src/")).toBe("src");
    expect(normalizeRulePath(".")).toBe("");
    expect(toPosix("a\\b", "\\")).toBe("a/b");
  });
});
