import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { realpath } from "node:fs/promises";
import type { ToolContext } from "../../src/tools/contract.ts";
import { configStatusTool, policyCheckTool } from "../../src/tools/workspace.ts";
import { makeContext, makeTempDir, runTool, type TempDir } from "../support/context.ts";

let temp: TempDir;
let context: ToolContext;

beforeAll(async () => {
  temp = await makeTempDir();
  await temp.write("src/index.ts", "export {};\n");
  context = await makeContext([temp.dir], { rules: [{ path: "generated/**", write: "deny" }] });
});

afterAll(async () => {
  await temp.cleanup();
});

describe("policy_check", () => {
  test("decisions with the rule that decided, for existing and missing paths", async () => {
    const result = await runTool(
      policyCheckTool,
      {
        checks: [
          { path: "src/index.ts", operation: "write" },
          { path: ".env", operation: "read" },
          { path: "generated/out.ts", operation: "write" },
          { path: "generated/out.ts", operation: "read" },
          { path: "/etc/passwd", operation: "read" },
          { path: ".git/HEAD", operation: "delete" },
        ],
      },
      context,
    );
    const [source, env, generatedWrite, generatedRead, outside, git] = result.decisions;
    expect(source).toMatchObject({
      path: "src/index.ts",
      operation: "write",
      allowed: true,
      rule: { path: "<roots>", source: "default", access: "allow" },
      display: "src/index.ts",
    });
    expect(env).toMatchObject({ allowed: false, code: "path_denied", rule: { path: "**/.env", source: "default", access: "deny" } });
    expect(generatedWrite).toMatchObject({ allowed: false, code: "path_denied", rule: { path: "generated/**", source: "user:/test/ast-mcp.toml" } });
    expect(generatedRead.allowed).toBe(true);
    expect(outside).toMatchObject({ allowed: false, code: "path_outside_roots" });
    expect(outside.rule).toBeUndefined();
    expect(git).toMatchObject({ allowed: false, code: "path_denied", rule: { path: "**/.git/**" } });
  });

  test("has no side effects", async () => {
    await runTool(policyCheckTool, { checks: [{ path: "new/dir/file.ts", operation: "write" }] }, context);
    await expect(realpath(`${temp.dir}/new`)).rejects.toThrow();
  });

  test("schema: strict items and known operations only", () => {
    expect(policyCheckTool.input.safeParse({ checks: [{ path: "a", operation: "read" }] }).success).toBe(true);
    expect(policyCheckTool.input.safeParse({ checks: [{ path: "a", operation: "execute" }] }).success).toBe(false);
    expect(policyCheckTool.input.safeParse({ checks: [{ path: "a", operation: "read", why: 1 }] }).success).toBe(false);
    expect(policyCheckTool.input.safeParse({ path: "a", operation: "read" }).success).toBe(false);
  });

  test("render names verdict and rule per line", async () => {
    const result = await runTool(policyCheckTool, { checks: [{ path: ".env", operation: "read" }] }, context);
    const text = policyCheckTool.render(result);
    expect(text).toContain("read .env: denied (path_denied) [rule \"**/.env\" from default]");
    expect(() => JSON.parse(text)).toThrow();
  });
});

describe("config_status", () => {
  test("reports settings, roots and ok health without the token", async () => {
    const secretContext = await makeContext([temp.dir], { snapshot: { token: "super-secret-value", tokenSource: "env:AST_MCP_TOKEN" } });
    const result = await runTool(configStatusTool, {}, secretContext);
    expect(result.health).toEqual({ status: "ok", reasons: [] });
    expect(result.roots).toEqual([{ display: ".", real: await realpath(temp.dir) }]);
    expect(result.token).toEqual({ set: true, source: "env:AST_MCP_TOKEN" });
    expect(result.settings["http.port"]).toEqual({ value: 3768, source: "default" });
    expect(result.rules.some((rule: { path: string }) => rule.path === "**/.env")).toBe(true);
    expect(result.generation).toBe(1);
    expect(JSON.stringify(result)).not.toContain("super-secret-value");
    expect(configStatusTool.render(result)).not.toContain("super-secret-value");
    expect(configStatusTool.render(result)).toContain("token: set (env:AST_MCP_TOKEN)");
  });

  test("degraded with reasons on configuration problems and without roots", async () => {
    const broken = await makeContext([], {
      snapshot: { problems: [{ file: "/home/u/.config/ast-mcp/ast-mcp.toml", keyPath: "http.port", message: "expected a number" }], warnings: ["ignored allow rule"] },
    });
    const result = await runTool(configStatusTool, {}, broken);
    expect(result.health.status).toBe("degraded");
    expect(result.health.reasons).toHaveLength(2);
    expect(result.health.reasons.join(" ")).toContain("No workspace roots");
    expect(result.health.reasons.join(" ")).toContain("expected a number");
    expect(result.warnings).toEqual(["ignored allow rule"]);
    const text = configStatusTool.render(result);
    expect(text).toContain("health: degraded");
    expect(text).toContain("roots: none");
  });

  test("schema takes no arguments", () => {
    expect(configStatusTool.input.safeParse({}).success).toBe(true);
    expect(configStatusTool.input.safeParse({ verbose: true }).success).toBe(false);
  });
});
