import { describe, expect, test } from "bun:test";
import { looksMinified, MINIFIED_DEFAULTS } from "../../src/syntax/index.ts";

describe("looksMinified", () => {
  const bundle = `${"x".repeat(MINIFIED_DEFAULTS.lineChars)}\nshort\n`;

  test("a head mostly made of very long lines is a bundle; one long line among many short ones is not", () => {
    expect(looksMinified(bundle)).toBe(true);
    expect(looksMinified(`${"const a = 1;\n".repeat(200)}${"x".repeat(MINIFIED_DEFAULTS.lineChars)}\n`)).toBe(false);
  });

  test("its tuning can be varied: a longer line threshold no longer counts the same head as minified", () => {
    expect(looksMinified(bundle, { ...MINIFIED_DEFAULTS, lineChars: MINIFIED_DEFAULTS.lineChars * 2 })).toBe(false);
  });
});
