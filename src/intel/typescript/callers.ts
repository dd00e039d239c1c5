/**
 * Callers as the TypeScript compiler resolves them: the call sites among a symbol's references,
 * then (for depth > 1) the call sites of the functions those calls are written in.
 */
import { isToolError } from "../../core/errors.ts";
import type { ResolvedPath, Workspace } from "../../policy/workspace.ts";
import type { ProjectInfo } from "./project.ts";
import { type TypedOptions, typedReferences } from "./typed.ts";

export interface TypedCall {
  path: string;
  line: number;
  column: number;
  /** The callee as written. */
  callee: string;
  /** The named function the call is written in (absent at module level). */
  caller?: string;
  /** 1 = calls the symbol; n = calls a function n - 1 levels up. */
  depth: number;
  /** What is called: "path#Name". */
  target: string;
}

export interface TypedCallers {
  project: ProjectInfo;
  /** The symbol as the compiler shows it. */
  symbol: string;
  calls: TypedCall[];
  /** Why the answer may be incomplete: the limit, reference caps, callers the compiler could not follow. */
  limits: string[];
}

export async function typedCallers(
  workspace: Workspace,
  resolved: ResolvedPath,
  symbolName: string,
  options: TypedOptions & { depth: number; limit: number },
): Promise<TypedCallers> {
  const first = await typedReferences(workspace, resolved, { symbolName }, options);
  const calls: TypedCall[] = [];
  const limits = new Set<string>();
  const visited = new Set<string>([`${resolved.display}#${symbolName}`]);
  const notFollowed: string[] = [];
  let frontier: Array<{ path: string; name: string; references: typeof first.references; complete: boolean }> = [
    { path: resolved.display, name: symbolName, references: first.references, complete: first.complete },
  ];
  for (let depth = 1; depth <= options.depth && frontier.length > 0; depth++) {
    const next: Array<{ path: string; name: string }> = [];
    for (const target of frontier) {
      if (!target.complete) limits.add("intel.typescript.maxReferences");
      for (const reference of target.references) {
        if (!reference.isCall || reference.isDefinition) continue;
        if (calls.length >= options.limit) {
          limits.add(`limit = ${options.limit}`);
          break;
        }
        calls.push({
          path: reference.path,
          line: reference.line,
          column: reference.column,
          callee: reference.callee ?? target.name,
          ...(reference.enclosing !== undefined ? { caller: reference.enclosing } : {}),
          depth,
          target: `${target.path}#${target.name}`,
        });
        const key = `${reference.path}#${reference.enclosing}`;
        if (reference.enclosing !== undefined && !visited.has(key)) {
          visited.add(key);
          next.push({ path: reference.path, name: reference.enclosing });
        }
      }
    }
    if (depth === options.depth || calls.length >= options.limit) break;
    const expanded: typeof frontier = [];
    for (const caller of next) {
      try {
        const callerFile = await workspace.resolve(caller.path, "read");
        const references = await typedReferences(workspace, callerFile, { symbolName: caller.name }, options);
        expanded.push({ path: caller.path, name: caller.name, references: references.references, complete: references.complete });
      } catch (error) {
        if (!isToolError(error)) throw error;
        // A caller the compiler cannot name back (a computed member, an ambiguous local) ends that branch.
        notFollowed.push(`${caller.path}#${caller.name}`);
      }
    }
    frontier = expanded;
  }
  if (notFollowed.length > 0) limits.add(`${notFollowed.length} caller(s) not followed further, e.g. ${notFollowed.slice(0, 3).join(", ")}`);
  return { project: first.project, symbol: first.symbol, calls, limits: [...limits] };
}
