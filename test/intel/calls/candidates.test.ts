/** The pure rules of unresolved candidates: whole-word occurrences, and when an import path may name a module of the tree. */
import { describe, expect, test } from "bun:test";
import { mayName, moduleSegments, specifierSegments, wordOccurrences } from "../../../src/intel/calls/candidates.ts";

describe("wordOccurrences", () => {
  test("finds the name only as a whole word", () => {
    const text = "run(); rerun(); run_fast(); obj.run(); $run; run";
    expect(wordOccurrences(text, "run")).toEqual([0, 32, 45]);
  });

  test("a name absent from the text gives nothing", () => {
    expect(wordOccurrences("nothing here", "absent")).toEqual([]);
  });
});

describe("module paths", () => {
  test("an import path's segments per language", () => {
    expect(specifierSegments("\"net/http\"", "go")).toEqual(["net", "http"]);
    expect(specifierSegments("django.utils.crypto", "python")).toEqual(["django", "utils", "crypto"]);
    expect(specifierSegments("..crypto_old", "python")).toEqual(["crypto_old"]);
    expect(specifierSegments("../fmt/util.js", "typescript")).toEqual(["fmt", "util"]);
  });

  test("a file's module below its root: a Go package is its folder, an index file its folder", () => {
    expect(moduleSegments({ real: "/r/src/net/http/server.go", rootReal: "/r", language: "go" })).toEqual(["src", "net", "http"]);
    expect(moduleSegments({ real: "/r/utils/crypto.py", rootReal: "/r", language: "python" })).toEqual(["utils", "crypto"]);
    expect(moduleSegments({ real: "/r/pkg/__init__.py", rootReal: "/r", language: "python" })).toEqual(["pkg"]);
    expect(moduleSegments({ real: "/r/src/fmt/index.ts", rootReal: "/r", language: "typescript" })).toEqual(["src", "fmt"]);
  });

  test("an import path names a module when their tails agree wholly on one side or on two segments", () => {
    expect(mayName(["net", "http"], ["src", "net", "http"])).toBe(true);
    expect(mayName(["django", "utils", "crypto"], ["utils", "crypto"])).toBe(true);
    expect(mayName(["github.com", "acme", "server"], ["server"])).toBe(true);
    expect(mayName(["lodash"], ["src", "fmt", "util"])).toBe(false);
    expect(mayName(["net", "http"], ["vendor", "x", "http"])).toBe(false);
  });

  test("a one-segment import path names only a top-level module, not a project's module of that name", () => {
    expect(mayName(["fmt"], ["src", "fmt"])).toBe(true);
    expect(mayName(["fmt"], ["fmt"])).toBe(true);
    expect(mayName(["logging"], ["app", "logging"])).toBe(false);
    expect(mayName(["errors"], ["pkg", "internal", "errors"])).toBe(false);
  });
});
