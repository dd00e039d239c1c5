/**
 * C and C++ `#include`: a quoted header is looked up next to the includer, then in each root and
 * its include/ and src/ folders; an angle-bracket header is a system or library header.
 */
import path from "node:path";
import type { ImportFact } from "../facts/types.ts";
import { type LanguageResolver, type ResolveContext, unresolved } from "./context.ts";
import type { GraphFile, Resolution } from "./types.ts";

export class IncludeResolver implements LanguageResolver {
  readonly #context: ResolveContext;

  constructor(context: ResolveContext) {
    this.#context = context;
  }

  async resolve(file: GraphFile, fact: ImportFact): Promise<Resolution> {
    const raw = fact.specifier.trim();
    const system = raw.startsWith("<");
    const header = raw.replace(/^["<]|[">]$/g, "");
    if (header.length === 0) return unresolved("unsupported", "empty include");
    const bases = system ? [] : [path.dirname(file.real)];
    for (const root of this.#context.configs.workspace.roots) bases.push(path.join(root.real, "include"), root.real, path.join(root.real, "src"));
    let outside = false;
    for (const [index, base] of bases.entries()) {
      const candidate = path.resolve(base, header);
      if (!this.#context.configs.inside(candidate)) {
        // Only the includer-relative (or absolute) spelling counts: include folders are guesses.
        if (index === 0 || path.isAbsolute(header)) outside = true;
        continue;
      }
      if (this.#context.table.has(candidate)) return { kind: "file", targets: [candidate], via: "include" };
    }
    if (system) return { kind: "external", package: header.split("/")[0]!, builtin: true };
    if (outside) return unresolved("outside_roots", `${header} is outside the roots`);
    return unresolved("not_found", `no header ${header}`);
  }
}
