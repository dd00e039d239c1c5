/**
 * install --service: the unit's ExecStart is run verbatim (no systemd here; the service manager
 * calls are injected) and /healthz and the MCP endpoint are probed; uninstall stops and removes it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { hostEnvironment } from "../../src/hosts/environment.ts";
import { serverEnvironment } from "../../src/hosts/targets.ts";
import { install, uninstall } from "../../src/hosts/install.ts";
import { readRecord } from "../../src/hosts/record.ts";
import { defaultServiceDeps, planService, TOKEN_FILE_ENV, type ServiceDeps } from "../../src/hosts/service.ts";
import { splitSystemdCommand } from "../support/systemd-split.ts";
import { CLI } from "../support/cli.ts";
import { sandbox } from "./fixture.ts";

const NODE = Bun.which("node") ?? "/usr/bin/node";

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Reads a unit file the way systemd would: Environment= lines and ExecStart= split into argv. */
function parseUnit(text: string): { argv: string[]; env: Record<string, string> } {
  const env: Record<string, string> = {};
  let argv: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("Environment=")) {
      const [assignment] = splitSystemdCommand(line.slice("Environment=".length));
      const eq = (assignment as string).indexOf("=");
      env[(assignment as string).slice(0, eq)] = (assignment as string).slice(eq + 1);
    }
    if (line.startsWith("ExecStart=")) argv = splitSystemdCommand(line.slice("ExecStart=".length));
  }
  return { argv, env };
}

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
});

describe("install --service (systemd user unit)", () => {
  test("writes a unit and a private token, runs ExecStart verbatim, answers /healthz and MCP with the token, and uninstall removes it all", async () => {
    if (!existsSync(CLI)) throw new Error(`build first: ${CLI} is missing (npm run build)`);
    const box = await sandbox();
    const port = await freePort();
    let service: ChildProcess | undefined;
    const calls: string[] = [];
    const real = defaultServiceDeps();
    const deps: ServiceDeps = {
      ...real,
      uid: 1000,
      run: async (command, args) => {
        calls.push(`${command} ${args.join(" ")}`);
        if (command === "systemctl" && args[1] === "restart") {
          const unitFile = join(box.env.XDG_CONFIG_HOME as string, "systemd", "user", "ast-mcp.service");
          const { argv, env } = parseUnit((await box.read(unitFile)) as string);
          // The unit starts the server with the installed environment (two malloc arenas on Linux).
          expect(env).toMatchObject(serverEnvironment("linux"));
          service = spawn(argv[0] as string, argv.slice(1), {
            env: { PATH: process.env.PATH ?? "", HOME: box.home, XDG_CONFIG_HOME: box.env.XDG_CONFIG_HOME as string, XDG_STATE_HOME: box.env.XDG_STATE_HOME as string, ...env },
            stdio: ["ignore", "ignore", "pipe"],
          });
          children.push(service);
        }
        if (command === "systemctl" && args[1] === "disable") service?.kill("SIGTERM");
        return { code: 0, stdout: "", stderr: "" };
      },
    };
    try {
      const context = box.context({ serviceDeps: deps, nodePath: NODE, executable: { command: CLI, absolute: CLI, source: "package", packageRoot: join(CLI, "..", "..") } });
      const report = await install(
        { targets: ["claude"], scope: "local", transport: "stdio", port, hooks: false, guidance: false, skill: false, service: true, dryRun: false },
        context,
      );
      expect(report.problems).toEqual([]);
      expect(calls).toEqual(["systemctl --user daemon-reload", "systemctl --user enable ast-mcp.service", "systemctl --user restart ast-mcp.service"]);

      const unitFile = join(box.home, ".config", "systemd", "user", "ast-mcp.service");
      const unit = parseUnit((await box.read(unitFile)) as string);
      expect(unit.argv).toEqual([NODE, CLI, "mcp", "--transport", "http", "--host", "127.0.0.1", "--port", String(port), box.project]);
      const tokenFile = unit.env[TOKEN_FILE_ENV] as string;
      expect(tokenFile).toBe(join(box.home, ".config", "ast-mcp", "service-token"));
      expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
      const token = ((await box.read(tokenFile)) as string).trim();
      expect(token.length).toBeGreaterThanOrEqual(40);

      // The entry points at the service with a reference to the token's variable, never the token.
      const entry = JSON.parse((await box.read(join(box.project, ".mcp.json"))) as string).mcpServers["ast-mcp"];
      expect(entry).toEqual({ type: "http", url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: "Bearer ${AST_MCP_TOKEN}" } });
      expect(await box.read(join(box.project, ".mcp.json"))).not.toContain(token);

      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
      const unauthorized = await fetch(`http://127.0.0.1:${port}/mcp`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(unauthorized.status).toBe(401);
      const transport = new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
      const client = new Client({ name: "service-test", version: "0" });
      await client.connect(transport);
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("file_read");
      } finally {
        await client.close();
      }

      // Installing again changes nothing (the token is kept, not rotated).
      const again = await install(
        { targets: ["claude"], scope: "local", transport: "stdio", port, hooks: false, guidance: false, skill: false, service: true, dryRun: false },
        context,
      );
      expect(again.changes).toEqual([]);

      calls.length = 0;
      const removed = await uninstall({ targets: ["claude"], scopes: ["local"], dryRun: false }, context);
      expect(removed.problems).toEqual([]);
      expect(calls).toEqual(["systemctl --user disable --now ast-mcp.service", "systemctl --user daemon-reload"]);
      expect(await box.read(unitFile)).toBeNull();
      expect(await box.read(tokenFile)).toBeNull();
      expect(await box.read(join(box.project, ".mcp.json"))).toBeNull();
      expect((await readRecord(context.he)).installs).toEqual([]);
    } finally {
      service?.kill("SIGKILL");
      await box.cleanup();
    }
  }, 60_000);
});

describe("service definitions per platform", () => {
  test("macOS gets a launchd agent, loaded with launchctl bootstrap", async () => {
    const box = await sandbox();
    try {
      const calls: string[] = [];
      const deps: ServiceDeps = {
        run: async (command, args) => {
          calls.push(`${command} ${args.join(" ")}`);
          return { code: 0, stdout: "", stderr: "" };
        },
        probe: async () => 200,
        sleep: async () => undefined,
        uid: 501,
      };
      const he = hostEnvironment({ cwd: box.project, env: box.env, platform: "darwin" });
      const report = await install({
        targets: ["cursor"],
        scope: "global",
        transport: "http",
        port: 4100,
        hooks: false,
        guidance: false,
        skill: false,
        service: true,
        dryRun: false,
      }, box.context({ he, serviceDeps: deps }));
      expect(report.problems).toEqual([]);
      const plist = (await box.read(join(box.home, "Library", "LaunchAgents", "dev.ast-mcp.server.plist"))) as string;
      expect(plist).toContain("<string>--port</string>\n    <string>4100</string>");
      expect(plist).toContain(`<key>${TOKEN_FILE_ENV}</key>`);
      expect(calls).toEqual([
        `launchctl bootout gui/501/dev.ast-mcp.server`,
        `launchctl bootstrap gui/501 ${join(box.home, "Library", "LaunchAgents", "dev.ast-mcp.server.plist")}`,
      ]);
    } finally {
      await box.cleanup();
    }
  });

  test("a platform without a supported service manager gets the manual command", () => {
    const he = hostEnvironment({ cwd: "/p", env: { HOME: "/h", APPDATA: "/h/AppData/Roaming" }, platform: "win32" });
    const plan = planService(he, { nodePath: "node", executable: "/x/cli.js", host: "127.0.0.1", port: 3768, roots: [] });
    expect("unsupported" in plan && plan.unsupported).toContain("mcp --transport http --host 127.0.0.1 --port 3768");
  });

  test("a service that never answers /healthz is reported", async () => {
    const box = await sandbox();
    try {
      const deps: ServiceDeps = {
        run: async () => ({ code: 0, stdout: "", stderr: "" }),
        probe: async () => Promise.reject(new Error("refused")),
        sleep: async () => undefined,
        uid: 1,
      };
      const { waitHealthy } = await import("../../src/hosts/service.ts");
      expect(await waitHealthy(deps, "127.0.0.1", 1, 0)).toBe(false);
      const failing: ServiceDeps = { ...deps, run: async () => ({ code: 1, stdout: "", stderr: "Failed to connect to bus" }) };
      const report = await install(
        { targets: ["claude"], scope: "local", transport: "http", hooks: false, guidance: false, skill: false, service: true, dryRun: false },
        box.context({ serviceDeps: failing }),
      );
      expect(report.problems.map((problem) => problem.message).join("\n")).toContain("Failed to connect to bus");
    } finally {
      await box.cleanup();
    }
  });
});
