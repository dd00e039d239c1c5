/**
 * `ast-mcp config validate|show [--json] [ROOT…]`: check the configuration files, or print the
 * effective configuration with the source of every value.
 */
import { loadConfig } from "../config/load.ts";
import type { ConfigSnapshot } from "../config/types.ts";
import { redactedView } from "../config/view.ts";
import type { RedactedConfigView } from "../config/view.ts";
import { parseArgs, UsageError } from "./args.ts";
import type { CommandIO } from "./io.ts";

const CONFIG_USAGE = `Usage: ast-mcp config <command> [--json] [ROOT...]

Commands:
  validate   Check the user and project configuration; lists every problem.
             Exits 1 when there is a problem, 0 otherwise (warnings do not fail).
  show       Print the effective configuration and where each value came from.

Options:
  --json     Print one JSON object instead of text.
  -h, --help Show this help.

ROOT       Workspace roots (as for \`ast-mcp mcp\`); the project file is <first root>/ast-mcp.toml.
`;

const EXIT_OK = 0;
const EXIT_INVALID = 1;
const EXIT_USAGE = 2;

const FLAGS = { help: { type: "boolean" }, json: { type: "boolean" } } as const;

function parseConfigArgs(argv: string[]): { subcommand: "validate" | "show"; json: boolean; roots: string[] } | { help: true } {
  const { flags, positionals } = parseArgs(argv, FLAGS);
  if (flags.help) return { help: true };
  const [first, ...roots] = positionals;
  if (first === undefined) throw new UsageError("missing command");
  if (first !== "validate" && first !== "show") throw new UsageError(`unknown command: ${first}`);
  return { subcommand: first, json: flags.json === true, roots };
}

function formatValue(value: unknown): string {
  return value === null ? "(not set)" : JSON.stringify(value);
}

function describeFiles(view: RedactedConfigView): string[] {
  const lines = [`# user config: ${view.files.user}${view.files.userExists ? "" : " (not found)"}`];
  if (view.files.project === undefined) lines.push("# project config: none (no workspace root)");
  else lines.push(`# project config: ${view.files.project}${view.files.projectExists ? "" : " (not found)"}`);
  return lines;
}

function problemLine(problem: { file: string; keyPath: string; message: string }): string {
  return `error: ${problem.file}: ${problem.keyPath === "" ? "" : `${problem.keyPath}: `}${problem.message}`;
}

function renderRule(rule: RedactedConfigView["rules"][number]): string {
  const parts = [`path = ${JSON.stringify(rule.path)}`];
  for (const key of ["read", "write", "delete"] as const) if (rule[key] !== undefined) parts.push(`${key} = ${rule[key]}`);
  if (rule.include !== undefined) parts.push(`include = ${JSON.stringify(rule.include)}`);
  if (rule.exclude !== undefined) parts.push(`exclude = ${JSON.stringify(rule.exclude)}`);
  if (rule.follow_symlinks !== undefined) parts.push(`follow_symlinks = ${rule.follow_symlinks}`);
  return `${parts.join(", ")}  # ${rule.source}`;
}

function renderShow(view: RedactedConfigView): string {
  const lines = describeFiles(view);
  for (const [key, setting] of Object.entries(view.settings)) lines.push(`${key} = ${formatValue(setting.value)}  # ${setting.source}`);
  lines.push(`# token: ${view.token.set ? `set (from ${view.token.source ?? "unknown"})` : "not set"}`);
  lines.push("# path rules, in order:");
  for (const rule of view.rules) lines.push(renderRule(rule));
  return `${lines.join("\n")}\n`;
}

function renderDiagnostics(snapshot: ConfigSnapshot): string {
  const lines = [...snapshot.warnings.map((warning) => `warning: ${warning}`), ...snapshot.problems.map(problemLine)];
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

export async function runConfigCommand(argv: string[], io: CommandIO): Promise<number> {
  let parsed: ReturnType<typeof parseConfigArgs>;
  try {
    parsed = parseConfigArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`ast-mcp config: ${error.message}\n\n${CONFIG_USAGE}`);
    return EXIT_USAGE;
  }
  if ("help" in parsed) {
    io.stdout(CONFIG_USAGE);
    return EXIT_OK;
  }

  const snapshot = await loadConfig({ cwd: io.cwd, cliRoots: parsed.roots, env: io.env });
  const view = redactedView(snapshot);

  if (parsed.subcommand === "validate") {
    const valid = snapshot.problems.length === 0;
    if (parsed.json) {
      io.stdout(`${JSON.stringify({ valid, problems: view.problems, warnings: view.warnings, files: view.files, roots: snapshot.config.workspace.roots }, null, 2)}\n`);
    } else {
      io.stdout(`${describeFiles(view).join("\n")}\n`);
      const diagnostics = renderDiagnostics(snapshot);
      if (diagnostics !== "") io.stderr(diagnostics);
      const count = snapshot.problems.length;
      io.stdout(valid ? "configuration is valid\n" : `configuration has ${count} problem${count === 1 ? "" : "s"}\n`);
    }
    return valid ? EXIT_OK : EXIT_INVALID;
  }

  if (parsed.json) {
    io.stdout(`${JSON.stringify(view, null, 2)}\n`);
  } else {
    io.stdout(renderShow(view));
    const diagnostics = renderDiagnostics(snapshot);
    if (diagnostics !== "") io.stderr(diagnostics);
  }
  return EXIT_OK;
}
