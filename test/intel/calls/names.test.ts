/** The language rules of call resolution on their own. */
import { describe, expect, test } from "bun:test";
import type { GraphFile } from "../../../src/intel/graph/types.ts";
import { bindings, groupOf, merge, splitQualifier } from "../../../src/intel/calls/names.ts";
import { imp } from "../graph/fixture.ts";

const file = (language: string) => ({ language }) as GraphFile;

describe("names an import binds", () => {
  test("a Go import binds its package name, skipping a major-version suffix and a go- prefix", () => {
    expect(bindings(file("go"), imp("\"example.com/x/v2\""))).toEqual([{ local: "x", imported: "*" }]);
    expect(bindings(file("go"), imp("\"gopkg.in/yaml.v3\""))).toEqual([{ local: "yaml", imported: "*" }]);
    expect(bindings(file("go"), imp("\"github.com/a/go-shlex\""))).toEqual([{ local: "shlex", imported: "*" }]);
  });

  test("Python binds a plain import's module, Rust a use's last segment or a mod, and explicit names win everywhere", () => {
    expect(bindings(file("python"), imp("os.path"))).toEqual([{ local: "os.path", imported: "*" }]);
    expect(bindings(file("python"), imp(".sibling"))).toEqual([]);
    expect(bindings(file("rust"), imp("crate::a::Thing", "use"))).toEqual([{ local: "Thing", imported: "Thing" }]);
    expect(bindings(file("rust"), imp("inner", "mod"))).toEqual([{ local: "inner", imported: "*" }]);
    expect(bindings(file("typescript"), imp("./x", "import", [["y", "z"]]))).toEqual([{ local: "y", imported: "z" }]);
  });
});

describe("meanings and qualifiers", () => {
  test("meanings found along several paths merge without duplicates; an outside name survives only alone", () => {
    const symbol = { file: "/r/a.ts", qualifiedName: "f", name: "f", kind: "function", startLine: 1, endLine: 1 } as never;
    expect(merge([{ symbols: [symbol], modules: ["/r/m.ts"] }, { symbols: [symbol], modules: ["/r/m.ts"], external: "react" }])).toEqual({
      symbols: [symbol],
      modules: ["/r/m.ts"],
    });
    expect(merge([{ symbols: [], modules: [], external: "react" }])).toEqual({ symbols: [], modules: [], external: "react" });
  });

  test("qualifiers split on every language's separator, and languages that call each other share a group", () => {
    expect(splitQualifier("a.b::c->d?.e")).toEqual(["a", "b", "c", "d", "e"]);
    expect(groupOf("tsx")).toBe(groupOf("javascript"));
    expect(groupOf("kotlin")).toBe(groupOf("java"));
    expect(groupOf("go")).toBe("go");
  });
});
