/** Temp workspaces and a counting extractor for the code index tests. */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEFAULT_RULES, type PathRule } from "../../../src/config/schema.ts";
import { extractFacts } from "../../../src/intel/facts/extract.ts";
import { type CodeIndex, type CodeIndexOptions, DEFAULT_INDEX_SETTINGS, type FactsExtractor, IndexRegistry, type IndexSettings } from "../../../src/intel/index/index.ts";
import { Workspace } from "../../../src/policy/workspace.ts";

export interface IndexFixture {
  root: string;
  cacheDir: string;
  workspace: Workspace;
  /** The fixture's own registry: its indexes live and close with the fixture. */
  registry: IndexRegistry;
  /** Texts the extractor was called with, in order (a parse each). */
  extracted: string[];
  extract: FactsExtractor;
  write(relative: string, content: string | Uint8Array): Promise<string>;
  remove(relative: string): Promise<void>;
  path(relative: string): string;
  index(options?: Omit<Partial<CodeIndexOptions>, "settings"> & { settings?: Partial<IndexSettings> }): CodeIndex;
  cleanup(): Promise<void>;
}

export async function makeIndexFixture(options: { rules?: Omit<PathRule, "source">[] } = {}): Promise<IndexFixture> {
  const root = await mkdtemp(path.join(tmpdir(), "ast-mcp-index-"));
  const cacheDir = await mkdtemp(path.join(tmpdir(), "ast-mcp-cache-"));
  const paths: PathRule[] = [...DEFAULT_RULES, ...(options.rules ?? []).map((rule) => ({ ...rule, source: "user:/test/ast-mcp.toml" }))];
  const workspace = await Workspace.create({ workspace: { roots: [root] }, paths });
  const extracted: string[] = [];
  // The real extractor, counted: every call is one parse the index asked for.
  const extract: FactsExtractor = (language, text, tree, options) => {
    extracted.push(text);
    return extractFacts(language, text, tree, options);
  };
  const registry = new IndexRegistry();
  const fixture: IndexFixture = {
    root,
    cacheDir,
    workspace,
    registry,
    extracted,
    extract,
    async write(relative, content) {
      const target = path.join(root, relative);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, content);
      return target;
    },
    remove: (relative) => rm(path.join(root, relative), { recursive: true, force: true }),
    path: (relative) => path.join(root, relative),
    index(overrides = {}) {
      const { settings, ...rest } = overrides;
      return registry.for(workspace, {
        cacheDir,
        watch: "off",
        extract,
        extractorVersion: "test",
        ...rest,
        settings: { ...DEFAULT_INDEX_SETTINGS, persist: false, ...settings },
      });
    },
    async cleanup() {
      registry.closeAll();
      await rm(root, { recursive: true, force: true });
      await rm(cacheDir, { recursive: true, force: true });
    },
  };
  return fixture;
}

/** Display paths of the indexed files, sorted. */
export function indexedPaths(index: CodeIndex): string[] {
  return index.files().map((file) => file.display).sort();
}
