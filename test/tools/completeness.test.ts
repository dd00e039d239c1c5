/**
 * The one result-completeness schema: every tool's output (reads, and the write tools' report of
 * what a preview or a type check left out) carries `complete` and `limits` at
 * its top level, as the very schema objects of src/tools/completeness.ts (so a tool that drops the
 * pair, nests it, or defines its own copy fails here).
 */
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { Completeness, completeness, renderIncomplete } from "../../src/tools/completeness.ts";
import { TOOLS, WRITE_TOOLS } from "../../src/tools/index.ts";

/** Read tools whose answer no limit can cut, and why; a per-item failure is reported per item, not a cut. */
const NEVER_CUT: Record<string, string> = {
  file_hash: "streams every byte of every file it is given",
  file_capabilities: "describes each file whole; what it could not inspect is a note on that file",
  policy_check: "one decision per check asked for",
  config_status: "the whole effective configuration",
};

const READ_TOOLS = TOOLS.filter((tool) => !WRITE_TOOLS.includes(tool));

describe("result completeness", () => {
  test("every tool whose answer can be cut carries the shared complete/limits pair at the top level", () => {
    const cuttable = TOOLS.filter((tool) => !(tool.name in NEVER_CUT));
    expect(cuttable.length).toBeGreaterThan(15 + WRITE_TOOLS.length);
    for (const tool of cuttable) {
      const shape = (tool.output as z.ZodObject).shape;
      expect({ tool: tool.name, complete: shape.complete === Completeness.complete, limits: shape.limits === Completeness.limits }).toEqual({
        tool: tool.name,
        complete: true,
        limits: true,
      });
      expect(shape.coverage).toBeUndefined();
      const published = z.toJSONSchema(tool.output, { io: "output" }) as {
        properties: Record<string, { type?: string; description?: string; items?: { type?: string } }>;
        required?: string[];
      };
      expect(published.properties.complete).toMatchObject({ type: "boolean", description: Completeness.complete.description });
      expect(published.properties.limits).toMatchObject({ type: "array", items: { type: "string" }, description: Completeness.limits.description });
      expect(published.required).toEqual(expect.arrayContaining(["complete", "limits"]));
    }
  });

  test("the tools said never to be cut exist, are read tools, and have no copy of the pair", () => {
    for (const name of Object.keys(NEVER_CUT)) {
      const tool = READ_TOOLS.find((candidate) => candidate.name === name);
      expect(tool?.name).toBe(name);
      const shape = (tool!.output as z.ZodObject).shape;
      expect([name, shape.complete, shape.limits]).toEqual([name, undefined, undefined]);
    }
  });

  test("the helper puts the index's limits first, counts each once, and is complete only with none", () => {
    expect(completeness(undefined)).toEqual({ complete: true, limits: [] });
    expect(completeness({ limits: [] }, [])).toEqual({ complete: true, limits: [] });
    expect(completeness({ limits: ["index.max_files = 10"] }, ["maxEdges = 2: raise maxEdges", "maxEdges = 2: raise maxEdges"])).toEqual({
      complete: false,
      limits: ["index.max_files = 10", "maxEdges = 2: raise maxEdges"],
    });
    const lines = ["answer"];
    expect(renderIncomplete({ complete: true, limits: [] }, lines)).toBe("answer");
    expect(renderIncomplete({ complete: false, limits: ["a = 1", "b = 2"] }, lines)).toBe("answer\nincomplete: a = 1; b = 2");
    expect(lines).toEqual(["answer", "incomplete: a = 1; b = 2"]);
  });
});
