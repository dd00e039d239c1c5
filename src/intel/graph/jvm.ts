/**
 * Java and Kotlin import resolution. A file's package comes from its `package` declaration (read
 * from the head of the file, cached by content hash); a package is every source file declaring
 * it, wherever it sits. `import a.b.C` names the file of package a.b that declares C (or is named
 * C); nested types (`a.b.C.Inner`) and static members fall back to the enclosing type; `a.b.*`
 * names the whole package.
 */
import path from "node:path";
import type { ImportFact } from "../facts/types.ts";
import { type LanguageResolver, type ResolveContext, unresolved } from "./context.ts";
import type { GraphFile, Resolution } from "./types.ts";

const BUILTIN_PREFIXES = ["java", "javax", "jdk", "sun", "kotlin"];
const JVM_EXTENSIONS = new Set([".java", ".kt", ".kts"]);

/** Reads the head of a source file (CodeIndex.text); the package declaration is near the top. */
export type HeadReader = (file: GraphFile) => Promise<string | undefined>;

/** Declared packages by file and content hash (`real\0sha256`); the import graph that owns the resolvers keeps it. */
export type JvmPackageCache = Map<string, string>;

/** Entries beyond which the cache starts over (a tree's worth of files, not a process's history). */
const MAX_CACHED_PACKAGES = 100_000;

/** The package a Java/Kotlin source declares ("" for the default package). */
function declaredPackage(text: string): string {
  const withoutComments = text.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/\/\/.*$/gm, "");
  return /^\s*package\s+([\w.]+)/m.exec(withoutComments)?.[1] ?? "";
}

function stem(real: string): string {
  return path.basename(real).replace(/\.(java|kts?)$/, "");
}

export class JvmResolver implements LanguageResolver {
  readonly #context: ResolveContext;
  readonly #readHead: HeadReader | undefined;
  readonly #packageCache: JvmPackageCache;
  #packages: Promise<Map<string, GraphFile[]>> | undefined;

  constructor(context: ResolveContext, readHead: HeadReader | undefined, packageCache: JvmPackageCache) {
    this.#context = context;
    this.#readHead = readHead;
    this.#packageCache = packageCache;
  }

  async #packageOf(file: GraphFile): Promise<string | undefined> {
    const key = `${file.real}\0${file.sha256}`;
    const cached = this.#packageCache.get(key);
    if (cached !== undefined) return cached;
    const fromFacts = file.facts.symbols.find((symbol) => (symbol.kind === "namespace" || symbol.kind === "module") && /^package\s/.test(symbol.signature));
    let declared: string | undefined = fromFacts ? declaredPackage(fromFacts.signature) : undefined;
    if (declared === undefined && this.#readHead) {
      const text = await this.#readHead(file);
      if (text !== undefined) declared = declaredPackage(text);
    }
    if (declared === undefined) return undefined;
    if (this.#packageCache.size > MAX_CACHED_PACKAGES) this.#packageCache.clear();
    this.#packageCache.set(key, declared);
    return declared;
  }

  #packageMap(): Promise<Map<string, GraphFile[]>> {
    this.#packages ??= (async () => {
      const map = new Map<string, GraphFile[]>();
      for (const file of this.#context.table.byReal.values()) {
        if (!JVM_EXTENSIONS.has(path.extname(file.real))) continue;
        const declared = await this.#packageOf(file);
        if (declared === undefined) continue;
        const list = map.get(declared) ?? [];
        list.push(file);
        map.set(declared, list);
      }
      return map;
    })();
    return this.#packages;
  }

  async resolve(_file: GraphFile, fact: ImportFact): Promise<Resolution> {
    const text = fact.specifier.replace(/^\s*import\s+/, "").replace(/^static\s+/, "").replace(/;\s*$/, "").replace(/\s+as\s+\w+$/, "").trim();
    // `import a.b.*` may come as the specifier "a.b" with the name "*".
    const wildcard = text.endsWith(".*") || fact.names.some((name) => name.imported === "*");
    const segments = text.replace(/\.\*$/, "").split(".").filter((segment) => segment.length > 0);
    if (segments.length === 0) return unresolved("unsupported", "empty import");
    const packages = await this.#packageMap();
    for (let length = segments.length; length >= 1; length--) {
      const files = packages.get(segments.slice(0, length).join("."));
      if (!files) continue;
      const rest = segments.slice(length);
      if (rest.length === 0) {
        if (!wildcard) continue;
        return { kind: "file", targets: files.map((file) => file.real).sort(), via: "jvm_package" };
      }
      const name = rest[0]!;
      const declaring = files.filter(
        (file) => stem(file.real) === name || file.facts.symbols.some((symbol) => symbol.name === name && symbol.parent === undefined),
      );
      if (declaring.length > 0) return { kind: "file", targets: declaring.map((file) => file.real).sort(), via: "jvm_package" };
      return unresolved("not_found", `package ${segments.slice(0, length).join(".")} declares no ${name}`);
    }
    const first = segments[0]!;
    return { kind: "external", package: segments.slice(0, Math.min(2, segments.length)).join("."), builtin: BUILTIN_PREFIXES.includes(first) };
  }
}
