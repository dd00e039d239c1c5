/**
 * Finds the project a file belongs to; TypeScriptProjects keeps a bounded number of projects
 * (language services) alive per process, least recently used first out.
 */
import path from "node:path";
import type * as TS from "typescript";
import { isToolError, ToolError } from "../../core/errors.ts";
import { LIMITS } from "../../core/limits.ts";
import { languageOf } from "../../syntax/index.ts";
import type { ResolvedPath, Workspace } from "../../policy/workspace.ts";
import { loadTypeScript } from "./load.ts";
import { TsProject } from "./project.ts";

const CONFIG_NAMES = ["tsconfig.json", "jsconfig.json"] as const;

const TYPED_LANGUAGES = new Set(["typescript", "tsx", "javascript"]);

/** Whether typed answers apply to a file (TypeScript or JavaScript by name). */
export function supportsTypedAnswers(filePath: string): boolean {
  return TYPED_LANGUAGES.has(languageOf(filePath, undefined) ?? "");
}

export function requireTypedLanguage(resolved: ResolvedPath): void {
  if (!supportsTypedAnswers(resolved.real)) {
    throw new ToolError("invalid_input", `${resolved.display} is not a TypeScript or JavaScript file; typed answers cover .ts, .tsx, .mts, .cts, .js, .jsx, .mjs and .cjs files.`, {
      hint: "Leave typed off for other languages; the syntax-tree answer covers them.",
    });
  }
}

/** The nearest tsconfig.json (or jsconfig.json) from the file up to its root, asked through the policy. */
async function findProjectConfig(workspace: Workspace, resolved: ResolvedPath): Promise<string | undefined> {
  const stop = resolved.root.real;
  for (let directory = path.dirname(resolved.real);; directory = path.dirname(directory)) {
    for (const name of CONFIG_NAMES) {
      try {
        const candidate = await workspace.resolve(path.join(directory, name), "read");
        if (candidate.exists && candidate.kind === "file") return candidate.real;
      } catch (error) {
        // A denied or unreadable config is as good as none.
        if (!isToolError(error)) throw error;
      }
    }
    if (directory === stop || path.dirname(directory) === directory || !directory.startsWith(stop)) return undefined;
  }
}

export interface TypeScriptProjectsOptions {
  /** Projects (language services) kept alive; the least recently used beyond this is disposed. */
  maxServices?: number;
}

/**
 * The long-lived TypeScript projects of one process (ToolServices.typescript): one per policy and
 * config file, created on first use, refreshed by every call, least recently used disposed first.
 */
export class TypeScriptProjects {
  readonly #projects = new Map<string, TsProject>();
  readonly #policyIds = new WeakMap<object, number>();
  #nextPolicyId = 1;
  readonly #maxServices: number;
  /** Parsed files (lib.d.ts above all) shared by every project's language service. */
  #registry: TS.DocumentRegistry | undefined;

  constructor(options: TypeScriptProjectsOptions = {}) {
    this.#maxServices = options.maxServices ?? LIMITS.intel.typescript.maxServices;
  }

  #policyKey(workspace: Workspace): string {
    let id = this.#policyIds.get(workspace.policyIdentity);
    if (id === undefined) {
      id = this.#nextPolicyId++;
      this.#policyIds.set(workspace.policyIdentity, id);
    }
    return `${id}|${workspace.roots.map((root) => root.real).join("\0")}`;
  }

  /** The project for a file. */
  async projectFor(workspace: Workspace, resolved: ResolvedPath): Promise<TsProject> {
    const ts = await loadTypeScript();
    const configFile = await findProjectConfig(workspace, resolved);
    const key = `${this.#policyKey(workspace)}|${configFile ?? `inferred:${resolved.root.real}`}`;
    const existing = this.#projects.get(key);
    if (existing) {
      this.#projects.delete(key);
      this.#projects.set(key, existing);
      return existing;
    }
    this.#registry ??= ts.createDocumentRegistry(ts.sys.useCaseSensitiveFileNames);
    const project = new TsProject(ts, workspace, configFile, configFile ? path.dirname(configFile) : resolved.root.real, this.#registry);
    this.#projects.set(key, project);
    while (this.#projects.size > this.#maxServices) {
      const [oldestKey, oldest] = this.#projects.entries().next().value as [string, TsProject];
      this.#projects.delete(oldestKey);
      oldest.dispose();
    }
    return project;
  }

  /** How many projects are alive (for tests and status). */
  get liveCount(): number {
    return this.#projects.size;
  }

  /** Disposes every project (shutdown, the end of a test). */
  disposeAll(): void {
    for (const project of this.#projects.values()) project.dispose();
    this.#projects.clear();
  }
}
