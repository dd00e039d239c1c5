#!/usr/bin/env node
/**
 * The ast-mcp command line. Output for people goes through CommandIO; console.* is routed to
 * stderr before anything else runs, so no dependency can corrupt a stdout that carries JSON-RPC.
 */
import "./cli/guard-stdout.ts";
import { UsageError } from "./cli/args.ts";
import { processIO, type CommandIO } from "./cli/io.ts";
import { log } from "./core/log.ts";
import { VERSION } from "./core/version.ts";

const USAGE = `Usage: ast-mcp <command> [options]

Commands:
  mcp       Serve the tools to an MCP host over stdio (default) or Streamable HTTP
  config    validate | show [--json]: check or print the effective configuration
  journal   list | show ID | undo ID | recover: the write journal (undo, crash recovery)
  install   register ast-mcp with coding hosts (--target claude|codex|copilot|vscode|cursor|gemini|claude-desktop|all)
  update    re-point installed entries at this executable and refresh their templates
  uninstall remove exactly what install added
  hook      the PreToolUse hook hosts run (reads the event on stdin)
  doctor    check the installation and say what to fix

Options:
  -h, --help     Show help (also \`ast-mcp <command> --help\`)
  --version      Print the version

Run \`ast-mcp mcp --help\` for the server's options.
`;

type Command = (argv: string[], io: CommandIO) => Promise<number>;

/**
 * Commands load on first use (dynamic import, split into chunks by the bundler), so a quick
 * command such as `hook`, which hosts run before every tool call, does not pay for the server.
 */
function lazy<M>(load: () => Promise<M>, pick: (module: M) => Command): Command {
  return async (argv, io) => pick(await load())(argv, io);
}

const COMMANDS: Record<string, { run: Command; usage: string | (() => Promise<string>) }> = {
  mcp: { run: lazy(() => import("./cli/mcp-command.ts"), (m) => m.runMcpCommand), usage: () => import("./cli/mcp-command.ts").then((m) => m.MCP_USAGE) },
  config: { run: lazy(() => import("./cli/config-command.ts"), (m) => m.runConfigCommand), usage: "Usage: ast-mcp config validate|show [--json] [ROOT…]\n" },
  journal: { run: lazy(() => import("./cli/journal-command.ts"), (m) => m.runJournalCommand), usage: () => import("./cli/journal-command.ts").then((m) => m.JOURNAL_USAGE) },
  install: { run: lazy(() => import("./cli/install-command.ts"), (m) => m.runInstallCommand), usage: () => import("./cli/install-command.ts").then((m) => m.INSTALL_USAGE) },
  update: { run: lazy(() => import("./cli/install-command.ts"), (m) => m.runUpdateCommand), usage: () => import("./cli/install-command.ts").then((m) => m.UPDATE_USAGE) },
  uninstall: { run: lazy(() => import("./cli/install-command.ts"), (m) => m.runUninstallCommand), usage: () => import("./cli/install-command.ts").then((m) => m.UNINSTALL_USAGE) },
  hook: { run: lazy(() => import("./cli/hook-command.ts"), (m) => m.runHookCommand), usage: () => import("./cli/hook-command.ts").then((m) => m.HOOK_USAGE) },
  doctor: { run: lazy(() => import("./cli/doctor-command.ts"), (m) => m.runDoctorCommand), usage: () => import("./cli/doctor-command.ts").then((m) => m.DOCTOR_USAGE) },
};

export async function main(argv: string[], io: CommandIO): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === "--help" || first === "-h" || first === "help") {
    if (first === undefined) {
      io.stderr(USAGE);
      return 2;
    }
    io.stdout(USAGE);
    return 0;
  }
  if (first === "--version" || first === "-v") {
    io.stdout(`${VERSION}\n`);
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, first) ? COMMANDS[first] : undefined;
  if (!command) {
    io.stderr(`ast-mcp: unknown command ${JSON.stringify(first)}\n\n${USAGE}`);
    return 2;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      const usage = typeof command.usage === "string" ? command.usage : await command.usage();
      io.stderr(`ast-mcp ${first}: ${error.message}\n\n${usage}`);
      return 2;
    }
    throw error;
  }
}

main(process.argv.slice(2), processIO()).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    log.error("fatal", { error });
    process.exitCode = 1;
  },
);
