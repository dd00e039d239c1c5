import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { READ_ONLY } from "../../src/tools/contract.ts";
import { TOOLS } from "../../src/tools/index.ts";

const MUTATION_TOOLS = ["file_write", "file_patch", "file_rename", "file_delete", "file_chattr", "file_undo", "run"];

type JsonSchema = { type?: string; description?: string; properties?: Record<string, JsonSchema>; items?: JsonSchema; additionalProperties?: unknown; anyOf?: JsonSchema[] };

/** Every property of every object in the schema must carry a description (the schema is the docs). */
function undocumented(schema: JsonSchema, at: string): string[] {
  const missing: string[] = [];
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (!property.description) missing.push(`${at}.${key}`);
    missing.push(...undocumented(property, `${at}.${key}`));
  }
  if (schema.items) missing.push(...undocumented(schema.items, `${at}[]`));
  for (const option of schema.anyOf ?? []) missing.push(...undocumented(option, at));
  return missing;
}

function objectsAllowExtra(schema: JsonSchema, at: string): string[] {
  const loose: string[] = [];
  // Strict objects say additionalProperties: false; records ({files: {"<path>": …}}) give it a schema.
  const extra = schema.additionalProperties;
  if (schema.type === "object" && extra !== false && (typeof extra !== "object" || extra === null)) loose.push(at);
  if (typeof extra === "object" && extra !== null) loose.push(...objectsAllowExtra(extra as JsonSchema, `${at}{}`));
  for (const [key, property] of Object.entries(schema.properties ?? {})) loose.push(...objectsAllowExtra(property, `${at}.${key}`));
  if (schema.items) loose.push(...objectsAllowExtra(schema.items, `${at}[]`));
  return loose;
}

describe("TOOLS", () => {
  test("lists every tool once, including the file tools and the mutation tools", () => {
    const names = TOOLS.map((tool) => tool.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of ["config_status", "document_query", "file_capabilities", "file_hash", "file_read", "policy_check", ...MUTATION_TOOLS]) {
      expect(names).toContain(name);
    }
  });

  for (const tool of TOOLS) {
    describe(tool.name, () => {
      test("is annotated (read-only unless it mutates files) and described", () => {
        if (MUTATION_TOOLS.includes(tool.name)) {
          expect(tool.annotations.readOnlyHint).toBe(false);
          expect(tool.annotations.openWorldHint).toBe(false);
        } else {
          expect(tool.annotations).toEqual(READ_ONLY);
        }
        expect(tool.description.length).toBeGreaterThan(40);
        expect(tool.title.length).toBeGreaterThan(0);
      });
      test("input schema documents every field and is strict at every level", () => {
        const schema = z.toJSONSchema(tool.input, { io: "input" }) as JsonSchema;
        expect(undocumented(schema, tool.name)).toEqual([]);
        expect(objectsAllowExtra(schema, tool.name)).toEqual([]);
      });
      test("output schema converts to JSON Schema", () => {
        const schema = z.toJSONSchema(tool.output, { io: "output", unrepresentable: "any" }) as JsonSchema;
        expect(schema.type).toBe("object");
      });
    });
  }
});

describe("suggested next calls", () => {
  test("every suggestedNextCall the policy produces is a valid call of the named tool", async () => {
    const { makeContext, makeTempDir } = await import("../support/context.ts");
    const { ToolError } = await import("../../src/core/errors.ts");
    const temp = await makeTempDir();
    try {
      const { workspace } = await makeContext([temp.dir]);
      const emptyWorkspace = (await makeContext([])).workspace;
      const failures = await Promise.all([
        workspace.resolve(".mcp.json", "write").catch((e: unknown) => e),
        workspace.resolve("/etc/passwd", "read").catch((e: unknown) => e),
        workspace.resolve(".env", "read").catch((e: unknown) => e),
        emptyWorkspace.resolve("a.txt", "read").catch((e: unknown) => e),
      ]);
      let checked = 0;
      for (const failure of failures) {
        expect(failure).toBeInstanceOf(ToolError);
        const next = (failure as InstanceType<typeof ToolError>).suggestedNextCall;
        if (!next) continue;
        const tool = TOOLS.find((t) => t.name === next.tool);
        expect(tool).toBeDefined();
        expect(tool?.input.safeParse(next.arguments).success).toBe(true);
        checked++;
      }
      expect(checked).toBeGreaterThanOrEqual(3);
    } finally {
      await temp.cleanup();
    }
  });
});
