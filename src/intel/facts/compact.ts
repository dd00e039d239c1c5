/**
 * Facts kept by the code index for every file of a tree, made small: the extractors read names,
 * callees and signatures by slicing the file's text, and V8 keeps a slice of 13 or more characters
 * as a pointer into its parent, so one `self.assertEqual` kept the whole file's text alive. Each
 * string is replaced by a copy that owns its characters, shared through a pool so the thousands of
 * equal names (callees, qualifiers, callers, specifiers) are stored once.
 */
import type { FileFacts } from "./types.ts";

/** Equal strings → one owned copy. */
export class StringPool {
  readonly #strings = new Map<string, string>();

  /** The pooled copy of `text`, which holds no reference to a larger string. */
  get(text: string): string {
    let owned = this.#strings.get(text);
    if (owned === undefined) {
      // Below 13 characters V8 copies slices anyway; above, prefixing and slicing flattens a new
      // string, whose slice no longer points into the source text.
      owned = text.length < 13 ? text : (` ${text}`).slice(1);
      this.#strings.set(owned, owned);
    }
    return owned;
  }

  get size(): number {
    return this.#strings.size;
  }
}

/** Replaces every string of `facts` (in place) by its pooled copy; returns `facts`. */
export function compactFacts(facts: FileFacts, pool: StringPool): FileFacts {
  facts.language = pool.get(facts.language);
  for (const symbol of facts.symbols) {
    symbol.name = pool.get(symbol.name);
    symbol.qualifiedName = pool.get(symbol.qualifiedName);
    symbol.signature = pool.get(symbol.signature);
    if (symbol.doc !== undefined) symbol.doc = pool.get(symbol.doc);
    if (symbol.parent !== undefined) symbol.parent = pool.get(symbol.parent);
    if (symbol.heritage !== undefined) symbol.heritage = symbol.heritage.map((name) => pool.get(name));
  }
  for (const fact of facts.imports) {
    fact.specifier = pool.get(fact.specifier);
    for (const name of fact.names) {
      name.local = pool.get(name.local);
      name.imported = pool.get(name.imported);
    }
  }
  for (const call of facts.calls) {
    call.callee = pool.get(call.callee);
    call.name = pool.get(call.name);
    if (call.qualifier !== undefined) call.qualifier = pool.get(call.qualifier);
    if (call.caller !== undefined) call.caller = pool.get(call.caller);
  }
  for (const entry of facts.exportedNames) {
    entry.name = pool.get(entry.name);
    if (entry.from !== undefined) entry.from = pool.get(entry.from);
    if (entry.local !== undefined) entry.local = pool.get(entry.local);
  }
  for (const binding of facts.bindings ?? []) {
    binding.name = pool.get(binding.name);
    binding.type = pool.get(binding.type);
    if (binding.scope !== undefined) binding.scope = pool.get(binding.scope);
    if (binding.argument !== undefined) binding.argument = pool.get(binding.argument);
  }
  return facts;
}
