/**
 * Finds the project a file belongs to and keeps a bounded number of projects (language services)
 * alive, least recently used first out.
 */
import path from "node:path";
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

const policyIds = new WeakMap<object, number>();
let nextPolicyId = 1;

function policyKey(workspace: Workspace): string {
  let id = policyIds.get(workspace.policyIdentity);
  if (id === undefined) {
    id = nextPolicyId++;
    policyIds.set(workspace.policyIdentity, id);
  }
  return `${id}|${workspace.roots.map((root) => root.real).join("\0")}`;
}

/** The nearest tsconfig.json (or jsconfig.json) from the file up to its root, asked through the policy. */
export async function findProjectConfig(workspace: Workspace, resolved: ResolvedPath): Promise<string | undefined> {
  const stop = resolved.root.real;
  for (let directory = path.dirname(resolved.real); ; directory = path.dirname(directory)) {
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

const projects = new Map<string, TsProject>();

/** The long-lived project for a file: created on first use, refreshed by every call. */
export async function projectFor(workspace: Workspace, resolved: ResolvedPath): Promise<TsProject> {
  const ts = await loadTypeScript();
  const configFile = await findProjectConfig(workspace, resolved);
  const key = `${policyKey(workspace)}|${configFile ?? `inferred:${resolved.root.real}`}`;
  const existing = projects.get(key);
  if (existing) {
    projects.delete(key);
    projects.set(key, existing);
    return existing;
  }
  const project = new TsProject(ts, workspace, configFile, configFile ? path.dirname(configFile) : resolved.root.real);
  projects.set(key, project);
  while (projects.size > LIMITS.intel.typescript.maxServices) {
    const [oldestKey, oldest] = projects.entries().next().value as [string, TsProject];
    projects.delete(oldestKey);
    oldest.dispose();
  }
  return project;
}

/** How many projects are alive (for tests and status). */
export function liveProjectCount(): number {
  return projects.size;
}

/** Disposes every project (tests, shutdown). */
export function disposeAllProjects(): void {
  for (const project of projects.values()) project.dispose();
  projects.clear();
}
