/**
 * A stand-in for the code index over a real temp directory: files are written to disk (steering
 * files must be readable) and indexed with hand-built facts, so graph tests do not depend on the
 * extractors.
 */
import { mkdir, realpath } from "node:fs/promises";
import path from "node:path";
import { sha256Hex } from "../../../src/helpers/hash.ts";
import { languageFromPath, type LanguageId } from "../../../src/syntax/index.ts";
import type { CallFact, ExportedName, FileFacts, ImportFact, ImportKind, SymbolFact } from "../../../src/intel/facts/types.ts";
import type { GraphFile, GraphIndex } from "../../../src/intel/graph/types.ts";
import type { Workspace } from "../../../src/policy/workspace.ts";
import { type ContextOptions, makeContext, makeTempDir, type TempDir } from "../../support/context.ts";

export interface FileSpec {
  content?: string;
  language?: string;
  imports?: ImportFact[];
  symbols?: SymbolFact[];
  calls?: CallFact[];
  exportedNames?: ExportedName[];
}

export function imp(specifier: string, kind: ImportKind = "import", names: Array<[string, string]> | string[] = [], line = 1): ImportFact {
  return { specifier, kind, names: names.map((name) => (typeof name === "string" ? { local: name, imported: name } : { local: name[0], imported: name[1] })), line };
}

export function sym(name: string, options: Partial<SymbolFact> = {}): SymbolFact {
  const qualifiedName = options.qualifiedName ?? (options.parent ? `${options.parent}.${name}` : name);
  return {
    name,
    qualifiedName,
    kind: "function",
    visibility: "public",
    exported: true,
    startLine: 1,
    endLine: 1,
    signature: `function ${name}()`,
    ...options,
  };
}

export function call(callee: string, options: Partial<CallFact> = {}): CallFact {
  const match = /^(.*?)(?:\.|::)([^.:]+)$/.exec(callee);
  return { callee, name: match ? match[2]! : callee, line: 1, column: 1, ...(match ? { qualifier: match[1]! } : {}), ...options };
}

export class FakeIndex implements GraphIndex {
  generation = 1;
  readonly #files = new Map<string, GraphFile>();
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  files(): GraphFile[] {
    return [...this.#files.values()];
  }

  get(real: string): GraphFile | undefined {
    return this.#files.get(real);
  }

  put(relative: string, spec: FileSpec, content: string): GraphFile {
    const real = path.join(this.root, relative);
    // "text" stands for a file the index would give no language; the graph must not care.
    const language = (spec.language ?? languageFromPath(relative) ?? "text") as LanguageId;
    const facts: FileFacts = {
      language,
      parseErrors: 0,
      symbols: spec.symbols ?? [],
      imports: spec.imports ?? [],
      calls: spec.calls ?? [],
      exportedNames: spec.exportedNames ?? [],
    };
    const file: GraphFile = { real, display: relative, rootReal: this.root, language, sha256: sha256Hex(Buffer.from(`${content}\0${JSON.stringify(facts)}`)), facts };
    this.#files.set(real, file);
    this.generation++;
    return file;
  }

  remove(relative: string): void {
    this.#files.delete(path.join(this.root, relative));
    this.generation++;
  }
}

export interface Repo {
  temp: TempDir;
  root: string;
  workspace: Workspace;
  index: FakeIndex;
  real(relative: string): string;
  /** Writes and indexes a file; a string is content with no facts. */
  add(relative: string, spec: FileSpec | string): Promise<void>;
  cleanup(): Promise<void>;
}

export async function makeRepo(
  files: Record<string, FileSpec | string>,
  options: { rules?: ContextOptions["rules"]; extraRoots?: string[]; rootName?: string } = {},
): Promise<Repo> {
  const temp = await makeTempDir("ast-mcp-graph-");
  // rootName: the root is a folder of that name inside the temp directory (a root named like a package).
  const inRoot = (relative: string) => (options.rootName ? path.join(options.rootName, relative) : relative);
  await mkdir(path.join(temp.dir, inRoot("")), { recursive: true });
  const root = await realpath(path.join(temp.dir, inRoot("")));
  const index = new FakeIndex(root);
  const add = async (relative: string, spec: FileSpec | string) => {
    const normalized: FileSpec = typeof spec === "string" ? { content: spec } : spec;
    const content = normalized.content ?? `// ${relative}\n`;
    await temp.write(inRoot(relative), content);
    index.put(relative, normalized, content);
  };
  for (const [relative, spec] of Object.entries(files)) await add(relative, spec);
  const context = await makeContext([path.join(temp.dir, inRoot("")), ...(options.extraRoots ?? [])], options.rules ? { rules: options.rules } : {});
  return {
    temp,
    root,
    workspace: context.workspace,
    index,
    real: (relative) => path.join(root, relative),
    add,
    cleanup: () => temp.cleanup(),
  };
}
