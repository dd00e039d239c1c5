/**
 * Turning parsed document values (JSON, JSONC, TOML, YAML) into plain JSON and cutting them
 * to a byte budget while keeping the result valid JSON.
 */
import { utf8Length } from "../text/index.ts";
import { lastIndexWhere } from "../core/bisect.ts";

export type ValueType = "object" | "array" | "string" | "number" | "boolean" | "null" | "datetime" | "bigint";

export function valueTypeOf(value: unknown): ValueType {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  if (value instanceof Date) return "datetime";
  switch (typeof value) {
    case "string":
      return "string";
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "bigint":
      return "bigint";
    default:
      return "object";
  }
}

export interface NormalizedValue {
  value: unknown;
  /** True when nesting beyond maxDepth was replaced by a marker string. */
  depthCut: boolean;
}

/**
 * Plain JSON for a parsed value: dates become their ISO text (TOML local dates and times keep
 * their short form), big integers their decimal text, inf/nan the strings "inf", "-inf", "nan".
 */
export function normalizeValue(value: unknown, maxDepth: number): NormalizedValue {
  let depthCut = false;
  const walk = (current: unknown, depth: number): unknown => {
    if (current === null || current === undefined) return null;
    if (current instanceof Date) return Number.isNaN(current.getTime()) ? String(current) : current.toISOString();
    if (typeof current === "bigint") return current.toString();
    if (typeof current === "number") {
      if (Number.isFinite(current)) return current;
      return Number.isNaN(current) ? "nan" : current > 0 ? "inf" : "-inf";
    }
    if (typeof current !== "object") return typeof current === "string" || typeof current === "boolean" ? current : String(current);
    if (depth >= maxDepth) {
      depthCut = true;
      return "[nested deeper than the value depth limit]";
    }
    if (Array.isArray(current)) return current.map((item) => walk(item, depth + 1));
    if (current instanceof Map) {
      const object: Record<string, unknown> = {};
      for (const [key, item] of current) defineEntry(object, String(key), walk(item, depth + 1));
      return object;
    }
    const object: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(current)) defineEntry(object, key, walk(item, depth + 1));
    return object;
  };
  const result = walk(value, 0);
  return { value: result, depthCut };
}

/** Plain assignment of "__proto__" would change the prototype instead of adding a key. */
function defineEntry(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

export function jsonBytes(value: unknown): number {
  return utf8Length(JSON.stringify(value) ?? "null");
}

export interface CappedValue {
  value: unknown;
  truncated: boolean;
  /** Serialized size (UTF-8 bytes of compact JSON) of the whole value before cutting. */
  bytes: number;
}

/** Below this many bytes a nested value is dropped rather than cut into a stub. */
const MIN_PARTIAL_BYTES = 16;

/**
 * Cuts a plain JSON value to at most `maxBytes` of compact JSON: strings keep a prefix, arrays and
 * objects keep their leading entries (the last kept one possibly cut itself). Never splits characters.
 */
export function capJsonValue(value: unknown, maxBytes: number): CappedValue {
  const bytes = jsonBytes(value);
  if (bytes <= maxBytes) return { value, truncated: false, bytes };
  return { value: shrink(value, maxBytes) ?? null, truncated: true, bytes };
}

/** A value of at most `budget` serialized bytes, or undefined when nothing useful fits. */
function shrink(value: unknown, budget: number): unknown {
  const size = jsonBytes(value);
  if (size <= budget) return value;
  if (typeof value === "string") {
    if (budget < 2) return undefined;
    // Escapes make the JSON longer than the text, so search for the longest prefix that fits
    // (every character costs at least one byte, which bounds the search).
    // Prefixes are measured without a trailing high surrogate, which keeps the cost monotonic.
    const safeEnd = (end: number) => {
      const code = value.charCodeAt(end - 1);
      return end > 0 && code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
    };
    const longest = lastIndexWhere(Math.min(value.length, budget) + 1, (length) => jsonBytes(value.slice(0, safeEnd(length))) <= budget);
    return value.slice(0, safeEnd(Math.max(0, longest)));
  }
  if (value !== null && typeof value === "object") {
    if (budget < 2) return undefined;
    // Arrays and objects alike keep their leading entries; an object's entry also pays for its key.
    const array = Array.isArray(value);
    const kept: unknown[] | Record<string, unknown> = array ? [] : {};
    let used = 2;
    let count = 0;
    for (const [key, item] of (array ? value.entries() : Object.entries(value)) as Iterable<[number | string, unknown]>) {
      const room = budget - used - (count > 0 ? 1 : 0) - (array ? 0 : jsonBytes(key) + 1);
      const itemBytes = jsonBytes(item);
      const entry = itemBytes <= room ? item : room >= MIN_PARTIAL_BYTES ? shrink(item, room) : undefined;
      if (entry !== undefined) {
        if (Array.isArray(kept)) kept.push(entry);
        else defineEntry(kept, String(key), entry);
      }
      if (itemBytes > room) break;
      used = budget - room + itemBytes;
      count++;
    }
    return kept;
  }
  return undefined;
}
