/**
 * `ast-mcp doctor`: checks the installation and prints what to fix; exit 1 when a check fails.
 */
import { hostEnvironment } from "../hosts/environment.ts";
import { probeWithMcp, renderChecks, runDoctor, type EntryProbe } from "../hosts/doctor.ts";
import { parseFlags } from "./args.ts";
import type { CommandIO } from "./io.ts";

export const DOCTOR_USAGE = `Usage: ast-mcp doctor [--json] [--no-probe]

Checks an installation and says what to fix: the executable and package versions, the
configuration files, the language parsers and formatter plugins, every host entry that names
ast-mcp (in this project and globally: does its command start and list the tools?), the hooks,
the service (GET /healthz), and the state and journal directories.

  --json      print the checks as JSON
  --no-probe  do not start the servers the entries name
`;

const FLAGS = { help: { type: "boolean" }, json: { type: "boolean" }, "no-probe": { type: "boolean" } } as const;

export interface DoctorCommandDeps {
  probe?: EntryProbe;
  httpStatus?: (url: string) => Promise<number>;
  cliPath?: string;
}

export async function runDoctorCommand(argv: string[], io: CommandIO, deps: DoctorCommandDeps = {}): Promise<number> {
  const flags = parseFlags(argv, FLAGS, DOCTOR_USAGE, io.stdout);
  if (!flags) return 0;
  const checks = await runDoctor({
    he: hostEnvironment({ cwd: io.cwd, env: io.env }),
    cliPath: deps.cliPath ?? process.argv[1] ?? "",
    probe: flags["no-probe"] ? undefined : (deps.probe ?? probeWithMcp),
    httpStatus: deps.httpStatus ?? (async (url) => (await fetch(url, { signal: AbortSignal.timeout(3_000) })).status),
  });
  io.stdout(flags.json ? `${JSON.stringify({ checks }, null, 2)}\n` : renderChecks(checks));
  return checks.some((item) => item.status === "fail") ? 1 : 0;
}
