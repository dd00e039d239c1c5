import { describe, expect, test } from "bun:test";
import { TomlDate } from "smol-toml";
import { capJsonValue, jsonBytes, normalizeValue, valueTypeOf } from "../../src/helpers/json-value.ts";

describe("valueTypeOf", () => {
  test("JSON types plus datetime and bigint", () => {
    expect(valueTypeOf({})).toBe("object");
    expect(valueTypeOf([])).toBe("array");
    expect(valueTypeOf("s")).toBe("string");
    expect(valueTypeOf(1)).toBe("number");
    expect(valueTypeOf(true)).toBe("boolean");
    expect(valueTypeOf(null)).toBe("null");
    expect(valueTypeOf(new Date(0))).toBe("datetime");
    expect(valueTypeOf(10n)).toBe("bigint");
  });
});

describe("normalizeValue", () => {
  test("dates, big integers and non-finite numbers become JSON text", () => {
    const value = { d: new TomlDate("1979-05-27"), t: new TomlDate("07:32:00"), b: 9007199254740993n, i: Infinity, n: -Infinity, x: NaN };
    expect(normalizeValue(value, 10).value).toEqual({ d: "1979-05-27", t: "07:32:00.000", b: "9007199254740993", i: "inf", n: "-inf", x: "nan" });
  });
  test("keeps a __proto__ key as data", () => {
    const source = JSON.parse("{\"__proto__\": {\"polluted\": true}}");
    const normalized = normalizeValue(source, 10).value as Record<string, unknown>;
    expect(Object.hasOwn(normalized, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(normalized)).toBe("{\"__proto__\":{\"polluted\":true}}");
  });
  test("replaces nesting beyond the depth limit and says so", () => {
    const deep = { a: { b: { c: { d: 1 } } } };
    const result = normalizeValue(deep, 2);
    expect(result.depthCut).toBe(true);
    expect(typeof (result.value as { a: { b: unknown } }).a.b).toBe("string");
    expect(normalizeValue(deep, 10).depthCut).toBe(false);
  });
});

describe("capJsonValue", () => {
  test("leaves values within the budget alone", () => {
    expect(capJsonValue({ a: 1 }, 100)).toEqual({ value: { a: 1 }, truncated: false, bytes: 7 });
  });
  test("cuts strings to a prefix whose JSON fits, escapes included", () => {
    const result = capJsonValue("\"".repeat(100), 22);
    expect(result.truncated).toBe(true);
    expect(result.bytes).toBe(202);
    expect(jsonBytes(result.value)).toBeLessThanOrEqual(22);
    expect(result.value).toBe("\"".repeat(10));
  });
  test("never leaves half a surrogate pair", () => {
    const result = capJsonValue("😀".repeat(10), 11);
    expect(result.value).toBe("😀😀");
  });
  test("keeps leading array elements and object entries, staying valid JSON within budget", () => {
    const array = Array.from({ length: 1000 }, (_, index) => index);
    const cutArray = capJsonValue(array, 50);
    expect(cutArray.truncated).toBe(true);
    expect(jsonBytes(cutArray.value)).toBeLessThanOrEqual(50);
    expect((cutArray.value as number[]).slice(0, 3)).toEqual([0, 1, 2]);

    const object = Object.fromEntries(Array.from({ length: 100 }, (_, index) => [`key${index}`, "v".repeat(20)]));
    const cutObject = capJsonValue(object, 200);
    expect(jsonBytes(cutObject.value)).toBeLessThanOrEqual(200);
    expect(Object.keys(cutObject.value as object)[0]).toBe("key0");
  });
  test("a large nested entry is cut inside rather than dropped", () => {
    const result = capJsonValue({ text: "x".repeat(1000) }, 100);
    const kept = result.value as { text: string };
    expect(kept.text.length).toBeGreaterThan(50);
    expect(jsonBytes(kept)).toBeLessThanOrEqual(100);
  });
});
