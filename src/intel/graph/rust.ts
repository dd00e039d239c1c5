/**
 * Rust module resolution. `mod x;` in a crate root or `mod.rs` names `x.rs` or `x/mod.rs` next to
 * it; in `a.rs` it names `a/x.rs` or `a/x/mod.rs`. `use` paths start at `crate::`, `self::`,
 * `super::`, a workspace crate (its Cargo.toml package name), a child module, or an external
 * crate; the edge goes to the deepest module file the path names (the rest are items in it).
 * Groups (`use a::{b, c::d}`) are expanded. `#[path = …]` attributes are not followed.
 */
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import { log } from "../../core/log.ts";
import type { ImportFact } from "../facts/types.ts";
import { type LanguageResolver, NearestFile, type ResolveContext, unresolved } from "./context.ts";
import type { GraphFile, Resolution } from "./types.ts";

const BUILTIN_CRATES = new Set(["std", "core", "alloc", "proc_macro", "test"]);
/** Folders whose direct .rs files are each a crate root (besides src/lib.rs and src/main.rs). */
const ROOT_FOLDERS = ["tests", "examples", "benches"];

interface Crate {
  name: string | undefined;
  directory: string;
}

/** Where a file's module tree is anchored. */
interface ModuleBase {
  crate: Crate;
  /** Folder module paths are relative to. */
  base: string;
  /** The crate root file (module path []), when the base has one. */
  rootFile: string | undefined;
}

/** `a::{b, c::{d, self}}` → ["a::b", "a::c::d", "a::c"]; aliases (`as x`) dropped. */
function expandUseTree(text: string): string[] {
  const cleaned = text.replace(/\s+/g, " ").replace(/^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+/, "").replace(/;\s*$/, "").trim();
  const open = cleaned.indexOf("{");
  if (open === -1) return [cleaned.replace(/\s+as\s+\w+$/, "").trim()].filter((item) => item.length > 0);
  const prefix = cleaned.slice(0, open).replace(/::\s*$/, "");
  let depth = 0;
  let close = -1;
  for (let index = open; index < cleaned.length; index++) {
    if (cleaned[index] === "{") depth++;
    else if (cleaned[index] === "}" && --depth === 0) {
      close = index;
      break;
    }
  }
  const inner = cleaned.slice(open + 1, close === -1 ? cleaned.length : close);
  const parts: string[] = [];
  depth = 0;
  let start = 0;
  for (let index = 0; index < inner.length; index++) {
    const char = inner[index];
    if (char === "{") depth++;
    else if (char === "}") depth--;
    else if (char === "," && depth === 0) {
      parts.push(inner.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(inner.slice(start));
  const results: string[] = [];
  for (const part of parts) {
    const trimmed = part.trim();
    if (trimmed.length === 0) continue;
    if (trimmed === "self") {
      if (prefix.length > 0) results.push(prefix);
      continue;
    }
    for (const expanded of expandUseTree(trimmed)) results.push(prefix.length > 0 ? `${prefix}::${expanded}` : expanded);
  }
  return results;
}

export class RustResolver implements LanguageResolver {
  readonly #context: ResolveContext;
  readonly #nearestCargo: NearestFile;
  readonly #crates = new Map<string, Crate>();
  /** Crate name (as used in paths: "-" → "_") → crate. */
  readonly #byName = new Map<string, Crate>();

  constructor(context: ResolveContext) {
    this.#context = context;
    this.#nearestCargo = new NearestFile(context.configs, ["Cargo.toml"]);
  }

  async #crateOf(file: GraphFile): Promise<Crate | undefined> {
    const cargo = await this.#nearestCargo.find(path.dirname(file.real), file.rootReal);
    if (!cargo) return undefined;
    let crate = this.#crates.get(cargo.real);
    if (!crate) {
      let name: string | undefined;
      try {
        const manifest = parseToml(cargo.text) as { package?: { name?: unknown }; lib?: { name?: unknown } };
        const raw = typeof manifest.lib?.name === "string" ? manifest.lib.name : manifest.package?.name;
        if (typeof raw === "string") name = raw.replace(/-/g, "_");
      } catch (error) {
        log.debug("Cargo.toml does not parse", { path: cargo.display, error });
      }
      crate = { name, directory: path.dirname(cargo.real) };
      this.#crates.set(cargo.real, crate);
      if (name && !this.#byName.has(name)) this.#byName.set(name, crate);
    }
    return crate;
  }

  async prepare(files: readonly GraphFile[]): Promise<void> {
    const seen = new Set<string>();
    for (const file of files) {
      const directory = path.dirname(file.real);
      if (seen.has(directory)) continue;
      seen.add(directory);
      await this.#crateOf(file);
    }
  }

  #moduleBase(crate: Crate, real: string): ModuleBase {
    const relative = path.relative(crate.directory, real).split(path.sep);
    const table = this.#context.table;
    const src = path.join(crate.directory, "src");
    if (relative[0] === "src" && relative[1] === "bin" && relative.length >= 3) {
      if (relative.length === 3) return { crate, base: path.join(src, "bin"), rootFile: real };
      const base = path.join(src, "bin", relative[2]!);
      return { crate, base, rootFile: table.first([path.join(base, "main.rs")]) };
    }
    const folder = relative[0];
    if (folder !== undefined && ROOT_FOLDERS.includes(folder)) {
      const base = path.join(crate.directory, folder);
      return { crate, base, rootFile: relative.length === 2 ? real : undefined };
    }
    if (relative.length === 1) return { crate, base: crate.directory, rootFile: real };
    return { crate, base: src, rootFile: table.first([path.join(src, "lib.rs"), path.join(src, "main.rs")]) };
  }

  /** A file's module path below its base: lib.rs → [], a.rs → [a], a/mod.rs → [a], a/b.rs → [a, b]. */
  #modulePath(anchor: ModuleBase, real: string): string[] {
    if (real === anchor.rootFile) return [];
    const segments = path.relative(anchor.base, real).split(path.sep);
    const last = segments.pop() ?? "";
    if (last !== "mod.rs") segments.push(last.replace(/\.rs$/, ""));
    return segments;
  }

  #moduleFile(anchor: ModuleBase, segments: readonly string[]): string | undefined {
    if (segments.length === 0) return anchor.rootFile;
    const location = path.join(anchor.base, ...segments);
    return this.#context.table.first([`${location}.rs`, path.join(location, "mod.rs")]);
  }

  /** The deepest module file along `segments` (at least the root's), if any. */
  #deepest(anchor: ModuleBase, segments: readonly string[]): string | undefined {
    for (let length = segments.length; length >= 0; length--) {
      const found = this.#moduleFile(anchor, segments.slice(0, length));
      if (found) return found;
    }
    return undefined;
  }

  async resolve(file: GraphFile, fact: ImportFact): Promise<Resolution> {
    const crate = (await this.#crateOf(file)) ?? { name: undefined, directory: path.dirname(file.real) };
    const anchor = this.#moduleBase(crate, file.real);
    if (fact.kind === "mod") {
      const name = fact.specifier.trim();
      const isRootLike = path.basename(file.real) === "mod.rs" || file.real === anchor.rootFile;
      const children = isRootLike ? path.dirname(file.real) : path.join(path.dirname(file.real), path.basename(file.real, ".rs"));
      const found = this.#context.table.first([path.join(children, `${name}.rs`), path.join(children, name, "mod.rs")]);
      return found ? { kind: "file", targets: [found], via: "rust_mod" } : unresolved("not_found", `no file for mod ${name}`);
    }
    const targets: string[] = [];
    const problems: Resolution[] = [];
    for (const usePath of expandUseTree(fact.specifier)) {
      const resolution = this.#resolveUsePath(anchor, file.real, usePath);
      if (resolution.kind === "file") {
        for (const target of resolution.targets) if (!targets.includes(target)) targets.push(target);
      } else problems.push(resolution);
    }
    if (targets.length > 0) return { kind: "file", targets, via: "rust_path" };
    return problems[0] ?? unresolved("unsupported", `empty use path ${fact.specifier}`);
  }

  #resolveUsePath(anchor: ModuleBase, real: string, usePath: string): Resolution {
    const absolute = usePath.startsWith("::");
    const segments = usePath.replace(/^::/, "").split("::").map((segment) => segment.trim()).filter((segment) => segment.length > 0 && segment !== "*");
    const first = segments[0];
    if (first === undefined) return unresolved("unsupported", "empty use path");
    const current = this.#modulePath(anchor, real);
    let within: ModuleBase = anchor;
    let modulePath: string[] | undefined;
    if (!absolute && first === "crate") modulePath = segments.slice(1);
    else if (!absolute && first === "self") modulePath = [...current, ...segments.slice(1)];
    else if (!absolute && first === "super") {
      let up = 0;
      while (segments[up] === "super") up++;
      // A file's own module path names itself, so `super` from a.rs starts at a's parent.
      if (up > current.length) return unresolved("not_found", `${usePath} climbs above the crate root`);
      modulePath = [...current.slice(0, current.length - up), ...segments.slice(up)];
    } else {
      const other = this.#byName.get(first);
      if (other && other !== anchor.crate) {
        const src = path.join(other.directory, "src");
        within = { crate: other, base: src, rootFile: this.#context.table.first([path.join(src, "lib.rs"), path.join(src, "main.rs")]) };
        modulePath = segments.slice(1);
      } else if (other === anchor.crate && !absolute) {
        modulePath = segments.slice(1);
      } else if (!absolute && this.#moduleFile(anchor, [...current, first])) {
        modulePath = [...current, ...segments];
      } else if (!absolute && this.#moduleFile(anchor, [first])) {
        modulePath = segments;
      } else {
        return { kind: "external", package: first, builtin: BUILTIN_CRATES.has(first) };
      }
    }
    const found = this.#deepest(within, modulePath);
    return found ? { kind: "file", targets: [found], via: "rust_path" } : unresolved("not_found", `no module file for ${usePath}`);
  }
}
