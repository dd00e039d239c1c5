/**
 * One file's imports as the candidate scans ask about them (candidates.ts): by line, by the names
 * they bind, and with the import graph's verdict per statement, each indexed once per file on first
 * use. The scans ask once per occurrence of a name and once per import; walking the file's imports
 * (and its edges) on every question made a file with thousands of imports (a generated barrel)
 * quadratic.
 */
import type { ImportFact } from "../facts/types.ts";
import type { ImportGraph } from "../graph/import-graph.ts";
import type { GraphFile, UnresolvedImport } from "../graph/types.ts";
import { bindings } from "./names.ts";

export interface ImportState {
  fact: ImportFact;
  /** The import graph's reason when it did not resolve; undefined when it resolved or went external. */
  unresolved?: { reason: string; detail: string };
  /** Files it resolved to. */
  targets: string[];
}

/** An import statement's key: the graph reports it by line and specifier. */
function statementKey(line: number, specifier: string): string {
  return `${line}\0${specifier}`;
}

export class FileImports {
  #byLine: Map<number, ImportFact[]> | undefined;
  /** Position in the file's imports of the first binding each local name, and of the first of each specifier. */
  #byLocal: Map<string, number> | undefined;
  #bySpecifier: Map<string, number> | undefined;
  #unresolved: Map<string, UnresolvedImport> | undefined;
  #targets: Map<string, Set<string>> | undefined;

  constructor(
    readonly graph: ImportGraph,
    readonly file: GraphFile,
  ) {}

  /** The import statements of a line. */
  onLine(line: number): readonly ImportFact[] {
    if (this.#byLine === undefined) {
      this.#byLine = new Map();
      for (const fact of this.file.facts.imports) {
        const list = this.#byLine.get(fact.line);
        if (list) list.push(fact);
        else this.#byLine.set(fact.line, [fact]);
      }
    }
    return this.#byLine.get(line) ?? [];
  }

  /** The import that binds `head` (a qualifier's first part or a bare name), if one does: the first in the file. */
  binding(head: string, qualifier: string | undefined): ImportFact | undefined {
    const imports = this.file.facts.imports;
    if (this.#byLocal === undefined || this.#bySpecifier === undefined) {
      const byLocal = new Map<string, number>();
      const bySpecifier = new Map<string, number>();
      imports.forEach((fact, index) => {
        for (const binding of bindings(this.file, fact)) if (!byLocal.has(binding.local)) byLocal.set(binding.local, index);
        if (!bySpecifier.has(fact.specifier)) bySpecifier.set(fact.specifier, index);
      });
      this.#byLocal = byLocal;
      this.#bySpecifier = bySpecifier;
    }
    let first = this.#byLocal.get(head) ?? imports.length;
    // Python `import a.b` binds `a`, and the call is written `a.b.f()`: an import of the qualifier, or of a module it starts with.
    if (this.file.language === "python" && qualifier !== undefined) {
      for (let end = qualifier.indexOf(".");; end = qualifier.indexOf(".", end + 1)) {
        first = Math.min(first, this.#bySpecifier.get(end < 0 ? qualifier : qualifier.slice(0, end)) ?? imports.length);
        if (end < 0) break;
      }
    }
    return imports[first];
  }

  /** What the import graph made of an import statement. */
  state(fact: ImportFact): ImportState {
    if (this.#unresolved === undefined || this.#targets === undefined) {
      const unresolved = new Map<string, UnresolvedImport>();
      for (const entry of this.graph.unresolvedOf(this.file.real)) {
        const key = statementKey(entry.line, entry.specifier);
        if (!unresolved.has(key)) unresolved.set(key, entry);
      }
      const targets = new Map<string, Set<string>>();
      for (const edge of this.graph.dependenciesOf(this.file.real)) {
        const key = statementKey(edge.line, edge.specifier);
        const set = targets.get(key);
        if (set) set.add(edge.to);
        else targets.set(key, new Set([edge.to]));
      }
      this.#unresolved = unresolved;
      this.#targets = targets;
    }
    const key = statementKey(fact.line, fact.specifier);
    const unresolved = this.#unresolved.get(key);
    if (unresolved) return { fact, unresolved: { reason: unresolved.reason, detail: unresolved.detail }, targets: [] };
    return { fact, targets: [...(this.#targets.get(key) ?? [])] };
  }
}
