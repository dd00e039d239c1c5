import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { promises as fs } from "node:fs";
import path from "node:path";
import { LIMITS } from "../../src/core/limits.ts";
import { loadConfig, userConfigLocation } from "../../src/config/load.ts";
import { DEFAULT_CONFIG, DEFAULT_RULES } from "../../src/config/schema.ts";
import type { ConfigSnapshot } from "../../src/config/types.ts";
import { makeFixture } from "./fixture.ts";
import type { ConfigFixture } from "./fixture.ts";

let fx: ConfigFixture;
beforeEach(async () => {
  fx = await makeFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

const load = (extra: Partial<Parameters<typeof loadConfig>[0]> = {}): Promise<ConfigSnapshot> => loadConfig({ cwd: fx.project, env: fx.env, ...extra });

function problemAt(snapshot: ConfigSnapshot, keyPath: string) {
  return snapshot.problems.find((problem) => problem.keyPath === keyPath);
}

describe("layering", () => {
  test("CLI > env > project > user > default, each value with its source", async () => {
    await fx.writeUser(`
[http]
host = "user-host"
port = 1001
session_idle_minutes = 5
max_sessions = 7
[log]
level = "debug"
[safety]
require_hash = false
`);
    await fx.writeProject(`
[safety]
require_hash = true
`);
    const snapshot = await load({
      env: { ...fx.env, AST_MCP_HTTP_PORT: "2002", AST_MCP_HTTP_SESSION_IDLE_MINUTES: "9" },
      cliOverrides: { host: "cli-host" },
    });
    const user = `user:${fx.userFile}` as const;
    expect(snapshot.problems).toEqual([]);
    expect(snapshot.config.http.host).toBe("cli-host");
    expect(snapshot.sources["http.host"]).toBe("cli:--host");
    expect(snapshot.config.http.port).toBe(2002);
    expect(snapshot.sources["http.port"]).toBe("env:AST_MCP_HTTP_PORT");
    expect(snapshot.config.http.session_idle_minutes).toBe(9);
    expect(snapshot.sources["http.session_idle_minutes"]).toBe("env:AST_MCP_HTTP_SESSION_IDLE_MINUTES");
    expect(snapshot.config.safety.require_hash).toBe(true);
    expect(snapshot.sources["safety.require_hash"]).toBe(`project:${fx.projectFile}`);
    expect(snapshot.config.http.max_sessions).toBe(7);
    expect(snapshot.sources["http.max_sessions"]).toBe(user);
    expect(snapshot.config.log.level).toBe("debug");
    expect(snapshot.sources["log.level"]).toBe(user);
    expect(snapshot.config.http.json_response).toBe(DEFAULT_CONFIG.http.json_response);
    expect(snapshot.sources["http.json_response"]).toBe("default");
    expect(snapshot.files).toEqual({ user: fx.userFile, userExists: true, project: fx.projectFile, projectExists: true });
    expect(snapshot.generation).toBe(1);
  });

  test("CLI port beats env port; env beats a project value", async () => {
    await fx.writeProject("[safety]\nrequire_hash = true\n");
    const snapshot = await load({
      env: { ...fx.env, AST_MCP_HTTP_PORT: "2002", AST_MCP_SAFETY_REQUIRE_HASH: "false" },
      cliOverrides: { port: 3003, json_response: true },
    });
    expect(snapshot.config.http.port).toBe(3003);
    expect(snapshot.sources["http.port"]).toBe("cli:--port");
    expect(snapshot.config.http.json_response).toBe(true);
    expect(snapshot.sources["http.json_response"]).toBe("cli:--json-response");
    expect(snapshot.config.safety.require_hash).toBe(false);
    expect(snapshot.sources["safety.require_hash"]).toBe("env:AST_MCP_SAFETY_REQUIRE_HASH");
  });

  test("an invalid CLI override is a problem naming the flag", async () => {
    const snapshot = await load({ cliOverrides: { port: 70000 } });
    expect(snapshot.problems).toHaveLength(1);
    expect(snapshot.problems[0]).toMatchObject({ file: "cli:--port", keyPath: "http.port" });
    expect(snapshot.config.http.port).toBe(DEFAULT_CONFIG.http.port);
  });

  test("no files at all gives the defaults and the default rules", async () => {
    const snapshot = await load();
    expect(snapshot.problems).toEqual([]);
    expect(snapshot.config.http).toEqual(DEFAULT_CONFIG.http);
    expect(snapshot.config.paths).toEqual(DEFAULT_RULES);
    expect(snapshot.files.userExists).toBe(false);
    expect(snapshot.files.projectExists).toBe(false);
    expect(Object.values(snapshot.sources).every((source) => source === "default")).toBe(true);
    expect(snapshot.token).toBeUndefined();
  });

  test("rules come in order default, user, project, each tagged", async () => {
    await fx.writeUser("[[paths]]\npath = \"build/**\"\nwrite = \"allow\"\n");
    await fx.writeProject("[[paths]]\npath = \"vendor/**\"\nwrite = \"deny\"\n");
    const snapshot = await load();
    const rules = snapshot.config.paths;
    expect(rules.slice(0, DEFAULT_RULES.length)).toEqual(DEFAULT_RULES);
    expect(rules.slice(DEFAULT_RULES.length)).toEqual([
      { path: "build/**", write: "allow", source: `user:${fx.userFile}` },
      { path: "vendor/**", write: "deny", source: `project:${fx.projectFile}` },
    ]);
  });

  test("the snapshot is frozen", async () => {
    const snapshot = await load();
    expect(Object.isFrozen(snapshot.config.http)).toBe(true);
    expect(() => {
      (snapshot.config.workspace.roots as string[]).push("/elsewhere");
    }).toThrow();
  });
});

describe("file validation", () => {
  test("an unknown key is a problem naming its path, with a suggestion", async () => {
    await fx.writeUser("[http]\nprot = 1\nport = 4000\n");
    const snapshot = await load();
    const problem = problemAt(snapshot, "http.prot");
    expect(problem?.file).toBe(fx.userFile);
    expect(problem?.message).toContain("did you mean \"port\"");
    // The valid rest of the file still applies.
    expect(snapshot.config.http.port).toBe(4000);
  });

  test("unknown keys at the top level and inside rules name their paths", async () => {
    await fx.writeUser("color = \"red\"\n[[paths]]\npath = \"a/**\"\nwrite = \"deny\"\n[[paths]]\npath = \"b/**\"\nwirte = \"deny\"\n");
    const snapshot = await load();
    expect(problemAt(snapshot, "color")).toBeDefined();
    expect(problemAt(snapshot, "paths[1].wirte")?.message).toContain("did you mean \"write\"");
    // The broken rule is dropped; the good one stays.
    const userRules = snapshot.config.paths.filter((rule) => rule.source.startsWith("user:"));
    expect(userRules.map((rule) => rule.path)).toEqual(["a/**"]);
  });

  test("a wrong type is a problem and the default stays", async () => {
    await fx.writeUser("[http]\nport = \"eighty\"\n[log]\nlevel = \"loud\"\n");
    const snapshot = await load();
    expect(problemAt(snapshot, "http.port")).toBeDefined();
    expect(problemAt(snapshot, "log.level")).toBeDefined();
    expect(snapshot.config.http.port).toBe(DEFAULT_CONFIG.http.port);
    expect(snapshot.sources["http.port"]).toBe("default");
  });

  test("a TOML syntax error is a problem with its line", async () => {
    await fx.writeUser("[http]\nport = = 3\n");
    const snapshot = await load();
    expect(snapshot.problems).toHaveLength(1);
    expect(snapshot.problems[0]?.file).toBe(fx.userFile);
    expect(snapshot.problems[0]?.message).toContain("line 2");
  });

  test("a file over the size limit is a problem and is not used", async () => {
    const filler = `# ${"x".repeat(100)}\n`.repeat(Math.ceil(LIMITS.config.maxFileBytes / 100) + 1);
    await fx.writeUser(`[http]\nport = 4000\n${filler}`);
    const snapshot = await load();
    expect(snapshot.problems[0]?.message).toContain(String(LIMITS.config.maxFileBytes));
    expect(snapshot.config.http.port).toBe(DEFAULT_CONFIG.http.port);
  });

  test("relative roots and token_file in the user file resolve against its directory", async () => {
    const userDir = path.dirname(fx.userFile);
    await fs.mkdir(path.join(userDir, "repo"));
    await fs.writeFile(path.join(userDir, "tok"), "secret\n", { mode: 0o600 });
    await fx.writeUser("[workspace]\nroots = [\"repo\"]\n[http]\ntoken_file = \"tok\"\n");
    const snapshot = await load();
    expect(snapshot.config.workspace.roots).toEqual([path.join(userDir, "repo")]);
    expect(snapshot.config.http.token_file).toBe(path.join(userDir, "tok"));
    expect(snapshot.token).toBe("secret");
  });
});

describe("the project file is untrusted", () => {
  test("it cannot add roots, allow rules, follow_symlinks, http or log settings, or loosen require_hash", async () => {
    const elsewhere = path.join(fx.base, "elsewhere");
    await fs.mkdir(elsewhere);
    await fx.writeProject(`
[workspace]
roots = ["${elsewhere}"]
[http]
host = "0.0.0.0"
port = 9999
token_file = "/etc/passwd"
[log]
level = "debug"
[safety]
require_hash = false
[[paths]]
path = "secrets/**"
read = "allow"
write = "deny"
follow_symlinks = true
[[paths]]
path = "**/.env"
read = "allow"
`);
    const snapshot = await load();
    expect(snapshot.problems).toEqual([]);
    expect(snapshot.config.workspace.roots).toEqual([fx.project]);
    expect(snapshot.config.http).toEqual(DEFAULT_CONFIG.http);
    expect(snapshot.config.log.level).toBe("info");
    expect(snapshot.config.safety.require_hash).toBe(true);
    expect(snapshot.sources["safety.require_hash"]).toBe("default");

    const projectRules = snapshot.config.paths.filter((rule) => rule.source.startsWith("project:"));
    // The deny part of the first rule applies; the allow-only second rule is dropped entirely.
    expect(projectRules).toEqual([{ path: "secrets/**", write: "deny", source: `project:${fx.projectFile}` }]);
    expect(snapshot.config.paths.some((rule) => rule.read === "allow")).toBe(false);

    const warned = (key: string) => snapshot.warnings.some((warning) => warning.includes(fx.projectFile) && warning.includes(` ${key} `));
    for (
      const key of [
        "workspace.roots",
        "http.host",
        "http.port",
        "http.token_file",
        "log.level",
        "safety.require_hash",
        "paths[0].read",
        "paths[0].follow_symlinks",
        "paths[1].read",
      ]
    ) {
      expect(warned(key)).toBe(true);
    }
    expect(warned("paths[0].write")).toBe(false);
  });

  test("it can tighten require_hash when the user loosened it, and keep follow_symlinks = false", async () => {
    await fx.writeUser("[safety]\nrequire_hash = false\n");
    await fx.writeProject("[safety]\nrequire_hash = true\n[[paths]]\npath = \"x/**\"\ndelete = \"deny\"\nfollow_symlinks = false\n");
    const snapshot = await load();
    expect(snapshot.config.safety.require_hash).toBe(true);
    expect(snapshot.warnings).toEqual([]);
    expect(snapshot.config.paths.at(-1)).toEqual({ path: "x/**", delete: "deny", follow_symlinks: false, source: `project:${fx.projectFile}` });
  });

  test("the project file is read at the first root, not the cwd", async () => {
    const other = path.join(fx.base, "other");
    await fs.mkdir(other);
    await fs.writeFile(path.join(other, "ast-mcp.toml"), "[[paths]]\npath = \"o/**\"\nwrite = \"deny\"\n");
    await fx.writeProject("[[paths]]\npath = \"p/**\"\nwrite = \"deny\"\n");
    const snapshot = await load({ cliRoots: [other, fx.project] });
    expect(snapshot.files.project).toBe(path.join(other, "ast-mcp.toml"));
    expect(snapshot.config.paths.at(-1)?.path).toBe("o/**");
  });

  test("problems in the project file are reported too", async () => {
    await fx.writeProject("[safety]\nrequire_hsh = true\n");
    const snapshot = await load();
    expect(problemAt(snapshot, "safety.require_hsh")?.file).toBe(fx.projectFile);
  });
});

describe("environment", () => {
  test("values are coerced by the schema type", async () => {
    const rootA = path.join(fx.base, "a");
    const rootB = path.join(fx.base, "b");
    await Promise.all([fs.mkdir(rootA), fs.mkdir(rootB)]);
    const snapshot = await load({
      env: {
        ...fx.env,
        AST_MCP_HTTP_PORT: " 4100 ",
        AST_MCP_HTTP_JSON_RESPONSE: "yes",
        AST_MCP_LOG_LEVEL: "warn",
        AST_MCP_SAFETY_REQUIRE_HASH: "0",
        AST_MCP_WORKSPACE_ROOTS: [rootA, "", rootB].join(path.delimiter),
        AST_MCP_HTTP_ALLOWED_ORIGINS: "http://a.test:8080, https://b.test",
      },
    });
    expect(snapshot.problems).toEqual([]);
    expect(snapshot.config.http.port).toBe(4100);
    expect(snapshot.config.http.json_response).toBe(true);
    expect(snapshot.config.log.level).toBe("warn");
    expect(snapshot.sources["log.level"]).toBe("env:AST_MCP_LOG_LEVEL");
    expect(snapshot.config.safety.require_hash).toBe(false);
    expect(snapshot.config.workspace.roots).toEqual([rootA, rootB]);
    expect(snapshot.sources["workspace.roots"]).toBe("env:AST_MCP_WORKSPACE_ROOTS");
    expect(snapshot.config.http.allowed_origins).toEqual(["http://a.test:8080", "https://b.test"]);
  });

  test("bad values are problems naming the variable, and leave the lower layer in place", async () => {
    await fx.writeUser("[http]\nport = 4000\n");
    const snapshot = await load({
      env: {
        ...fx.env,
        AST_MCP_HTTP_PORT: "80abc",
        AST_MCP_HTTP_MAX_SESSIONS: "1.5",
        AST_MCP_HTTP_JSON_RESPONSE: "maybe",
        AST_MCP_LOG_LEVEL: "chatty",
      },
    });
    const files = snapshot.problems.map((problem) => problem.file).sort();
    expect(files).toEqual(["env:AST_MCP_HTTP_JSON_RESPONSE", "env:AST_MCP_HTTP_MAX_SESSIONS", "env:AST_MCP_HTTP_PORT", "env:AST_MCP_LOG_LEVEL"]);
    expect(problemAt(snapshot, "http.port")?.message).toContain("AST_MCP_HTTP_PORT");
    expect(snapshot.config.http.port).toBe(4000);
    expect(snapshot.sources["http.port"]).toBe(`user:${fx.userFile}`);
  });

  test("an unknown AST_MCP_ variable is a warning; the token never becomes a config value", async () => {
    const snapshot = await load({ env: { ...fx.env, AST_MCP_HTTP_PROT: "1", AST_MCP_TOKEN: "s3cret" } });
    expect(snapshot.problems).toEqual([]);
    expect(snapshot.warnings.some((warning) => warning.includes("AST_MCP_HTTP_PROT"))).toBe(true);
    expect(snapshot.token).toBe("s3cret");
    expect(snapshot.tokenSource).toBe("env:AST_MCP_TOKEN");
    expect(JSON.stringify(snapshot.config)).not.toContain("s3cret");
    expect(JSON.stringify(snapshot.sources)).not.toContain("s3cret");
  });

  test("AST_MCP_CONFIG replaces the user file location; a missing one is a problem", async () => {
    const custom = path.join(fx.base, "custom.toml");
    await fs.writeFile(custom, "[http]\nport = 4200\n");
    const snapshot = await load({ env: { ...fx.env, AST_MCP_CONFIG: custom } });
    expect(snapshot.files.user).toBe(custom);
    expect(snapshot.config.http.port).toBe(4200);
    expect(snapshot.sources["http.port"]).toBe(`user:${custom}`);

    const missing = await load({ env: { ...fx.env, AST_MCP_CONFIG: path.join(fx.base, "nope.toml") } });
    expect(missing.problems[0]?.message).toContain("AST_MCP_CONFIG");
  });
});

describe("user file location", () => {
  test("XDG, then ~/.config, then %APPDATA% on Windows", () => {
    expect(userConfigLocation({ XDG_CONFIG_HOME: "/x" }, "/h", "linux", "/c").path).toBe("/x/ast-mcp/ast-mcp.toml");
    expect(userConfigLocation({ XDG_CONFIG_HOME: "relative" }, "/h", "linux", "/c").path).toBe("/h/.config/ast-mcp/ast-mcp.toml");
    expect(userConfigLocation({}, "/h", "darwin", "/c").path).toBe("/h/.config/ast-mcp/ast-mcp.toml");
    expect(userConfigLocation({ APPDATA: "C:\\Users\\u\\AppData\\Roaming" }, "C:\\Users\\u", "win32", "C:\\w").path).toBe(
      "C:\\Users\\u\\AppData\\Roaming\\ast-mcp\\ast-mcp.toml",
    );
    expect(userConfigLocation({ AST_MCP_CONFIG: "conf.toml" }, "/h", "linux", "/c")).toEqual({ path: "/c/conf.toml", explicit: true });
  });
});

describe("roots", () => {
  test("CLI roots beat env and user roots and resolve against the cwd", async () => {
    const fromEnv = path.join(fx.base, "env-root");
    await fs.mkdir(fromEnv);
    await fx.writeUser(`[workspace]\nroots = ["${fromEnv}"]\n`);
    const snapshot = await load({ cwd: fx.base, cliRoots: ["project"], env: { ...fx.env, AST_MCP_WORKSPACE_ROOTS: fromEnv } });
    expect(snapshot.config.workspace.roots).toEqual([fx.project]);
    expect(snapshot.sources["workspace.roots"]).toBe("cli:ROOT");
  });

  test("user roots apply when nothing else names one", async () => {
    await fx.writeUser(`[workspace]\nroots = ["${fx.project}"]\n`);
    const snapshot = await load({ cwd: fx.base });
    expect(snapshot.config.workspace.roots).toEqual([fx.project]);
    expect(snapshot.sources["workspace.roots"]).toBe(`user:${fx.userFile}`);
    expect(snapshot.files.project).toBe(fx.projectFile);
  });

  test("the cwd is the implicit root", async () => {
    const snapshot = await load();
    expect(snapshot.config.workspace.roots).toEqual([fx.project]);
    expect(snapshot.sources["workspace.roots"]).toBe("default");
  });

  test("the home directory is never an implicit root", async () => {
    const snapshot = await load({ cwd: fx.home, homeDir: fx.home });
    expect(snapshot.config.workspace.roots).toEqual([]);
    expect(snapshot.files.project).toBeUndefined();
    expect(snapshot.warnings.some((warning) => warning.includes("home directory") && warning.includes("[workspace].roots"))).toBe(true);
  });

  test("the home directory from HOME counts too", async () => {
    const snapshot = await load({ cwd: fx.home });
    expect(snapshot.config.workspace.roots).toEqual([]);
  });

  test("the file-system root is never an implicit root", async () => {
    const snapshot = await load({ cwd: path.parse(fx.base).root });
    expect(snapshot.config.workspace.roots).toEqual([]);
    expect(snapshot.warnings.some((warning) => warning.includes("file-system root"))).toBe(true);
  });

  test("an explicit root may still be the home directory", async () => {
    const snapshot = await load({ cwd: fx.home, cliRoots: [fx.home] });
    expect(snapshot.config.workspace.roots).toEqual([fx.home]);
  });

  test("a root that does not exist is a problem", async () => {
    const snapshot = await load({ cliRoots: [path.join(fx.base, "missing")] });
    expect(problemAt(snapshot, "workspace.roots")?.message).toContain("does not exist");
  });
});

describe("token file", () => {
  test("a private token file is read and trimmed", async () => {
    const tokenFile = path.join(fx.base, "token");
    await fs.writeFile(tokenFile, "  abc123 \n", { mode: 0o600 });
    await fs.chmod(tokenFile, 0o600);
    await fx.writeUser(`[http]\ntoken_file = "${tokenFile}"\n`);
    const snapshot = await load();
    expect(snapshot.problems).toEqual([]);
    expect(snapshot.token).toBe("abc123");
    expect(snapshot.tokenSource).toBe(`user:${fx.userFile}`);
    expect(snapshot.config.http.token_file).toBe(tokenFile);
    expect(JSON.stringify(snapshot.config)).not.toContain("abc123");
  });

  test("a token file readable by group or others is a problem and not used", async () => {
    const tokenFile = path.join(fx.base, "token");
    await fs.writeFile(tokenFile, "abc123\n");
    for (const mode of [0o644, 0o640, 0o604, 0o610]) {
      await fs.chmod(tokenFile, mode);
      await fx.writeUser(`[http]\ntoken_file = "${tokenFile}"\n`);
      const snapshot = await load();
      expect(snapshot.token).toBeUndefined();
      expect(problemAt(snapshot, "http.token_file")?.message).toContain("must not be readable by others");
    }
  });

  test("AST_MCP_TOKEN wins over the token file", async () => {
    const tokenFile = path.join(fx.base, "token");
    await fs.writeFile(tokenFile, "from-file\n", { mode: 0o600 });
    await fs.chmod(tokenFile, 0o600);
    await fx.writeUser(`[http]\ntoken_file = "${tokenFile}"\n`);
    const snapshot = await load({ env: { ...fx.env, AST_MCP_TOKEN: "from-env" } });
    expect(snapshot.token).toBe("from-env");
  });

  test("a missing or empty token file is a problem", async () => {
    const tokenFile = path.join(fx.base, "token");
    await fx.writeUser(`[http]\ntoken_file = "${tokenFile}"\n`);
    expect(problemAt(await load(), "http.token_file")?.message).toContain("does not exist");
    await fs.writeFile(tokenFile, " \n", { mode: 0o600 });
    await fs.chmod(tokenFile, 0o600);
    expect(problemAt(await load(), "http.token_file")?.message).toContain("empty");
  });
});
