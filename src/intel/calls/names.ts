/**
 * The language rules of call resolution and the algebra of what a name means: which kinds are
 * callable or types, which languages call methods without a receiver or scope names by module,
 * which languages may call each other, the names an import binds per language, and how meanings
 * found along several paths merge. Pure: no graph state, so each rule can be read (and tested) alone.
 */
import type { ImportFact } from "../facts/types.ts";
import type { GraphFile } from "../graph/types.ts";
import { type CallEdge, type Confidence, CONFIDENCE_ORDER, type SymbolRef, symbolKey } from "./types.ts";

export const CALLABLE_KINDS = new Set(["function", "method", "constructor", "class", "struct", "macro", "enum_member"]);
export const TYPE_KINDS = new Set(["class", "interface", "struct", "trait", "enum", "union", "type", "module", "namespace"]);
/** Method names that construct (Python, JS/TS, Swift, Ruby, PHP): a call of one never dispatches to a subclass's. */
export const CONSTRUCTOR_NAMES = new Set(["__init__", "__new__", "constructor", "init", "initialize", "__construct"]);
/** Languages where a bare call inside a class may call one of its methods. */
export const IMPLICIT_RECEIVER = new Set(["java", "kotlin", "csharp", "scala", "swift", "cpp", "dart", "ruby", "php"]);
/**
 * Languages where a name from another file is only in scope through an import: a guess by name is
 * kept only among declarations the calling file can reach through its imports (or its package).
 */
export const MODULE_SCOPED = new Set(["typescript", "tsx", "javascript", "python", "go", "rust", "java", "kotlin", "scala", "dart", "haskell"]);
export const RECEIVER_WORDS = new Set(["this", "self", "super", "cls", "Self", "@", "$this", "static", "parent"]);
/** Globals whose members are never workspace code. */
export const KNOWN_GLOBALS = new Set([
  "console",
  "Math",
  "JSON",
  "Object",
  "Array",
  "Promise",
  "Reflect",
  "Symbol",
  "Number",
  "String",
  "Boolean",
  "Date",
  "RegExp",
  "Error",
  "Map",
  "Set",
  "WeakMap",
  "WeakSet",
  "BigInt",
  "Intl",
  "Atomics",
  "process",
  "globalThis",
  "window",
  "document",
  "navigator",
  "Buffer",
  "URL",
  "performance",
  "crypto",
  "System",
  "Collections",
  "Arrays",
  "Objects",
  "Optional",
  "Stream",
  "std",
  "core",
  "alloc",
  "require",
  "module",
  "exports",
  "Bun",
  "Deno",
]);
/** Languages that can call each other's declarations by name. */
const LANGUAGE_GROUP: Readonly<Record<string, string>> = {
  typescript: "script",
  tsx: "script",
  javascript: "script",
  c: "c",
  cpp: "c",
  java: "jvm",
  kotlin: "jvm",
  scala: "jvm",
};

export function groupOf(language: string): string {
  return LANGUAGE_GROUP[language] ?? language;
}

/** What a name stands for in a file: declarations, modules (namespace imports, packages), or something outside. */
export interface Meaning {
  symbols: SymbolRef[];
  modules: string[];
  external?: string;
  /** Why a re-export chain gave nothing (a cycle, the hop limit, a module that did not resolve). */
  cut?: string;
}

export const NOTHING: Meaning = { symbols: [], modules: [] };

export function merge(meanings: Meaning[]): Meaning {
  const symbols = new Map<string, SymbolRef>();
  const modules = new Set<string>();
  let external: string | undefined;
  for (const meaning of meanings) {
    for (const symbol of meaning.symbols) symbols.set(symbolKey(symbol), symbol);
    for (const module of meaning.modules) modules.add(module);
    external ??= meaning.external;
  }
  const result: Meaning = { symbols: [...symbols.values()], modules: [...modules] };
  if (external !== undefined && result.symbols.length === 0 && result.modules.length === 0) result.external = external;
  return result;
}

export function splitQualifier(qualifier: string): string[] {
  return qualifier.split(/\.|::|->|\?\./).map((part) => part.trim()).filter((part) => part.length > 0);
}

/** The names an import fact binds, with what each refers to in the imported module. */
export function bindings(file: GraphFile, fact: ImportFact): Array<{ local: string; imported: string }> {
  if (fact.names.length > 0) return fact.names;
  const specifier = fact.specifier.replace(/^["'<]|["'>]$/g, "");
  switch (file.language) {
    case "go": {
      const last = specifier.split("/").pop() ?? specifier;
      // "gopkg.in/yaml.v3" is package yaml; "example.com/x/v2" is package x.
      const name = /^v\d+$/.test(last) ? (specifier.split("/").slice(-2, -1)[0] ?? last) : last.replace(/\.v\d+$/, "").replace(/^go-/, "");
      return [{ local: name, imported: "*" }];
    }
    case "python":
      return fact.kind === "import" && !specifier.startsWith(".") ? [{ local: specifier, imported: "*" }] : [];
    case "rust": {
      if (fact.kind === "mod") return [{ local: specifier, imported: "*" }];
      const last = specifier.split("::").pop()?.trim();
      return last && last !== "*" && !last.includes("{") ? [{ local: last, imported: last }] : [];
    }
    default:
      return [];
  }
}

export function sortEdges(edges: CallEdge[]): CallEdge[] {
  return edges.sort(
    (a, b) =>
      CONFIDENCE_ORDER[a.confidence] - CONFIDENCE_ORDER[b.confidence] ||
      (a.site.file < b.site.file ? -1 : a.site.file > b.site.file ? 1 : a.site.fact.line - b.site.fact.line || a.site.fact.column - b.site.fact.column),
  );
}

export function worst(a: Confidence, b: Confidence): Confidence {
  return CONFIDENCE_ORDER[a] >= CONFIDENCE_ORDER[b] ? a : b;
}
