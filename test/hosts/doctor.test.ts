/** doctor: entries found and probed, hooks, config problems, state directory permissions. */
import { describe, expect, test } from "bun:test";
import { chmod, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { runDoctor, renderChecks, type ProbeTarget } from "../../src/hosts/doctor.ts";
import { serverEnvironment } from "../../src/hosts/targets.ts";
import { stateDir } from "../../src/hosts/environment.ts";
import { install } from "../../src/hosts/install.ts";
import { FAKE_EXECUTABLE, PROJECT_DIR, sandbox } from "./fixture.ts";

const CLI_PATH = join(PROJECT_DIR, "dist", "cli.js");

describe("doctor", () => {
  test("reports each entry, whether its command lists the tools, and what to fix", async () => {
    const box = await sandbox();
    try {
      const context = box.context();
      await install({ targets: ["claude"], scope: "local", transport: "stdio", hooks: true, guidance: false, skill: false, service: false, dryRun: false }, context);
      await install({ targets: ["codex"], scope: "global", transport: "stdio", hooks: false, guidance: false, skill: false, service: false, dryRun: false }, context);
      await box.write(join(box.project, ".vscode", "mcp.json"), "{ \"servers\": { \"ast-mcp\": { \"type\": \"stdio\", \"command\": \"/gone/ast-mcp\", \"args\": [\"mcp\"] } } }");
      await box.write(join(box.project, ".cursor", "mcp.json"), "{ broken");
      await box.write(join(box.home, ".config", "ast-mcp", "ast-mcp.toml"), "[hook]\nmode = \"sometimes\"\n");
      const probed: ProbeTarget[] = [];
      const checks = await runDoctor({
        he: context.he,
        cliPath: CLI_PATH,
        probe: async (target) => {
          probed.push(target);
          if (target.transport === "stdio" && target.command === FAKE_EXECUTABLE) return ["file_read", "file_patch"];
          throw new Error("spawn ENOENT");
        },
        httpStatus: async () => 200,
      });
      const find = (area: string, start = "") => checks.find((check) => check.area === area && check.detail.startsWith(start));
      expect(find("Claude Code (local)", "entry")).toMatchObject({ status: "ok" });
      expect(find("Claude Code (local)", "entry")?.detail).toContain("lists 2 tools");
      expect(find("Claude Code (local)", "hook")).toMatchObject({ status: "ok" });
      expect(find("Codex (global)", "entry")).toMatchObject({ status: "ok" });
      expect(find("Codex (global)", "no ast-mcp hook")).toMatchObject({ status: "warn" });
      expect(find("VS Code (local)", "entry")).toMatchObject({ status: "fail", fix: expect.stringContaining("ast-mcp update") });
      expect(find("Cursor (local)")).toMatchObject({ status: "fail" });
      expect(checks.some((check) => check.area === "config" && check.status === "fail" && check.detail.includes("hook.mode"))).toBe(true);
      // Claude Code and Copilot share .mcp.json, and the Codex entry starts the same command: two distinct starts.
      expect(probed.map((target) => (target.transport === "stdio" ? target.command : ""))).toEqual([FAKE_EXECUTABLE, "/gone/ast-mcp"]);
      // Probed as the host starts it: with the environment the entry adds.
      expect(probed[0]?.transport === "stdio" ? probed[0].env : undefined).toMatchObject(serverEnvironment(context.he.platform));
      expect(renderChecks(checks)).toMatch(/\d+ failure\(s\)/);
    } finally {
      await box.cleanup();
    }
  });

  test("a state directory others can read is a failure with the chmod to run", async () => {
    const box = await sandbox();
    try {
      const context = box.context();
      const dir = stateDir(context.he);
      await mkdir(dir, { recursive: true });
      await chmod(dir, 0o755);
      const checks = await runDoctor({ he: context.he, cliPath: CLI_PATH, probe: undefined, httpStatus: async () => 200 });
      const state = checks.find((check) => check.area === "state dir");
      expect(state).toMatchObject({ status: "fail", fix: `chmod 700 ${dir} (and chown it to yourself)` });
      expect(checks.find((check) => check.area === "hosts")?.status).toBe("warn");
    } finally {
      await box.cleanup();
    }
  });
});

describe("the install hint", () => {
  test("doctor and the README tell the same way to put ast-mcp on PATH, and never a registry install that answers 404", async () => {
    const { GLOBAL_INSTALL } = await import("../../src/hosts/executable.ts");
    const readme = await Bun.file(join(import.meta.dir, "..", "..", "README.md")).text();
    const command = GLOBAL_INSTALL.replaceAll("`", "");
    expect(readme).toContain(command);
    const sources = await Promise.all(["doctor.ts", "executable.ts"].map((file) => Bun.file(join(import.meta.dir, "..", "..", "src", "hosts", file)).text()));
    for (const source of sources) expect(source).not.toContain("npm install -g ast-mcp");
  });
});
