/**
 * package.json `exports` and `imports` maps, following Node's algorithm: exact subpath keys
 * first, then `*` patterns (the longest prefix wins), conditions taken in the object's own key
 * order, arrays as fallbacks, null as "not exported". The answer is an ordered list of target
 * paths (relative to the package folder) for the caller to look up.
 */

export type PackageMapResult =
  | { kind: "targets"; targets: string[] }
  /** The map exists but names nothing for this subpath (or only null for these conditions). */
  | { kind: "not_exported" }
  /** No map: the caller falls back to main / direct paths. */
  | { kind: "no_map" };

/** `exports` given as a string, array or conditions object means the package's "." entry. */
function normalizeExports(exportsField: unknown): Record<string, unknown> | undefined {
  if (exportsField === undefined || exportsField === null) return undefined;
  if (typeof exportsField === "string" || Array.isArray(exportsField)) return { ".": exportsField };
  if (typeof exportsField !== "object") return undefined;
  const record = exportsField as Record<string, unknown>;
  const keys = Object.keys(record);
  // An object whose keys are conditions, not subpaths, is the "." entry too.
  if (keys.length > 0 && !keys.some((key) => key.startsWith("."))) return { ".": record };
  return record;
}

/** Targets of one map value for the active conditions, in the order Node would try them. */
function conditionTargets(value: unknown, conditions: ReadonlySet<string>, star: string | undefined, depth = 0): string[] | null {
  if (depth > 32) return [];
  if (value === null) return null;
  if (typeof value === "string") return [star === undefined ? value : value.split("*").join(star)];
  if (Array.isArray(value)) {
    const all: string[] = [];
    for (const item of value) {
      const targets = conditionTargets(item, conditions, star, depth + 1);
      if (targets) all.push(...targets);
    }
    return all;
  }
  if (typeof value === "object") {
    for (const [condition, nested] of Object.entries(value as Record<string, unknown>)) {
      if (condition !== "default" && !conditions.has(condition)) continue;
      const targets = conditionTargets(nested, conditions, star, depth + 1);
      // A matched condition whose value is null excludes the subpath; an empty fallback tries the next condition.
      if (targets === null) return null;
      if (targets.length > 0) return targets;
    }
    return [];
  }
  return [];
}

function patternMatch(map: Record<string, unknown>, request: string): { value: unknown; star: string | undefined } | undefined {
  if (Object.hasOwn(map, request) && !request.includes("*")) return { value: map[request], star: undefined };
  let best: { key: string; star: string } | undefined;
  for (const key of Object.keys(map)) {
    const starAt = key.indexOf("*");
    if (starAt === -1) {
      // Legacy folder mappings ("./features/": "./src/features/").
      if (key.endsWith("/") && request.startsWith(key) && (!best || key.length > best.key.length)) best = { key, star: request.slice(key.length) };
      continue;
    }
    const prefix = key.slice(0, starAt);
    const suffix = key.slice(starAt + 1);
    if (!request.startsWith(prefix) || request.length < prefix.length + suffix.length || !request.endsWith(suffix)) continue;
    if (best && prefix.length <= best.key.indexOf("*")) continue;
    best = { key, star: request.slice(prefix.length, request.length - suffix.length) };
  }
  if (!best) return undefined;
  const value = map[best.key];
  if (!best.key.includes("*")) {
    // Folder mapping: append the rest to each target.
    const targets = typeof value === "string" ? `${value}${best.star}` : value;
    return { value: targets, star: undefined };
  }
  return { value, star: best.star };
}

/** `exports` for a subpath ("." or "./feature"), under the given conditions. */
export function resolvePackageExports(exportsField: unknown, subpath: string, conditions: ReadonlySet<string>): PackageMapResult {
  const map = normalizeExports(exportsField);
  if (!map) return { kind: "no_map" };
  const match = patternMatch(map, subpath);
  if (!match) return { kind: "not_exported" };
  const targets = conditionTargets(match.value, conditions, match.star);
  if (!targets || targets.length === 0) return { kind: "not_exported" };
  return { kind: "targets", targets };
}

/** `imports` for a "#name" specifier. Targets may be relative paths or bare package specifiers. */
export function resolvePackageImports(importsField: unknown, specifier: string, conditions: ReadonlySet<string>): PackageMapResult {
  if (importsField === null || typeof importsField !== "object" || Array.isArray(importsField)) return { kind: "no_map" };
  const match = patternMatch(importsField as Record<string, unknown>, specifier);
  if (!match) return { kind: "not_exported" };
  const targets = conditionTargets(match.value, conditions, match.star);
  if (!targets || targets.length === 0) return { kind: "not_exported" };
  return { kind: "targets", targets };
}

/** "@scope/name/sub/path" → ["@scope/name", "./sub/path"]; "name" → ["name", "."]. */
export function splitPackageSpecifier(specifier: string): { name: string; subpath: string } | undefined {
  const parts = specifier.split("/");
  const scoped = specifier.startsWith("@");
  const nameParts = scoped ? parts.slice(0, 2) : parts.slice(0, 1);
  if (nameParts.some((part) => part.length === 0) || (scoped && nameParts.length < 2)) return undefined;
  const rest = parts.slice(nameParts.length);
  return { name: nameParts.join("/"), subpath: rest.length === 0 ? "." : `./${rest.join("/")}` };
}
