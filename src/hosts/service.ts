/**
 * `ast-mcp install --service`: a per-user background service running the HTTP server on an
 * explicit port with a token — a systemd user unit on Linux, a launchd agent on macOS, a clear
 * manual command elsewhere. A service on loopback is reachable by every local user, so it always
 * gets a token, kept in a file only the user can read and handed over by environment variable.
 * The systemctl/launchctl calls and the health probe are injected, so tests never touch a real
 * service manager.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import { LIMITS } from "../core/limits.ts";
import { healthUrlFor } from "../helpers/loopback-url.ts";
import { shellQuote } from "../helpers/shell-quote.ts";
import { renderSystemdCommand, renderSystemdEnvironment } from "../helpers/systemd.ts";
import { astMcpConfigDir, joinPath, xdgConfigHome, type HostEnvironment } from "./environment.ts";
import { serverEnvironment } from "./targets.ts";

const SERVICE_NAME = "ast-mcp.service";
const LAUNCHD_LABEL = "dev.ast-mcp.server";
const TOKEN_FILE_NAME = "service-token";
/** The variable the service reads its token file path from (the [http].token_file setting). */
export const TOKEN_FILE_ENV = "AST_MCP_HTTP_TOKEN_FILE";

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ServiceDeps {
  /** Runs systemctl / launchctl. */
  run: (command: string, args: string[]) => Promise<CommandResult>;
  /** GET a URL; resolves with the status code, rejects when nothing answers. */
  probe: (url: string) => Promise<number>;
  sleep: (ms: number) => Promise<void>;
  uid: number;
}

export function defaultServiceDeps(): ServiceDeps {
  return {
    run: (command, args) =>
      new Promise((resolve) => {
        const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
        child.on("error", (error) => resolve({ code: 127, stdout, stderr: error.message }));
        child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
      }),
    probe: async (url) => (await fetch(url, { signal: AbortSignal.timeout(2_000) })).status,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    uid: typeof process.getuid === "function" ? process.getuid() : 0,
  };
}

export interface ServiceSpec {
  manager: "systemd" | "launchd";
  unitFile: string;
  unitContent: string;
  label: string;
  host: string;
  port: number;
  tokenFile: string;
  /** The command line the service runs (for messages and tests). */
  argv: string[];
}

function tokenFilePath(he: HostEnvironment): string {
  return joinPath(he, astMcpConfigDir(he), TOKEN_FILE_NAME);
}

/** A fresh token: 32 random bytes, base64url, one line. */
export function newToken(): string {
  return `${randomBytes(32).toString("base64url")}\n`;
}

function xmlEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function systemdUnit(argv: string[], environment: Record<string, string>): string {
  return [
    "# Written by `ast-mcp install --service`; `ast-mcp uninstall` removes it.",
    "[Unit]",
    "Description=ast-mcp MCP server (Streamable HTTP)",
    "",
    "[Service]",
    "Type=simple",
    ...Object.entries(environment).map(([name, value]) => renderSystemdEnvironment(name, value)),
    `ExecStart=${renderSystemdCommand(argv)}`,
    "Restart=on-failure",
    "RestartSec=2",
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ].join("\n");
}

function launchdPlist(argv: string[], environment: Record<string, string>, logFile: string): string {
  const strings = (items: string[], indent: string) => items.map((item) => `${indent}<string>${xmlEscape(item)}</string>`).join("\n");
  const env = Object.entries(environment)
    .map(([name, value]) => `    <key>${xmlEscape(name)}</key>\n    <string>${xmlEscape(value)}</string>`)
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Written by \`ast-mcp install --service\`; \`ast-mcp uninstall\` removes it. -->
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${LAUNCHD_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
${strings(argv, "    ")}
  </array>
  <key>EnvironmentVariables</key>
  <dict>
${env}
  </dict>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <true/>
  <key>StandardErrorPath</key>
  <string>${xmlEscape(logFile)}</string>
</dict>
</plist>
`;
}

/**
 * The service definition for this platform, or the reason there is none (with the command to run
 * by hand). `executable` must be absolute; `nodePath` is the runtime that runs it.
 */
export function planService(
  he: HostEnvironment,
  options: { nodePath: string; executable: string; host: string; port: number; roots: string[] },
): ServiceSpec | { unsupported: string } {
  const tokenFile = tokenFilePath(he);
  const argv = [options.nodePath, options.executable, "mcp", "--transport", "http", "--host", options.host, "--port", String(options.port), ...options.roots];
  const environment = { ...serverEnvironment(he.platform), [TOKEN_FILE_ENV]: tokenFile, AST_MCP_LOG_LEVEL: "info" };
  if (he.platform === "linux") {
    const unitFile = joinPath(he, xdgConfigHome(he), "systemd", "user", SERVICE_NAME);
    return { manager: "systemd", unitFile, unitContent: systemdUnit(argv, environment), label: SERVICE_NAME, host: options.host, port: options.port, tokenFile, argv };
  }
  if (he.platform === "darwin") {
    const unitFile = joinPath(he, he.home, "Library", "LaunchAgents", `${LAUNCHD_LABEL}.plist`);
    const logFile = joinPath(he, he.home, "Library", "Logs", "ast-mcp.log");
    return { manager: "launchd", unitFile, unitContent: launchdPlist(argv, environment, logFile), label: LAUNCHD_LABEL, host: options.host, port: options.port, tokenFile, argv };
  }
  const manual = `${TOKEN_FILE_ENV}=${shellQuote(tokenFile)} ${argv.map(shellQuote).join(" ")}`;
  return {
    unsupported:
      `no service manager support on ${he.platform}; start the server yourself (for example from your login scripts) with:\n  ${manual}\nafter putting a token in ${tokenFile}`,
  };
}

async function checked(deps: ServiceDeps, command: string, args: string[]): Promise<void> {
  const result = await deps.run(command, args);
  if (result.code !== 0) throw new Error(`${command} ${args.join(" ")} failed (exit ${result.code}): ${result.stderr.trim() || result.stdout.trim()}`);
}

/** Waits until GET /healthz answers 200. */
export async function waitHealthy(deps: ServiceDeps, host: string, port: number, timeoutMs: number = LIMITS.hosts.serviceHealthTimeoutMs): Promise<boolean> {
  const url = healthUrlFor(host, port);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await deps.probe(url)) === 200) return true;
    } catch {
      // not listening yet
    }
    if (Date.now() >= deadline) return false;
    await deps.sleep(250);
  }
}

/** (Re)starts the service after its unit file was written, and checks /healthz. */
export async function startService(spec: Pick<ServiceSpec, "manager" | "unitFile" | "label" | "host" | "port">, deps: ServiceDeps): Promise<void> {
  if (spec.manager === "systemd") {
    await checked(deps, "systemctl", ["--user", "daemon-reload"]);
    await checked(deps, "systemctl", ["--user", "enable", spec.label]);
    await checked(deps, "systemctl", ["--user", "restart", spec.label]);
  } else {
    // bootout fails when the agent is not loaded yet; that is fine.
    await deps.run("launchctl", ["bootout", `gui/${deps.uid}/${spec.label}`]);
    await checked(deps, "launchctl", ["bootstrap", `gui/${deps.uid}`, spec.unitFile]);
  }
  if (!(await waitHealthy(deps, spec.host, spec.port))) {
    const logs = spec.manager === "systemd" ? `journalctl --user -u ${spec.label}` : "~/Library/Logs/ast-mcp.log";
    throw new Error(`the service did not answer ${healthUrlFor(spec.host, spec.port)} in time; see ${logs}`);
  }
}

/** Stops and disables the service before its unit file is removed. */
export async function stopService(spec: Pick<ServiceSpec, "manager" | "label">, deps: ServiceDeps): Promise<string | undefined> {
  const result = spec.manager === "systemd" ?
    await deps.run("systemctl", ["--user", "disable", "--now", spec.label]) :
    await deps.run("launchctl", ["bootout", `gui/${deps.uid}/${spec.label}`]);
  return result.code === 0 ? undefined : `stopping ${spec.label} failed (exit ${result.code}): ${result.stderr.trim()}`;
}

/** Reloads systemd after the unit file is gone (launchd needs nothing). */
export async function afterServiceRemoved(spec: Pick<ServiceSpec, "manager">, deps: ServiceDeps): Promise<void> {
  if (spec.manager === "systemd") await deps.run("systemctl", ["--user", "daemon-reload"]);
}

/** Whether a token file exists already (install reuses it rather than rotating a working token). */
export async function existingToken(tokenFile: string): Promise<boolean> {
  try {
    return (await fs.stat(tokenFile)).isFile();
  } catch {
    return false;
  }
}
