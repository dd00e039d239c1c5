/**
 * `ast-mcp doctor`: checks an installation and says what to fix — the executable and package,
 * the configuration, the parsers and formatters, every host entry (does its command start and
 * list the tools?), the hooks, the service, and the state directories.
 */
import { promises as fs, constants as fsConstants, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { LIMITS } from "../core/limits.ts";
import { VERSION } from "../core/version.ts";
import { readJsonSlot } from "../helpers/json-edit.ts";
import { healthUrlFor } from "../helpers/loopback-url.ts";
import { parse as parseToml } from "smol-toml";
import { napi, packageRegistration } from "../syntax/index.ts";
import { stateDir, type HostEnvironment } from "./environment.ts";
import { findOnPath, resolveExecutable } from "./executable.ts";
import { readRecord, recordPath } from "./record.ts";
import { isOurHookGroup, SERVER_NAME, TARGET_TITLES, TARGETS, targetLayout, type Scope, type Target } from "./targets.ts";

export type CheckStatus = "ok" | "warn" | "fail";

export interface Check {
  area: string;
  status: CheckStatus;
  detail: string;
  fix?: string;
}

/** Starts what an entry names and lists its tools (injected by tests). */
export type EntryProbe = (entry: ProbeTarget) => Promise<string[]>;

export type ProbeTarget =
  | { transport: "stdio"; command: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv }
  | { transport: "http"; url: string; headers: Record<string, string> };

export interface DoctorOptions {
  he: HostEnvironment;
  cliPath: string;
  probe: EntryProbe | undefined;
  /** GET a URL; resolves to the status code. */
  httpStatus: (url: string) => Promise<number>;
}

function check(area: string, status: CheckStatus, detail: string, fix?: string): Check {
  return fix === undefined ? { area, status, detail } : { area, status, detail, fix };
}

async function executableChecks(options: DoctorOptions, checks: Check[]): Promise<string | undefined> {
  checks.push(check("version", "ok", `ast-mcp ${VERSION} on Node ${process.versions.node} (${process.platform}-${process.arch})`));
  try {
    const executable = await resolveExecutable({ cliPath: options.cliPath, env: options.he.env, platform: options.he.platform });
    const pkg = JSON.parse(readFileSync(path.join(executable.packageRoot, "package.json"), "utf8")) as { version?: string };
    checks.push(
      check(
        "package",
        pkg.version === VERSION ? "ok" : "warn",
        `installed package ${pkg.version ?? "?"} at ${executable.packageRoot}`,
        pkg.version === VERSION ? undefined : "the running code and the installed package differ; reinstall ast-mcp",
      ),
    );
    const onPath = await findOnPath(options.he.env, options.he.platform);
    if (executable.source === "path") checks.push(check("executable", "ok", `\`ast-mcp\` on PATH (${onPath[0] ?? executable.absolute}) is this installation`));
    else {checks.push(
        check(
          "executable",
          "warn",
          `\`ast-mcp\` on PATH is ${onPath.length === 0 ? "missing" : "another installation"}; entries use ${executable.command}`,
          "install globally (npm install -g ast-mcp) for entries that survive moving the project",
        ),
      );}
    return executable.packageRoot;
  } catch (error) {
    checks.push(check("executable", "fail", (error as Error).message, "install ast-mcp (npm install -g ast-mcp) and run `ast-mcp install` again"));
    return undefined;
  }
}

async function configChecks(options: DoctorOptions, checks: Check[]): Promise<void> {
  const { loadConfig } = await import("../config/load.ts");
  const snapshot = await loadConfig({ cwd: options.he.cwd, env: options.he.env });
  const files = `user ${snapshot.files.user}${snapshot.files.userExists ? "" : " (none)"}, project ${snapshot.files.project ?? "(no root)"}${
    snapshot.files.projectExists ? "" : " (none)"
  }`;
  if (snapshot.problems.length === 0) checks.push(check("config", "ok", `valid (${files})`));
  for (const problem of snapshot.problems) {
    checks.push(check("config", "fail", `${problem.file}: ${problem.keyPath}: ${problem.message}`, "fix the file; `ast-mcp config validate` lists every problem"));
  }
  for (const warning of snapshot.warnings) checks.push(check("config", "warn", warning));
}

/** The formatter plugins the write path loads, each a literal specifier resolved in the installed package. */
const FORMATTER_PLUGINS: Readonly<Record<string, (require: NodeJS.Require) => string>> = {
  "@dprint/typescript": (require) => require.resolve("@dprint/typescript/plugin.wasm"),
  "@dprint/json": (require) => require.resolve("@dprint/json/plugin.wasm"),
  "@dprint/markdown": (require) => require.resolve("@dprint/markdown/plugin.wasm"),
  "@dprint/toml": (require) => require.resolve("@dprint/toml/plugin.wasm"),
  "@dprint/dockerfile": (require) => require.resolve("@dprint/dockerfile/plugin.wasm"),
};

function parserChecks(packageRoot: string, checks: Check[]): void {
  const require = createRequire(path.join(packageRoot, "package.json"));
  const pkg = JSON.parse(readFileSync(path.join(packageRoot, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
  const dependencies = Object.keys(pkg.dependencies ?? {});
  try {
    napi().parse(napi().Lang.TypeScript, "const ok = 1;");
    checks.push(check("parsers", "ok", "@ast-grep/napi loads and parses TypeScript"));
  } catch (error) {
    checks.push(check("parsers", "fail", `@ast-grep/napi does not load: ${(error as Error).message}`, "reinstall ast-mcp on this platform (npm install -g ast-mcp)"));
  }
  const missing: string[] = [];
  const languages = dependencies.filter((name) => name.startsWith("@ast-grep/lang-"));
  for (const name of languages) {
    try {
      // Throws when the package's prebuilt parser library is missing.
      packageRegistration(name.slice("@ast-grep/lang-".length));
    } catch (error) {
      missing.push(`${name} (${(error as Error).message.split("\n")[0]})`);
    }
  }
  if (missing.length === 0) checks.push(check("languages", "ok", `${languages.length} language packages have their parsers`));
  else checks.push(check("languages", "warn", `no parser for ${missing.join(", ")}`, "those languages fall back to plain text; reinstall ast-mcp to restore them"));

  const broken: string[] = [];
  let createFromBuffer: ((buffer: Uint8Array) => unknown) | undefined;
  try {
    createFromBuffer = (require("@dprint/formatter") as { createFromBuffer: (buffer: Uint8Array) => unknown }).createFromBuffer;
  } catch (error) {
    checks.push(check("formatters", "fail", `@dprint/formatter does not load: ${(error as Error).message}`, "reinstall ast-mcp"));
  }
  if (createFromBuffer) {
    for (const [name, wasmOf] of Object.entries(FORMATTER_PLUGINS)) {
      try {
        createFromBuffer(readFileSync(wasmOf(require)));
      } catch (error) {
        broken.push(`${name} (${(error as Error).message.split("\n")[0]})`);
      }
    }
    if (broken.length === 0) checks.push(check("formatters", "ok", `${Object.keys(FORMATTER_PLUGINS).length} formatter plugins load`));
    else checks.push(check("formatters", "warn", `cannot load ${broken.join(", ")}`, "writes to those file types are not formatted; reinstall ast-mcp"));
  }
}

function expand(text: string, he: HostEnvironment): string {
  return text.replace(/\$\{workspaceFolder\}/g, he.cwd).replace(/\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => he.env[name] ?? "");
}

/** The string values of an entry's object (headers, env), with the host's variables expanded. */
function expandedStrings(value: unknown, he: HostEnvironment): Record<string, string> {
  const strings: Record<string, string> = {};
  if (value !== null && typeof value === "object") { for (const [name, item] of Object.entries(value)) if (typeof item === "string") strings[name] = expand(item, he); }
  return strings;
}

/** The entry a host file holds for us, or why there is none. */
function readEntry(format: "json" | "toml", container: string[], text: string): Record<string, unknown> | undefined {
  if (format === "toml") {
    let node: unknown = parseToml(text);
    for (const key of container) node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined;
    return node !== null && typeof node === "object" ? (node as Record<string, unknown>) : undefined;
  }
  const value = readJsonSlot(text, { container, key: SERVER_NAME });
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
}

function probeTargetOf(entry: Record<string, unknown>, he: HostEnvironment): ProbeTarget | undefined {
  const url = entry.url ?? entry.httpUrl;
  if (typeof url === "string") {
    const headers = expandedStrings(entry.headers, he);
    if (typeof entry.bearer_token_env_var === "string") headers.Authorization = `Bearer ${he.env[entry.bearer_token_env_var] ?? ""}`;
    return { transport: "http", url: expand(url, he), headers };
  }
  if (typeof entry.command !== "string") return undefined;
  const args = Array.isArray(entry.args) ? entry.args.filter((arg): arg is string => typeof arg === "string").map((arg) => expand(arg, he)) : [];
  // As the host starts it: its own environment plus the entry's.
  const env: NodeJS.ProcessEnv = { ...he.env, ...expandedStrings(entry.env, he) };
  return { transport: "stdio", command: expand(entry.command, he), args, cwd: he.cwd, env };
}

async function entryChecks(options: DoctorOptions, checks: Check[]): Promise<number> {
  let found = 0;
  // Hosts share some files (.mcp.json): each distinct entry is started once.
  const probes = new Map<string, Promise<string[]>>();
  for (const scope of ["local", "global"] as Scope[]) {
    for (const target of TARGETS) {
      const layout = targetLayout(target, scope, options.he);
      if (!layout.entry) continue;
      const area = `${TARGET_TITLES[target]} (${scope})`;
      let text: string;
      try {
        text = await fs.readFile(layout.entry.file, "utf8");
      } catch {
        continue;
      }
      let entry: Record<string, unknown> | undefined;
      try {
        entry = readEntry(layout.entry.format, layout.entry.container, text);
      } catch (error) {
        checks.push(
          check(area, "fail", `${layout.entry.file} does not parse: ${(error as Error).message.split("\n")[0]}`, "fix the file's syntax; ast-mcp leaves malformed files alone"),
        );
        continue;
      }
      if (!entry) continue;
      found++;
      const probeTarget = probeTargetOf(entry, options.he);
      if (!probeTarget) {
        checks.push(
          check(area, "fail", `the ${SERVER_NAME} entry in ${layout.entry.file} has neither a command nor a URL`, `run \`ast-mcp install --target ${target} --scope ${scope}\``),
        );
        continue;
      }
      const what = probeTarget.transport === "stdio" ? `${probeTarget.command} ${probeTarget.args.join(" ")}` : probeTarget.url;
      if (!options.probe) {
        checks.push(check(area, "ok", `entry in ${layout.entry.file}: ${what} (not started: --no-probe)`));
        continue;
      }
      try {
        const key = JSON.stringify({ ...probeTarget, env: undefined });
        if (!probes.has(key)) probes.set(key, options.probe(probeTarget));
        const tools = await (probes.get(key) as Promise<string[]>);
        checks.push(check(area, "ok", `entry in ${layout.entry.file}: ${what} starts and lists ${tools.length} tools`));
      } catch (error) {
        checks.push(
          check(
            area,
            "fail",
            `entry in ${layout.entry.file}: ${what} does not answer: ${(error as Error).message.split("\n")[0]}`,
            probeTarget.transport === "stdio" ?
              "run `ast-mcp update` to re-point it at the current executable" :
              "start the server (or the service) and set AST_MCP_TOKEN for the host",
          ),
        );
      }
      await hookCheck(target, scope, area, options.he, checks);
    }
  }
  if (found === 0) checks.push(check("hosts", "warn", "no host configuration names ast-mcp (in this project or globally)", "run `ast-mcp install --target <host>`"));
  return found;
}

async function hookCheck(target: Target, scope: Scope, area: string, he: HostEnvironment, checks: Check[]): Promise<void> {
  const layout = targetLayout(target, scope, he);
  if (!layout.hookFile) return;
  let text: string;
  try {
    text = await fs.readFile(layout.hookFile, "utf8");
  } catch {
    checks.push(check(area, "warn", `no ast-mcp hook in ${layout.hookFile}`, `run \`ast-mcp install --target ${target} --scope ${scope}\` (or keep --no-hooks)`));
    return;
  }
  const present = layout.hooks === "json-group" ?
    (() => {
      try {
        return readJsonSlot(text, { container: ["hooks", "PreToolUse"], matches: (value) => isOurHookGroup(value, target) }) !== undefined;
      } catch {
        return false;
      }
    })() :
    text.includes(" hook --host ");
  checks.push(
    present ?
      check(area, "ok", `hook in ${layout.hookFile}`) :
      check(area, "warn", `no ast-mcp hook in ${layout.hookFile}`, `run \`ast-mcp install --target ${target} --scope ${scope}\``),
  );
}

async function directoryCheck(area: string, dir: string, checks: Check[], required: boolean): Promise<void> {
  let stats;
  try {
    stats = await fs.stat(dir);
  } catch {
    if (required) checks.push(check(area, "warn", `${dir} does not exist yet`, "it is created on first use"));
    return;
  }
  if (!stats.isDirectory()) {
    checks.push(check(area, "fail", `${dir} is not a directory`, `move it away: ast-mcp keeps its state there`));
    return;
  }
  const problems: string[] = [];
  if (process.platform !== "win32") {
    if ((stats.mode & 0o077) !== 0) problems.push(`mode ${(stats.mode & 0o777).toString(8)} lets others in (want 700)`);
    if (typeof process.getuid === "function" && stats.uid !== process.getuid()) problems.push(`owned by uid ${stats.uid}, not you`);
  }
  try {
    await fs.access(dir, fsConstants.W_OK);
  } catch {
    problems.push("not writable");
  }
  if (problems.length === 0) checks.push(check(area, "ok", `${dir}`));
  else checks.push(check(area, "fail", `${dir}: ${problems.join("; ")}`, `chmod 700 ${dir} (and chown it to yourself)`));
}

async function stateChecks(options: DoctorOptions, checks: Check[]): Promise<void> {
  const dir = stateDir(options.he);
  await directoryCheck("state dir", dir, checks, true);
  await directoryCheck("journal", path.join(dir, "journal"), checks, false);
  try {
    const record = await readRecord(options.he);
    checks.push(check("install record", "ok", `${recordPath(options.he)}: ${record.installs.length} install(s)`));
    for (const install of record.installs) {
      if (!install.service) continue;
      const url = healthUrlFor(install.service.host, install.service.port);
      try {
        const status = await options.httpStatus(url);
        checks.push(check("service", status === 200 ? "ok" : "fail", `${install.service.label}: GET ${url} → ${status}`));
      } catch (error) {
        const how = install.service.manager === "systemd" ? `systemctl --user status ${install.service.label}` : `launchctl print gui/$(id -u)/${install.service.label}`;
        checks.push(
          check(
            "service",
            "fail",
            `${install.service.label}: nothing answers ${url} (${(error as Error).message})`,
            `check it with \`${how}\`; \`ast-mcp update\` rewrites and restarts it`,
          ),
        );
      }
    }
  } catch (error) {
    checks.push(check("install record", "fail", (error as Error).message, "move the record away; `ast-mcp install` starts a new one"));
  }
}

export async function runDoctor(options: DoctorOptions): Promise<Check[]> {
  const checks: Check[] = [];
  const packageRoot = await executableChecks(options, checks);
  await configChecks(options, checks);
  if (packageRoot) parserChecks(packageRoot, checks);
  await entryChecks(options, checks);
  await stateChecks(options, checks);
  return checks;
}

/**
 * Lists a server's tools over MCP: starts it (stdio) or connects (HTTP), with a time limit. The client
 * offers 2026-07-28 first and falls back to the `initialize` handshake, so an older server still answers.
 */
export const probeWithMcp: EntryProbe = async (target) => {
  const { Client } = await import("@modelcontextprotocol/client");
  const client = new Client({ name: "ast-mcp-doctor", version: VERSION }, { versionNegotiation: { mode: "auto" } });
  let transport: import("@modelcontextprotocol/client").Transport;
  if (target.transport === "stdio") {
    const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(target.env)) if (value !== undefined) env[name] = value;
    // A probe lists tools; it must not start indexing (and caching) the user's project.
    env.AST_MCP_INDEX_BACKGROUND = "false";
    transport = new StdioClientTransport({ command: target.command, args: target.args, cwd: target.cwd, env, stderr: "ignore" });
  } else {
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
    transport = new StreamableHTTPClientTransport(new URL(target.url), { requestInit: { headers: target.headers } });
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    const listing = (async () => {
      await client.connect(transport);
      return (await client.listTools()).tools.map((tool) => tool.name);
    })();
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${LIMITS.hosts.doctorProbeTimeoutMs} ms`)), LIMITS.hosts.doctorProbeTimeoutMs);
    });
    return await Promise.race([listing, timeout]);
  } finally {
    if (timer) clearTimeout(timer);
    await client.close().catch(() => undefined);
  }
};

export function renderChecks(checks: readonly Check[]): string {
  const mark: Record<CheckStatus, string> = { ok: "ok  ", warn: "warn", fail: "FAIL" };
  const lines = checks.map((item) => `${mark[item.status]}  ${item.area}: ${item.detail}${item.fix ? `\n      fix: ${item.fix}` : ""}`);
  const failed = checks.filter((item) => item.status === "fail").length;
  const warned = checks.filter((item) => item.status === "warn").length;
  lines.push(failed === 0 ? `\n${warned === 0 ? "all good" : `no failures, ${warned} warning(s)`}` : `\n${failed} failure(s), ${warned} warning(s)`);
  return `${lines.join("\n")}\n`;
}
