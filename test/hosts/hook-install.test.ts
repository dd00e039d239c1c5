/**
 * The hook commands install writes: an empty NODE_EXTRA_CA_CERTS in front where a POSIX shell
 * runs them (so Node skips reading a CA bundle at every start), none where cmd.exe or PowerShell
 * may; quoting of the executable kept; entries written before the prefix existed still recognised,
 * and upgraded by `update`.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmod, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { hostEnvironment } from "../../src/hosts/environment.ts";
import type { ExecutableInfo } from "../../src/hosts/executable.ts";
import { install, specsForTarget, update, type InstallRequest } from "../../src/hosts/install.ts";
import { readRecord, writeRecord } from "../../src/hosts/record.ts";
import { sha256OfText as sha256 } from "../../src/helpers/hash.ts";
import { copilotHookFile, entryValue, HOOK_ENV_PREFIX, hookCommand, isOurHookCommand, isOurHookGroup, serverEnvironment, type Target } from "../../src/hosts/targets.ts";
import { shellQuote, windowsQuote } from "../../src/helpers/shell-quote.ts";
import { CLI } from "../support/cli.ts";
import { FAKE_EXECUTABLE, sandbox } from "./fixture.ts";

function request(target: Target, extra: Partial<InstallRequest> = {}): InstallRequest {
  return { targets: [target], scope: "local", transport: "stdio", hooks: true, guidance: false, skill: false, service: false, dryRun: false, ...extra };
}

describe("hook command form", () => {
  test("POSIX shells get the empty NODE_EXTRA_CA_CERTS in front; Windows shells do not", () => {
    expect(hookCommand("/opt/bin/ast-mcp", "claude", true)).toBe("NODE_EXTRA_CA_CERTS= /opt/bin/ast-mcp hook --host claude");
    expect(hookCommand("ast-mcp", "codex", false)).toBe("ast-mcp hook --host codex");
    expect(HOOK_ENV_PREFIX).toBe("NODE_EXTRA_CA_CERTS=");
  });

  test("our entries are recognised in both forms, and only for their host", () => {
    for (
      const command of [
        "/opt/bin/ast-mcp hook --host claude",
        "NODE_EXTRA_CA_CERTS= /opt/bin/ast-mcp hook --host claude",
        "NODE_EXTRA_CA_CERTS= '/opt/my apps/ast-mcp' hook --host claude",
      ]
    ) {
      expect(isOurHookCommand(command, "claude")).toBe(true);
      expect(isOurHookCommand(command, "codex")).toBe(false);
      expect(isOurHookGroup({ matcher: "Bash", hooks: [{ type: "command", command }] }, "claude")).toBe(true);
    }
    expect(isOurHookCommand("./scripts/audit.sh", "claude")).toBe(false);
  });

  test("a shell runs the written command with the variable empty and the quoted path as one word", async () => {
    const box = await sandbox();
    try {
      // A stand-in executable in a folder whose name needs quoting; it prints what it received.
      const dir = join(box.home, "my apps", "it's here");
      await mkdir(dir, { recursive: true });
      const fake = join(dir, "ast-mcp");
      await box.write(fake, "#!/bin/sh\nprintf '%s|' \"${NODE_EXTRA_CA_CERTS-unset}\" \"$@\"\n");
      await chmod(fake, 0o755);
      const command = hookCommand(shellQuote(fake), "claude", true);
      expect(command.startsWith(`${HOOK_ENV_PREFIX} '`)).toBe(true);
      const result = spawnSync("sh", ["-c", command], { env: { PATH: "/usr/bin:/bin", NODE_EXTRA_CA_CERTS: "/etc/corporate-ca.pem" }, encoding: "utf8" });
      expect(result.stderr).toBe("");
      expect(result.stdout).toBe("|hook|--host|claude|");
    } finally {
      await box.cleanup();
    }
  });
});

describe("install writes the form each host's shell takes", () => {
  const executable: ExecutableInfo = {
    command: "C:\\Program Files\\nodejs\\ast-mcp.cmd",
    absolute: "C:\\Program Files\\nodejs\\ast-mcp.cmd",
    source: "global-bin",
    packageRoot: "C:\\Program Files\\nodejs\\node_modules\\ast-mcp",
  };
  const he = hostEnvironment({ cwd: "C:\\work", env: { USERPROFILE: "C:\\Users\\me", APPDATA: "C:\\Users\\me\\AppData\\Roaming" }, platform: "win32" });
  const templates = { guidance: "", skill: [] };
  const options = { hooks: true, guidance: false, skill: false };

  test("on Windows, Claude Code and Codex hook commands have no prefix (cmd.exe would not take it)", () => {
    for (const target of ["claude", "codex"] as const) {
      const { specs } = specsForTarget(
        target,
        { scope: "global", project: null, he },
        { transport: "stdio", command: executable.command, env: {} },
        executable,
        options,
        templates,
      );
      const hook = specs.find((spec) => spec.role === "hook");
      expect(hook?.kind).toBe("json");
      const command = ((hook as { value: { hooks: Array<{ command: string }> } }).value.hooks[0] as { command: string }).command;
      expect(command).toBe(`${windowsQuote(executable.command)} hook --host ${target}`);
    }
  });

  test("Copilot's file: the bash command has the prefix, the PowerShell command does not", () => {
    const document = JSON.parse(copilotHookFile(shellQuote("/opt/my apps/ast-mcp"), windowsQuote("C:\\my apps\\ast-mcp.cmd"))) as {
      hooks: { preToolUse: Array<{ bash: string; powershell: string }> };
    };
    const entry = document.hooks.preToolUse[0]!;
    expect(entry.bash).toBe("NODE_EXTRA_CA_CERTS= '/opt/my apps/ast-mcp' hook --host copilot");
    expect(entry.powershell).toBe("\"C:\\my apps\\ast-mcp.cmd\" hook --host copilot");
  });
});

describe("entries written before the prefix existed", () => {
  test("update upgrades a Claude Code hook group of the previous form in place", async () => {
    const box = await sandbox();
    try {
      await install(request("claude"), box.context());
      const file = join(box.project, ".claude", "settings.json");
      const written = (await box.read(file)) as string;
      await box.write(file, written.replace(`${HOOK_ENV_PREFIX} `, ""));
      expect(await box.read(file)).toContain(`"${FAKE_EXECUTABLE} hook --host claude"`);

      const report = await update({ dryRun: false }, box.context());
      expect(report.problems).toEqual([]);
      const settings = JSON.parse((await box.read(file)) as string) as { hooks: { PreToolUse: Array<{ hooks: Array<{ command: string }> }> } };
      expect(settings.hooks.PreToolUse).toHaveLength(1);
      expect(settings.hooks.PreToolUse[0]!.hooks[0]!.command).toBe(`${HOOK_ENV_PREFIX} ${FAKE_EXECUTABLE} hook --host claude`);
      expect(await box.read(file)).toBe(written);
    } finally {
      await box.cleanup();
    }
  });

  test("update rewrites a Copilot hook file that the previous version wrote", async () => {
    const box = await sandbox();
    try {
      await install(request("copilot"), box.context());
      const file = join(box.project, ".github", "hooks", "ast-mcp.json");
      const written = (await box.read(file)) as string;
      // As the previous version wrote it, and recorded it.
      const previous = written.replace(`${HOOK_ENV_PREFIX} `, "");
      expect(previous).not.toBe(written);
      await box.write(file, previous);
      const he = box.context().he;
      const record = await readRecord(he);
      for (const artifact of record.installs.flatMap((entry) => entry.artifacts)) if (artifact.kind === "file" && artifact.file === file) artifact.sha256 = sha256(previous);
      await writeRecord(he, record);

      const report = await update({ dryRun: false }, box.context());
      expect(report.problems).toEqual([]);
      expect(await box.read(file)).toBe(written);
    } finally {
      await box.cleanup();
    }
  });

  test("install over a hand-written entry of the previous form replaces it instead of adding a second hook", async () => {
    const box = await sandbox();
    try {
      const file = join(box.project, ".codex", "hooks.json");
      await box.write(file, `${JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "ast-mcp hook --host codex" }] }] } }, null, 2)}\n`);
      await install(request("codex"), box.context());
      const hooks = JSON.parse((await box.read(file)) as string) as { hooks: { PreToolUse: Array<{ hooks: Array<{ command: string }> }> } };
      expect(hooks.hooks.PreToolUse).toHaveLength(1);
      expect(hooks.hooks.PreToolUse[0]!.hooks[0]!.command).toBe(`${HOOK_ENV_PREFIX} ${FAKE_EXECUTABLE} hook --host codex`);
    } finally {
      await box.cleanup();
    }
  });
});

describe("the hook bundle's entry (dist/hook.cjs, through dist/cli.js)", () => {
  // Through the built CLI: importing hook-command.ts here would limit this test process's grammars to bash.
  test("answers usage errors as the CLI does: usage on stderr, exit 2; --help on stdout", () => {
    const bad = spawnSync("node", [CLI, "hook", "--host", "nowhere"], { input: "", encoding: "utf8" });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toStartWith("ast-mcp hook: option --host must be one of");
    expect(bad.stderr).toContain("Usage: ast-mcp hook");
    const help = spawnSync("node", [CLI, "hook", "--help"], { encoding: "utf8" });
    expect(help.status).toBe(0);
    expect(help.stdout).toStartWith("Usage: ast-mcp hook");
  });
});

describe("the server's environment", () => {
  test("every stdio entry starts the server with a small young generation; on Linux also two malloc arenas and a fixed mapping threshold", () => {
    const node = { NODE_OPTIONS: "--max-semi-space-size=2" };
    const linux = { ...node, MALLOC_ARENA_MAX: "2", MALLOC_MMAP_THRESHOLD_: "131072" };
    expect(serverEnvironment("linux")).toEqual(linux);
    expect(serverEnvironment("darwin")).toEqual(node);
    expect(serverEnvironment("win32")).toEqual(node);
    expect(entryValue("claude", "local", { transport: "stdio", command: "ast-mcp", env: serverEnvironment("linux") })).toEqual({
      type: "stdio",
      command: "ast-mcp",
      args: ["mcp"],
      env: linux,
    });
    expect(entryValue("codex", "global", { transport: "stdio", command: "ast-mcp", env: {} })).toEqual({ command: "ast-mcp", args: ["mcp"] });
  });

  test("the memory settings come from the tuning it is given", () => {
    const tuning = { youngSemiSpaceMiB: 4, mallocArenas: 1, mallocMmapThresholdBytes: 65_536 };
    expect(serverEnvironment("linux", tuning)).toEqual({ NODE_OPTIONS: "--max-semi-space-size=4", MALLOC_ARENA_MAX: "1", MALLOC_MMAP_THRESHOLD_: "65536" });
    expect(serverEnvironment("darwin", tuning)).toEqual({ NODE_OPTIONS: "--max-semi-space-size=4" });
  });
});
