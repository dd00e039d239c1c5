import { describe, expect, test } from "bun:test";
import { escapeToken, evaluatePointer, formatPointer, parsePointer, PointerSyntaxError } from "../../src/helpers/json-pointer.ts";

describe("parsePointer", () => {
  test("the RFC 6901 examples", () => {
    expect(parsePointer("")).toEqual([]);
    expect(parsePointer("/foo")).toEqual(["foo"]);
    expect(parsePointer("/foo/0")).toEqual(["foo", "0"]);
    expect(parsePointer("/")).toEqual([""]);
    expect(parsePointer("/a~1b")).toEqual(["a/b"]);
    expect(parsePointer("/m~0n")).toEqual(["m~n"]);
    expect(parsePointer("/ ")).toEqual([" "]);
  });
  test("~01 unescapes to ~1, not /", () => {
    expect(parsePointer("/~01")).toEqual(["~1"]);
  });
  test("rejects a missing leading slash and bad escapes", () => {
    expect(() => parsePointer("foo")).toThrow(PointerSyntaxError);
    expect(() => parsePointer("#/foo")).toThrow(PointerSyntaxError);
    expect(() => parsePointer("/a~2")).toThrow(PointerSyntaxError);
    expect(() => parsePointer("/a~")).toThrow(PointerSyntaxError);
  });
  test("escaping round-trips", () => {
    const tokens = ["a/b", "m~n", "~1", ""];
    expect(parsePointer(formatPointer(tokens))).toEqual(tokens);
    expect(escapeToken("~/")).toBe("~0~1");
  });
});

describe("evaluatePointer", () => {
  const document = { foo: ["bar", "baz"], "": 0, "a/b": 1, "m~n": 8, nested: { deep: { value: null } } };

  test("finds values including null and the empty key", () => {
    expect(evaluatePointer(document, [])).toEqual({ found: true, value: document });
    expect(evaluatePointer(document, ["foo", "1"])).toEqual({ found: true, value: "baz" });
    expect(evaluatePointer(document, [""])).toEqual({ found: true, value: 0 });
    expect(evaluatePointer(document, ["a/b"])).toEqual({ found: true, value: 1 });
    expect(evaluatePointer(document, ["nested", "deep", "value"])).toEqual({ found: true, value: null });
  });
  test("reports the deepest existing prefix when missing", () => {
    const result = evaluatePointer(document, ["nested", "deep", "nope", "x"]);
    expect(result).toMatchObject({ found: false, existingPrefix: "/nested/deep", missingToken: "nope" });
  });
  test("array indices must be canonical and in range; '-' never exists", () => {
    expect(evaluatePointer(document, ["foo", "2"]).found).toBe(false);
    expect(evaluatePointer(document, ["foo", "01"]).found).toBe(false);
    expect(evaluatePointer(document, ["foo", "-"]).found).toBe(false);
    expect(evaluatePointer(document, ["foo", "length"]).found).toBe(false);
  });
  test("inherited properties are not present", () => {
    expect(evaluatePointer({}, ["constructor"]).found).toBe(false);
    expect(evaluatePointer({}, ["__proto__"]).found).toBe(false);
    expect(evaluatePointer(JSON.parse("{\"__proto__\": 5}"), ["__proto__"])).toEqual({ found: true, value: 5 });
  });
  test("cannot descend into scalars", () => {
    expect(evaluatePointer({ a: "text" }, ["a", "0"])).toMatchObject({ found: false, existingPrefix: "/a" });
  });
});
