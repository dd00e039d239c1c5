/**
 * server.json, the entry the MCP Registry publishes, holds to the registry's own schema and cannot
 * drift from package.json or from what the server reads.
 *
 * registry-server.schema.2025-12-11.json is the registry's published server.json schema, version
 * 2025-12-11 (https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json, generated
 * in github.com/modelcontextprotocol/registry from docs/reference/api/openapi.yaml), kept byte for
 * byte: its SHA-256 is pinned below. Moving to a newer schema is a deliberate change of the file, the
 * pin and server.json's "$schema" together.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import pkg from "../../package.json" with { type: "json" };
import { CACHE_DIR_ENV, CONFIG_PATH_ENV, ENV_VARIABLES, STATE_DIR_ENV, TOKEN_ENV } from "../../src/config/env.ts";
import { DEFAULT_CONFIG } from "../../src/config/schema.ts";

const ROOT = join(import.meta.dir, "..", "..");
const SCHEMA_FILE = join(import.meta.dir, "registry-server.schema.2025-12-11.json");
const SCHEMA_SHA256 = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0";
const SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

interface Input {
  name?: string;
  value?: string;
  valueHint?: string;
  type?: string;
  default?: string;
  variables?: Record<string, unknown>;
}
interface RegistryPackage {
  registryType: string;
  registryBaseUrl?: string;
  identifier: string;
  version?: string;
  transport: { type: string; url?: string; headers?: Input[] };
  packageArguments?: Input[];
  environmentVariables?: Input[];
}
interface ServerEntry {
  $schema: string;
  name: string;
  description: string;
  version: string;
  packages: RegistryPackage[];
  remotes: Array<{ type: string; url: string; headers?: Input[]; variables?: Record<string, unknown> }>;
}

const schemaBytes = readFileSync(SCHEMA_FILE);
const schema = JSON.parse(schemaBytes.toString("utf8")) as Record<string, unknown>;
const entry = JSON.parse(readFileSync(join(ROOT, "server.json"), "utf8")) as ServerEntry;

function validate(candidate: unknown): { valid: boolean; errorMessage?: string | undefined } {
  // A fresh validator per call: Ajv caches compiled schemas by $id.
  return new AjvJsonSchemaValidator().getValidator(schema)(candidate);
}

/** The variables the server reads from its environment: one per configuration key, plus the named specials. */
const SERVER_ENVIRONMENT = new Set<string>([...ENV_VARIABLES.keys(), TOKEN_ENV, CONFIG_PATH_ENV, CACHE_DIR_ENV, STATE_DIR_ENV]);

describe("server.json against the registry's schema", () => {
  test("the committed schema is the registry's 2025-12-11 file, unchanged, and the one server.json names", () => {
    expect(createHash("sha256").update(schemaBytes).digest("hex")).toBe(SCHEMA_SHA256);
    expect(schema.$id).toBe(SCHEMA_URL);
    expect(entry.$schema).toBe(SCHEMA_URL);
  });

  test("server.json validates, required fields and formats included", () => {
    const result = validate(entry);
    expect(result.errorMessage).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  test("the validation has teeth: a missing name, an overlong description, a bad name or a remote without a URL is refused", () => {
    const { name: _name, ...nameless } = entry;
    expect(validate(nameless).valid).toBe(false);
    expect(validate({ ...entry, description: "x".repeat(101) }).valid).toBe(false);
    expect(validate({ ...entry, name: "no-namespace" }).valid).toBe(false);
    expect(validate({ ...entry, remotes: [{ type: "streamable-http" }] }).valid).toBe(false);
    expect(validate({ ...entry, packages: [{ ...entry.packages[0], version: "latest" }] }).valid).toBe(false);
  });
});

describe("server.json agrees with the package", () => {
  test("name is package.json's mcpName (how the registry proves the npm package is ours), version is the package's", () => {
    expect(pkg.mcpName).toBe(entry.name);
    expect(entry.version).toBe(pkg.version);
  });

  test("every npm package is this package at this version, from the npm registry, run as `ast-mcp mcp`", () => {
    const npm = entry.packages.filter((item) => item.registryType === "npm");
    expect(npm.length).toBeGreaterThan(0);
    for (const item of npm) {
      expect(item.identifier).toBe(pkg.name);
      expect(item.version).toBe(pkg.version);
      expect(item.registryBaseUrl).toBe("https://registry.npmjs.org");
      // npx runs the bin named like the package; its first argument is the server command.
      expect(Object.keys(pkg.bin)).toContain(pkg.name);
      expect(item.packageArguments?.[0]).toMatchObject({ type: "positional", value: "mcp" });
    }
    expect(npm.map((item) => item.transport.type).sort()).toEqual(["stdio", "streamable-http"]);
  });

  test("the HTTP package's endpoint is the server's: loopback, the default port, /mcp", () => {
    const http = entry.packages.find((item) => item.transport.type === "streamable-http");
    expect(http?.transport.url).toBe("http://127.0.0.1:{AST_MCP_HTTP_PORT}/mcp");
    expect(DEFAULT_CONFIG.http.host).toBe("127.0.0.1");
    const port = http?.environmentVariables?.find((variable) => variable.name === "AST_MCP_HTTP_PORT");
    expect(port?.default).toBe(String(DEFAULT_CONFIG.http.port));
    expect(http?.packageArguments).toContainEqual(expect.objectContaining({ type: "named", name: "--transport", value: "http" }));
  });

  test("every environment variable server.json names is one the server reads", () => {
    const named = entry.packages.flatMap((item) => (item.environmentVariables ?? []).map((variable) => variable.name));
    expect(named.length).toBeGreaterThan(0);
    for (const name of named) expect({ name, read: SERVER_ENVIRONMENT.has(name ?? "") }).toEqual({ name, read: true });
    expect(SERVER_ENVIRONMENT.has("AST_MCP_NOT_A_SETTING")).toBe(false);
  });

  test("the remote is Streamable HTTP at /mcp with a secret bearer token, as the server requires off loopback", () => {
    expect(entry.remotes).toHaveLength(1);
    const [remote] = entry.remotes;
    expect(remote?.type).toBe("streamable-http");
    expect(remote?.url).toMatch(/^https:\/\/\{host\}\/mcp$/);
    const authorization = remote?.headers?.find((header) => header.name === "Authorization");
    expect(authorization).toMatchObject({ value: "Bearer {token}", isSecret: true, isRequired: true });
  });
});
