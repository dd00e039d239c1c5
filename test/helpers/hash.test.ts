import { describe, expect, test } from "bun:test";
import { sha256Hex, sha256OfText } from "../../src/helpers/hash.ts";

describe("sha256OfText", () => {
  test("equals the hash of the text's UTF-8 bytes, for ASCII, other scripts and a lone surrogate, asked once or again", () => {
    const texts = ["", "plain", "Ünïcødé ✓ 漢字 🚀", "lone \ud800 surrogate", "x".repeat(20_000)];
    for (const round of [1, 2]) {
      for (const text of texts) {
        expect({ round, text: text.slice(0, 20), sha: sha256OfText(text) }).toEqual({ round, text: text.slice(0, 20), sha: sha256Hex(Buffer.from(text, "utf8")) });
      }
    }
    // Equal content in another string object is the same text.
    expect(sha256OfText(("y" + "plain").slice(1))).toBe(sha256Hex(Buffer.from("plain")));
  });
});
