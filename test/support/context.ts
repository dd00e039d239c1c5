/** Builds a ToolContext over real temp directories, and runs tools the way the server does. */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEFAULT_CONFIG, DEFAULT_RULES, type PathRule } from "../../src/config/schema.ts";
import type { ConfigSnapshot } from "../../src/config/types.ts";
import { Workspace } from "../../src/policy/workspace.ts";
import type { AnyTool, ToolContext } from "../../src/tools/contract.ts";
import { ToolError } from "../../src/core/errors.ts";
import { createToolServices } from "../../src/tools/index.ts";
import type { ToolServices } from "../../src/tools/services.ts";

export interface TempDir {
  dir: string;
  /** Writes a file (creating parent directories) relative to the temp dir; returns its absolute path. */
  write(relative: string, content: string | Uint8Array): Promise<string>;
  cleanup(): Promise<void>;
}

export async function makeTempDir(prefix = "ast-mcp-test-"): Promise<TempDir> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return {
    dir,
    async write(relative, content) {
      const target = path.join(dir, relative);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, content);
      return target;
    },
    cleanup: () => rm(dir, { recursive: true, force: true, maxRetries: 5 }),
  };
}

export interface ContextOptions {
  /** Rules evaluated after the default rules. */
  rules?: Omit<PathRule, "source">[];
  snapshot?: Partial<ConfigSnapshot>;
  /** Services to share with another context; a fresh set by default. */
  services?: ToolServices;
  /** The session the calls belong to (default "test-session"). */
  sessionId?: string;
  /** Build the context of a stateless (2026-07-28) request instead of a legacy session's. */
  stateless?: boolean;
  /** The authenticated client the request came from (an OAuth subject); none by default. */
  principal?: string;
}

export async function makeContext(roots: string[], options: ContextOptions = {}): Promise<ToolContext> {
  const paths: PathRule[] = [...DEFAULT_RULES, ...(options.rules ?? []).map((rule) => ({ ...rule, source: "user:/test/ast-mcp.toml" }))];
  const workspace = await Workspace.create({ workspace: { roots }, paths });
  const config: ConfigSnapshot = {
    config: { ...DEFAULT_CONFIG, workspace: { roots }, paths, formatters: [] },
    sources: {},
    problems: [],
    warnings: [],
    files: { user: "/test/user/ast-mcp.toml", userExists: false, project: undefined, projectExists: false },
    generation: 1,
    token: undefined,
    ...options.snapshot,
  };
  return {
    workspace,
    config,
    sessionId: options.sessionId ?? "test-session",
    stateless: options.stateless ?? false,
    ...(options.principal === undefined ? {} : { principal: options.principal }),
    signal: new AbortController().signal,
    services: options.services ?? createToolServices(),
  };
}

/** Validates input and output against the tool's schemas around the handler, as the server does. */
export async function runTool(tool: AnyTool, args: unknown, context: ToolContext): Promise<any> {
  const input = tool.input.parse(args);
  const result = await tool.handler(input, context);
  return tool.output.parse(result);
}

/** Awaits a call that must fail with a ToolError and returns that error (anything else fails the test). */
export async function toolFailure(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error("expected a ToolError");
}
