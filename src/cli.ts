#!/usr/bin/env node
/**
 * The ast-mcp command line. Output for people goes through CommandIO; console.* is routed to
 * stderr before anything else runs, so no dependency can corrupt a stdout that carries JSON-RPC.
 */
import "./cli/guard-stdout.ts";
import { UsageError } from "./cli/args.ts";
import { runConfigCommand } from "./cli/config-command.ts";
import { processIO, type CommandIO } from "./cli/io.ts";
import { MCP_USAGE, runMcpCommand } from "./cli/mcp-command.ts";
import { log } from "./core/log.ts";
import { VERSION } from "./core/version.ts";

const USAGE = `Usage: ast-mcp <command> [options]

Commands:
  mcp       Serve the tools to an MCP host over stdio (default) or Streamable HTTP
  config    validate | show [--json]: check or print the effective configuration

Options:
  -h, --help     Show help (also \`ast-mcp <command> --help\`)
  --version      Print the version

Run \`ast-mcp mcp --help\` for the server's options.
`;

type Command = (argv: string[], io: CommandIO) => Promise<number>;

const COMMANDS: Record<string, { run: Command; usage: string }> = {
  mcp: { run: runMcpCommand, usage: MCP_USAGE },
  config: { run: runConfigCommand, usage: "Usage: ast-mcp config validate|show [--json] [ROOT…]\n" },
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
      io.stderr(`ast-mcp ${first}: ${error.message}\n\n${command.usage}`);
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
