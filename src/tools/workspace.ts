/**
 * Workspace tools: policy_check (what the policy decides for paths, without touching them)
 * and config_status (the effective configuration, its sources and health, secrets redacted).
 */
import { z } from "zod";
import { isToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { redactedView } from "../config/view.ts";
import { capText } from "../helpers/text-cap.ts";
import { defineTool, READ_ONLY } from "./contract.ts";
import { DecisionOut, decisionOut, ItemErrorSchema, PathInput, renderItemError, type ItemError } from "./common.ts";

const OPERATION = z.enum(["read", "write", "delete"]);

const PolicyDecision = z.object({
  path: z.string().describe("The path as given."),
  operation: OPERATION,
  ...DecisionOut.shape,
  display: z.string().optional().describe("The in-root path the decision is about, as tools display it."),
});

const FailedCheck = z.object({ path: z.string(), operation: OPERATION, error: ItemErrorSchema });

export const policyCheckTool = defineTool({
  name: "policy_check",
  title: "Check path policy",
  description: "Whether the workspace policy allows reading, writing or deleting paths, and which rule decided. Has no side effects and does not require the paths to exist.",
  input: z.strictObject({
    checks: z
      .array(
        z.strictObject({
          path: PathInput.describe("A path, absolute or relative to the first root."),
          operation: OPERATION.describe("The operation to decide."),
        }),
      )
      .min(1)
      .max(LIMITS.batchPaths)
      .describe(`Path and operation pairs to decide, 1 to ${LIMITS.batchPaths}.`),
  }),
  output: z.object({ decisions: z.array(z.union([PolicyDecision, FailedCheck])).describe("One decision per check, in order.") }),
  annotations: READ_ONLY,
  // Policy refusals are decisions here; what remains is a path that could not be inspected.
  errors: ["io_error", "path_changed"],
  handler: async ({ checks }, context) => {
    const decisions = [];
    for (const { path, operation } of checks) {
      context.signal.throwIfAborted();
      try {
        const decision = await context.workspace.check(path, operation);
        decisions.push({ path: decision.path, operation: decision.operation, ...decisionOut(decision), ...(decision.display === undefined ? {} : { display: decision.display }) });
      } catch (error) {
        // check() reports policy refusals itself; what remains is an I/O failure while inspecting the path.
        if (!isToolError(error)) throw error;
        decisions.push({ path, operation, error: { code: error.code, message: error.message, hint: error.hint, retryable: error.retryable } });
      }
    }
    return { decisions };
  },
  render: ({ decisions }) =>
    capText(
      decisions
        .map((item) => {
          const label = `${item.operation} ${item.path}`;
          if ("error" in item) return renderItemError(label, item.error as ItemError);
          const rule = item.rule ? ` [rule ${JSON.stringify(item.rule.path)} from ${item.rule.source}]` : "";
          const verdict = item.allowed ? "allowed" : `denied (${item.code ?? "path_denied"})`;
          return `${label}: ${verdict}${rule} — ${item.reason}`;
        })
        .join("\n"),
      LIMITS.output.maxTextChars,
    ),
});

const PathRule = z
  .object({
    path: z.string(),
    read: z.enum(["allow", "deny"]).optional(),
    write: z.enum(["allow", "deny"]).optional(),
    delete: z.enum(["allow", "deny"]).optional(),
    include: z.array(z.string()).optional(),
    exclude: z.array(z.string()).optional(),
    follow_symlinks: z.boolean().optional(),
    source: z.string(),
  })
  .describe("A path rule.");

const ValueSourceText = z.string().describe("default, user:<file>, project:<file>, env:<VARIABLE> or cli:<flag>.");

export const configStatusTool = defineTool({
  name: "config_status",
  title: "Configuration status",
  description:
    "The effective configuration with the source of every value, the path rules, workspace roots, configuration problems and warnings, and overall health. Secrets are never shown.",
  input: z.strictObject({}),
  output: z.object({
    health: z
      .object({
        status: z.enum(["ok", "degraded"]),
        reasons: z.array(z.string()).describe("Why the server is degraded (empty when ok)."),
      })
      .describe("Whether the server can work as configured."),
    generation: z.number().int().describe("Configuration generation; increases whenever the effective configuration changes."),
    roots: z
      .array(
        z.object({
          display: z.string().describe("The root as tools display paths (\".\" for the first root); usable as input."),
          real: z.string().describe("The root's real path."),
        }),
      )
      .describe(
        "Workspace roots this call may use: the configured ones (a legacy client's announced roots narrow them for its session; a stateless request names directories as tool parameters instead).",
      ),
    settings: z
      .record(z.string(), z.object({ value: z.unknown(), source: ValueSourceText }))
      .describe("Dotted key (e.g. http.port) → effective value and its source; secret values are replaced by \"[redacted]\"."),
    rules: z.array(PathRule).describe("Path rules in evaluation order, each with its source."),
    token: z
      .object({ set: z.boolean(), source: z.string().nullable() })
      .describe("Whether an HTTP bearer token is configured and where from; the token itself is never shown."),
    files: z
      .object({ user: z.string(), userExists: z.boolean(), project: z.string().nullable(), projectExists: z.boolean() })
      .describe("The configuration files consulted."),
    problems: z
      .array(z.object({ file: z.string(), keyPath: z.string(), message: z.string() }))
      .describe("Problems that make the configuration invalid."),
    warnings: z.array(z.string()).describe("Settings ignored on purpose (e.g. allow rules in an untrusted project file)."),
  }),
  annotations: READ_ONLY,
  errors: [],
  handler: async (_args, context) => {
    const view = redactedView(context.config);
    const roots = context.workspace.roots.map((root) => ({ display: context.workspace.display(root.real), real: root.real }));
    const reasons: string[] = [];
    if (roots.length === 0) reasons.push("No workspace roots: every path is refused. Start the server with a root or set [workspace].roots.");
    if (view.problems.length > 0) {
      reasons.push(
        `${view.problems.length} configuration problem${view.problems.length === 1 ? "" : "s"}: ${
          view.problems.map((problem) => `${problem.keyPath || problem.file}: ${problem.message}`).join("; ")
        }`,
      );
    }
    return {
      health: { status: reasons.length === 0 ? ("ok" as const) : ("degraded" as const), reasons },
      generation: view.generation,
      roots,
      settings: view.settings,
      rules: view.rules,
      token: { set: view.token.set, source: view.token.source },
      files: { user: view.files.user, userExists: view.files.userExists, project: view.files.project ?? null, projectExists: view.files.projectExists },
      problems: view.problems,
      warnings: view.warnings,
    };
  },
  render: (status) => {
    const out: string[] = [`health: ${status.health.status}${status.health.reasons.map((reason) => `\n  - ${reason}`).join("")}`];
    out.push(`generation ${status.generation}`);
    out.push(status.roots.length === 0 ? "roots: none" : `roots:\n${status.roots.map((root) => `  ${root.display} = ${root.real}`).join("\n")}`);
    out.push(`settings:\n${Object.entries(status.settings).map(([key, setting]) => `  ${key} = ${JSON.stringify(setting.value)} (${setting.source})`).join("\n")}`);
    out.push(`token: ${status.token.set ? `set (${status.token.source ?? "unknown source"})` : "not set"}`);
    out.push(`rules (in order):\n${status.rules.map(renderRule).join("\n")}`);
    out.push(
      `files: user ${status.files.user}${status.files.userExists ? "" : " (absent)"}; project ${status.files.project ?? "none"}${
        status.files.project !== null && !status.files.projectExists ? " (absent)" : ""
      }`,
    );
    if (status.problems.length > 0) out.push(`problems:\n${status.problems.map((problem) => `  ${problem.file} ${problem.keyPath}: ${problem.message}`).join("\n")}`);
    if (status.warnings.length > 0) out.push(`warnings:\n${status.warnings.map((warning) => `  ${warning}`).join("\n")}`);
    return capText(out.join("\n"), LIMITS.output.maxTextChars);
  },
});

function renderRule(rule: z.output<typeof PathRule>): string {
  const access = (["read", "write", "delete"] as const).filter((operation) => rule[operation] !== undefined).map((operation) => `${operation}=${rule[operation]}`);
  if (rule.include) access.push(`include=${rule.include.join(",")}`);
  if (rule.exclude) access.push(`exclude=${rule.exclude.join(",")}`);
  if (rule.follow_symlinks !== undefined) access.push(`follow_symlinks=${rule.follow_symlinks}`);
  return `  ${rule.path} ${access.join(" ")} (${rule.source})`;
}
