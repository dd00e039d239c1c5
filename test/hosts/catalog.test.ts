/** The skill's generated references must match the source (regenerate: npx bun scripts/gen-catalog.ts). */
import { describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ERROR_CODES } from "../../src/core/errors.ts";
import { ERROR_CATALOG_PATH, renderErrorCatalog, renderToolCatalog, TOOL_CATALOG_PATH } from "../../src/hosts/catalog.ts";
import { TOOLS } from "../../src/tools/index.ts";

const ROOT = join(import.meta.dir, "..", "..");
const HINT = "out of date: run `npx bun scripts/gen-catalog.ts` and commit the result";

describe("skill catalogs", () => {
  test(`${TOOL_CATALOG_PATH} matches the tools' names, descriptions and input schemas`, async () => {
    const committed = await readFile(join(ROOT, TOOL_CATALOG_PATH), "utf8");
    expect(committed === renderToolCatalog(TOOLS) ? "current" : HINT).toBe("current");
  });

  test(`${ERROR_CATALOG_PATH} matches ERROR_CODES`, async () => {
    const committed = await readFile(join(ROOT, ERROR_CATALOG_PATH), "utf8");
    expect(committed === renderErrorCatalog() ? "current" : HINT).toBe("current");
  });

  test("the catalogs carry every tool and every code", () => {
    const tools = renderToolCatalog(TOOLS);
    for (const tool of TOOLS) expect(tools).toContain(`## \`${tool.name}\``);
    const errors = renderErrorCatalog();
    for (const code of Object.keys(ERROR_CODES)) expect(errors).toContain(`| \`${code}\` |`);
  });

  test("a changed description changes the catalog (the drift check has teeth)", () => {
    const [first, ...rest] = TOOLS;
    const changed = renderToolCatalog([{ ...first!, description: "something else" }, ...rest]);
    expect(changed).not.toBe(renderToolCatalog(TOOLS));
  });
});
