/**
 * install / update / uninstall per host and scope against golden files (test/hosts/golden):
 * fresh install, merging into existing files, malformed files, idempotent re-runs, --dry-run,
 * update, and the install → uninstall round trip byte for byte.
 * UPDATE_GOLDEN=1 rewrites the generated sections (never the headers or the "before" inputs).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { hostEnvironment } from "../../src/hosts/environment.ts";
import type { ExecutableInfo } from "../../src/hosts/executable.ts";
import { install, renderReport, uninstall, update, type InstallRequest } from "../../src/hosts/install.ts";
import { readRecord } from "../../src/hosts/record.ts";
import { targetLayout, type Scope, type Target } from "../../src/hosts/targets.ts";
import { BLOCK_BEGIN } from "../../src/helpers/managed-block.ts";
import { loadGolden, sandbox, saveGolden, snapshotTree, type GoldenFile, type Sandbox } from "./fixture.ts";
import { checkEntryFile, checkHookFile } from "./host-schemas.ts";

const UPDATE = process.env.UPDATE_GOLDEN === "1";
const NEW_EXECUTABLE: ExecutableInfo = {
  command: "/usr/local/bin/ast-mcp",
  absolute: "/usr/local/bin/ast-mcp",
  source: "global-bin",
  packageRoot: "/usr/local/lib/node_modules/ast-mcp",
};

const CASES: Array<{ target: Target; scope: Scope }> = [
  { target: "claude", scope: "local" },
  { target: "claude", scope: "global" },
  { target: "codex", scope: "local" },
  { target: "codex", scope: "global" },
  { target: "copilot", scope: "local" },
  { target: "copilot", scope: "global" },
  { target: "vscode", scope: "local" },
  { target: "vscode", scope: "global" },
  { target: "cursor", scope: "local" },
  { target: "cursor", scope: "global" },
  { target: "gemini", scope: "local" },
  { target: "gemini", scope: "global" },
  { target: "claude-desktop", scope: "global" },
];

function request(target: Target, scope: Scope, extra: Partial<InstallRequest> = {}): InstallRequest {
  return { targets: [target], scope, transport: "stdio", hooks: true, guidance: true, skill: true, service: false, dryRun: false, ...extra };
}

function absolute(box: Sandbox, relative: string): string {
  return relative.startsWith("~/") ? join(box.home, relative.slice(2)) : join(box.project, relative);
}

function relative(box: Sandbox, scope: Scope, file: string): string {
  return scope === "global" ? `~/${file.slice(box.home.length + 1)}` : file.slice(box.project.length + 1);
}

/** The "before <path>" inputs of a golden file. */
function befores(golden: GoldenFile): Array<{ path: string; content: string }> {
  const inputs: Array<{ path: string; content: string }> = [];
  for (const [label, body] of golden.sections) {
    const match = /^before (\S+)( \(no final newline\))?$/.exec(label);
    if (match?.[1]) inputs.push({ path: match[1], content: match[2] ? body.replace(/\n$/, "") : body });
  }
  return inputs;
}

/** The host files a target writes besides guidance and skills: its entry file and its hook file. */
function hostFiles(box: Sandbox, target: Target, scope: Scope): Array<{ file: string; kind: "entry" | "hook" }> {
  const layout = targetLayout(target, scope, hostEnvironment({ cwd: box.project, env: box.env, platform: "linux" }));
  const files: Array<{ file: string; kind: "entry" | "hook" }> = [];
  if (layout.entry) files.push({ file: layout.entry.file, kind: "entry" });
  if (layout.hookFile) files.push({ file: layout.hookFile, kind: "hook" });
  return files;
}

const isState = (path: string) => path === "home/.local" || path.startsWith("home/.local/");

async function tree(box: Sandbox) {
  return snapshotTree(join(box.home, ".."), isState);
}

for (const { target, scope } of CASES) {
  const name = `${target}.${scope}.golden`;
  describe(`${target} (${scope})`, async () => {
    const golden = await loadGolden(name);
    let dirty = false;
    const expectGolden = (label: string, actual: string | null) => {
      if (UPDATE) {
        golden.sections.set(label, actual ?? "");
        dirty = true;
        return;
      }
      expect(golden.sections.has(label)).toBe(true);
      expect(actual).toBe(golden.sections.get(label) as string);
    };
    afterAll(async () => {
      if (dirty) await saveGolden(name, golden);
    });

    test("the golden file names the documentation it follows", () => {
      expect(golden.header).toMatch(/^# follows: https:\/\//m);
      expect(golden.header).toMatch(/^# schema: /m);
    });

    test("fresh install writes the host's format, the guidance block and the skill", async () => {
      const box = await sandbox();
      try {
        const report = await install(request(target, scope), box.context());
        expect(report.problems).toEqual([]);
        for (const { file, kind } of hostFiles(box, target, scope)) {
          const text = await box.read(file);
          expectGolden(`fresh ${relative(box, scope, file)}`, text);
          if (kind === "entry") checkEntryFile(target, text as string);
          else checkHookFile(target, text as string);
        }
        const layout = targetLayout(target, scope, box.context().he);
        for (const file of layout.guidance) expect(await box.read(file)).toContain(BLOCK_BEGIN);
        if (layout.skillDir) expect(await box.read(join(layout.skillDir, "SKILL.md"))).toContain("name: ast-mcp");
        // A second run changes nothing.
        const again = await install(request(target, scope), box.context());
        expect(again.changes).toEqual([]);
        expect(again.problems).toEqual([]);
      } finally {
        await box.cleanup();
      }
    });

    test("--dry-run prints the exact diff and writes nothing", async () => {
      const box = await sandbox();
      try {
        const before = await tree(box);
        const report = await install(request(target, scope, { dryRun: true }), box.context());
        const shown = renderReport(report).stdout.split(box.project).join("<project>").split(box.home).join("~");
        expect(shown).toMatch(/^dry run: \d+ file\(s\) would change; nothing was written$/m);
        // Only the host files: guidance and skill diffs follow the templates, checked elsewhere.
        const hostDiffs = shown
          .replace(/^dry run: .*\n/m, "")
          .split(/(?=^--- )/m)
          .filter((part) => hostFiles(box, target, scope).some(({ file }) => part.includes(relative(box, scope, file).replace(/^~\//, "~/"))));
        expectGolden("dry-run", hostDiffs.join(""));
        expect(await tree(box)).toEqual(before);
        expect((await readRecord(box.context().he)).installs).toEqual([]);
      } finally {
        await box.cleanup();
      }
    });

    test("merges into existing files, then uninstall restores every file byte for byte", async () => {
      const box = await sandbox();
      try {
        for (const input of befores(golden)) await box.write(absolute(box, input.path), input.content);
        await box.write(join(box.project, "ast-mcp.toml"), "[hook]\nmode = \"deny\"\n");
        for (const file of targetLayout(target, scope, box.context().he).guidance) await box.write(file, "# Notes\n\nExisting instructions.\n");
        const before = await tree(box);
        const report = await install(request(target, scope), box.context());
        expect(report.problems).toEqual([]);
        for (const input of befores(golden)) {
          const file = absolute(box, input.path);
          const hostFile = hostFiles(box, target, scope).find((candidate) => candidate.file === file);
          const text = await box.read(file);
          if (!hostFile) {
            expect(text).toBe(input.content);
            continue;
          }
          expectGolden(`merged ${input.path}`, text);
          if (hostFile.kind === "entry") checkEntryFile(target, text as string);
          else checkHookFile(target, text as string);
        }
        const removed = await uninstall({ targets: [target], scopes: [scope], dryRun: false }, box.context());
        expect(removed.problems).toEqual([]);
        expect(await tree(box)).toEqual(before);
      } finally {
        await box.cleanup();
      }
    });

    test("install then uninstall leaves nothing behind", async () => {
      const box = await sandbox();
      try {
        const before = await tree(box);
        await install(request(target, scope), box.context());
        expect(await tree(box)).not.toEqual(before);
        await uninstall({ targets: [target], scopes: [scope], dryRun: false }, box.context());
        expect(await tree(box)).toEqual(before);
        expect((await readRecord(box.context().he)).installs).toEqual([]);
      } finally {
        await box.cleanup();
      }
    });

    test("a malformed file is reported and left untouched", async () => {
      const box = await sandbox();
      try {
        const entry = hostFiles(box, target, scope).find((file) => file.kind === "entry")!.file;
        const broken = target === "codex" ? "[mcp_servers\ncommand = \"x\"\n" : "{ \"mcpServers\": { \"x\": ";
        await box.write(entry, broken);
        const report = await install(request(target, scope), box.context());
        expect(report.problems.map((problem) => problem.file)).toEqual([entry]);
        expect(report.problems[0]?.message).toMatch(/not valid (JSON|TOML)/);
        expect(await box.read(entry)).toBe(broken);
        // The rest is installed; the record holds no entry for the broken file.
        const record = await readRecord(box.context().he);
        expect(record.installs.flatMap((install) => install.artifacts).some((artifact) => artifact.file === entry)).toBe(false);
      } finally {
        await box.cleanup();
      }
    });

    test("update re-points entries and hooks at the current executable", async () => {
      const box = await sandbox();
      try {
        await install(request(target, scope), box.context());
        const report = await update({ dryRun: false }, box.context({ executable: NEW_EXECUTABLE }));
        expect(report.problems).toEqual([]);
        for (const { file } of hostFiles(box, target, scope)) {
          const text = await box.read(file);
          expectGolden(`updated ${relative(box, scope, file)}`, text);
          expect(text).not.toContain("/opt/ast-mcp/bin/ast-mcp");
        }
        expect((await update({ dryRun: false }, box.context({ executable: NEW_EXECUTABLE }))).changes).toEqual([]);
      } finally {
        await box.cleanup();
      }
    });
  });
}

describe("several targets in one scope", () => {
  test("shared files are owned together; uninstalling one target keeps what another needs", async () => {
    const box = await sandbox();
    try {
      const before = await tree(box);
      const report = await install({ ...request("claude", "local"), targets: ["claude", "copilot", "vscode", "codex"] }, box.context());
      expect(report.problems).toEqual([]);
      expect(await box.read(join(box.project, "AGENTS.md"))).toContain(BLOCK_BEGIN);
      await uninstall({ targets: ["copilot", "codex"], scopes: ["local"], dryRun: false }, box.context());
      // .mcp.json is Claude's too; AGENTS.md is still VS Code's; .github/hooks is still VS Code's.
      expect(await box.read(join(box.project, ".mcp.json"))).toContain("\"ast-mcp\"");
      expect(await box.read(join(box.project, "AGENTS.md"))).toContain(BLOCK_BEGIN);
      expect(await box.read(join(box.project, ".github", "hooks", "ast-mcp.json"))).toContain("hook --host copilot");
      expect(await box.read(join(box.project, ".codex", "config.toml"))).toBeNull();
      await uninstall({ targets: ["claude", "vscode"], scopes: ["local"], dryRun: false }, box.context());
      expect(await tree(box)).toEqual(before);
    } finally {
      await box.cleanup();
    }
  });

  test("--target all skips Claude Desktop locally with a note", async () => {
    const box = await sandbox();
    try {
      const report = await install({ ...request("claude", "local"), targets: ["claude", "codex", "copilot", "vscode", "cursor", "gemini", "claude-desktop"] }, box.context());
      expect(report.problems).toEqual([]);
      expect(report.notes.join("\n")).toContain("Claude Desktop: skipped");
      const names = await readdir(box.project);
      expect(names.sort()).toEqual([".agents", ".claude", ".codex", ".cursor", ".gemini", ".github", ".mcp.json", ".vscode", "AGENTS.md", "CLAUDE.md", "GEMINI.md"]);
    } finally {
      await box.cleanup();
    }
  });

  test("--no-hooks, --no-guidance and --no-skill leave those out, and a later run takes them back", async () => {
    const box = await sandbox();
    try {
      await install(request("claude", "local"), box.context());
      const report = await install(request("claude", "local", { hooks: false, guidance: false, skill: false }), box.context());
      const removed = report.changes.filter((change) => change.after === null || change.before !== null).map((change) => change.file);
      expect(removed).toContain(join(box.project, ".claude", "settings.json"));
      expect(await box.read(join(box.project, "CLAUDE.md"))).toBeNull();
      expect(await box.read(join(box.project, ".claude", "skills", "ast-mcp", "SKILL.md"))).toBeNull();
      expect(await box.read(join(box.project, ".mcp.json"))).toContain("\"ast-mcp\"");
    } finally {
      await box.cleanup();
    }
  });
});

describe("HTTP entries", () => {
  const expected: Record<Target, unknown> = {
    claude: { type: "http", url: "http://127.0.0.1:4000/mcp", headers: { Authorization: "Bearer ${AST_MCP_TOKEN}" } },
    codex: "[mcp_servers.ast-mcp]\nurl = \"http://127.0.0.1:4000/mcp\"\nbearer_token_env_var = \"AST_MCP_TOKEN\"\n",
    copilot: { type: "http", url: "http://127.0.0.1:4000/mcp", headers: { Authorization: "Bearer ${AST_MCP_TOKEN}" }, tools: ["*"] },
    vscode: { type: "http", url: "http://127.0.0.1:4000/mcp", headers: { Authorization: "Bearer ${env:AST_MCP_TOKEN}" } },
    cursor: { url: "http://127.0.0.1:4000/mcp", headers: { Authorization: "Bearer ${env:AST_MCP_TOKEN}" } },
    gemini: { httpUrl: "http://127.0.0.1:4000/mcp", headers: { Authorization: "Bearer ${AST_MCP_TOKEN}" } },
    "claude-desktop": undefined,
  };
  for (const target of Object.keys(expected) as Target[]) {
    test(`${target}: a wildcard bind becomes loopback; the token is referenced by its variable, never written`, async () => {
      const box = await sandbox();
      try {
        const context = box.context({ http: { host: "0.0.0.0", port: 4000, tokenSet: true } });
        const report = await install(request(target, "global", { transport: "http" }), context);
        const entry = hostFiles(box, target, "global").find((file) => file.kind === "entry")!.file;
        const text = await box.read(entry);
        if (target === "claude-desktop") {
          expect(text).toBeNull();
          expect(report.notes.join("\n")).toContain("stdio servers only");
          return;
        }
        if (target === "codex") expect(text).toBe(expected.codex as string);
        else expect(JSON.parse(text as string)[target === "vscode" ? "servers" : "mcpServers"]["ast-mcp"]).toEqual(expected[target]);
        checkEntryFile(target, text as string);
      } finally {
        await box.cleanup();
      }
    });
  }

  test("without a token no Authorization header is written", async () => {
    const box = await sandbox();
    try {
      await install(request("claude", "local", { transport: "http", host: "::", port: 5000 }), box.context());
      expect(JSON.parse((await box.read(join(box.project, ".mcp.json"))) as string).mcpServers["ast-mcp"]).toEqual({ type: "http", url: "http://127.0.0.1:5000/mcp" });
    } finally {
      await box.cleanup();
    }
  });
});

describe("edge cases", () => {
  test("an existing entry of ours that someone wrote by hand is replaced and comes back on uninstall", async () => {
    const box = await sandbox();
    try {
      const original = "{\n  \"mcpServers\": {\n    \"ast-mcp\": { \"command\": \"ast-mcp\", \"args\": [\"mcp\", \".\"] }\n  }\n}\n";
      await box.write(join(box.project, ".mcp.json"), original);
      await install(request("claude", "local", { hooks: false, guidance: false, skill: false }), box.context());
      expect(await box.read(join(box.project, ".mcp.json"))).toContain("/opt/ast-mcp/bin/ast-mcp");
      await uninstall({ targets: ["claude"], scopes: ["local"], dryRun: false }, box.context());
      expect(await box.read(join(box.project, ".mcp.json"))).toBe(original);
    } finally {
      await box.cleanup();
    }
  });

  test("a Codex entry written as an inline table is reported, not rewritten", async () => {
    const box = await sandbox();
    try {
      const text = "mcp_servers = { ast-mcp = { command = \"x\" } }\n";
      await box.write(join(box.project, ".codex", "config.toml"), text);
      const report = await install(request("codex", "local", { hooks: false, guidance: false, skill: false }), box.context());
      expect(report.problems[0]?.message).toContain("does not edit");
      expect(await box.read(join(box.project, ".codex", "config.toml"))).toBe(text);
    } finally {
      await box.cleanup();
    }
  });

  test("a skill file changed by the user is left in place on uninstall", async () => {
    const box = await sandbox();
    try {
      await install(request("claude", "local"), box.context());
      const skill = join(box.project, ".claude", "skills", "ast-mcp", "SKILL.md");
      await box.write(skill, "my own notes\n");
      const report = await uninstall({ targets: ["claude"], scopes: ["local"], dryRun: false }, box.context());
      expect(report.notes.join("\n")).toContain("changed since ast-mcp installed it");
      expect(await box.read(skill)).toBe("my own notes\n");
    } finally {
      await box.cleanup();
    }
  });

  test("uninstall --dry-run prints the removal diff and writes nothing", async () => {
    const box = await sandbox();
    try {
      await install(request("gemini", "local", { hooks: false, skill: false }), box.context());
      const before = await tree(box);
      const report = await uninstall({ targets: ["gemini"], scopes: ["local"], dryRun: true }, box.context());
      const shown = renderReport(report).stdout;
      expect(shown).toContain("+++ /dev/null");
      expect(await tree(box)).toEqual(before);
    } finally {
      await box.cleanup();
    }
  });
});
