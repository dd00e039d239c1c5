import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { runConfigCommand } from "../../src/cli/config-command.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type ConfigFixture, makeFixture } from "./fixture.ts";

let fx: ConfigFixture;
beforeEach(async () => {
  fx = await makeFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

async function validate(env: NodeJS.ProcessEnv = fx.env) {
  let stdout = "";
  let stderr = "";
  const code = await runConfigCommand(["validate"], { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), cwd: fx.project, env });
  return { code, stdout, stderr };
}

describe("config validate explains a wrong [http.auth]", () => {
  test("a complete setup is valid, and its values are the effective configuration", async () => {
    await fx.writeUser(
      "[http.auth]\nissuer = \"https://auth.example.com\"\nresource = \"https://mcp.example.com/mcp\"\nalgorithms = [\"ES256\"]\nscopes = { \"repo:read\" = \"read\", \"repo:admin\" = \"full\" }\n",
    );
    const result = await validate();
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const snapshot = await loadConfig({ cwd: fx.project, env: fx.env });
    expect(snapshot.config.http.auth).toMatchObject({
      issuer: "https://auth.example.com",
      algorithms: ["ES256"],
      leeway_seconds: 60,
      scopes: { "repo:read": "read", "repo:admin": "full" },
    });
    expect(snapshot.sources["http.auth.issuer"]).toBe(`user:${fx.userFile}`);
  });

  test("a resource without an issuer says the mode would stay off", async () => {
    await fx.writeUser("[http.auth]\nresource = \"https://mcp.example.com/mcp\"\n");
    const result = await validate();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${fx.userFile}: http.auth.issuer: missing`);
  });

  test("an issuer without the resource asks for this server's URL", async () => {
    await fx.writeUser("[http.auth]\nissuer = \"https://auth.example.com\"\n");
    const result = await validate();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("http.auth.resource: missing");
    expect(result.stderr).toContain("audience");
  });

  test("an http issuer off loopback is refused; on loopback it is accepted", async () => {
    await fx.writeUser("[http.auth]\nissuer = \"http://auth.example.com\"\nresource = \"https://mcp.example.com/mcp\"\n");
    const offLoopback = await validate();
    expect(offLoopback.code).toBe(1);
    expect(offLoopback.stderr).toContain("http.auth.issuer: \"http://auth.example.com\" uses http off loopback");
    await fx.writeUser("[http.auth]\nissuer = \"http://127.0.0.1:9000\"\nresource = \"http://localhost:3768/mcp\"\n");
    expect((await validate()).code).toBe(0);
  });

  test("an unknown profile in the scope map names the profiles that exist", async () => {
    await fx.writeUser("[http.auth]\nissuer = \"https://auth.example.com\"\nresource = \"https://mcp.example.com/mcp\"\nscopes = { \"repo:read\" = \"readonly\" }\n");
    const result = await validate();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("unknown tool profile \"readonly\"; the profiles are read, write, full");
  });

  test("an algorithm outside the asymmetric set (HS256, none) is refused", async () => {
    await fx.writeUser("[http.auth]\nissuer = \"https://auth.example.com\"\nresource = \"https://mcp.example.com/mcp\"\nalgorithms = [\"HS256\"]\n");
    const result = await validate();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("http.auth.algorithms");
  });

  test("the issuer can come from the environment, and a static token beside it is reported unused", async () => {
    const env = { ...fx.env, AST_MCP_HTTP_AUTH_ISSUER: "https://auth.example.com", AST_MCP_HTTP_AUTH_RESOURCE: "https://mcp.example.com/mcp", AST_MCP_TOKEN: "static" };
    const result = await validate(env);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("warning: [http.auth] sets an issuer");
    expect(result.stderr).toContain("env:AST_MCP_TOKEN");
  });

  test("an untrusted project file cannot configure the OAuth mode", async () => {
    await fx.writeProject("[http.auth]\nissuer = \"https://evil.example\"\n");
    const snapshot = await loadConfig({ cwd: fx.project, env: fx.env });
    expect(snapshot.config.http.auth.issuer).toBeUndefined();
    expect(snapshot.warnings.join("\n")).toContain("http.auth.issuer ignored");
  });
});
