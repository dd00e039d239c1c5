/** The website's reference pages are generated from the code (regenerate: npx bun scripts/gen-website.ts). */
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { ERROR_CODES } from "../../src/core/errors.ts";
import { CONFIG_LEAVES } from "../../src/config/keys.ts";
import { TARGETS } from "../../src/hosts/targets.ts";
import { TOOLS } from "../../src/tools/index.ts";
import { renderWebsitePages, toolSlug, websiteDrift } from "../../scripts/gen-website.ts";

const pages = renderWebsitePages();

describe("the website's generated reference", () => {
  test("the committed pages are exactly what the code generates (no stale, missing or extra page)", () => {
    expect(websiteDrift(pages)).toEqual([]);
  });

  test("changing one input field's description without regenerating is reported as a stale tool page", () => {
    const tool = TOOLS.find((candidate) => candidate.name === "file_read")!;
    const [field] = Object.keys(tool.input.shape);
    const changedInput = tool.input.extend({ [field!]: (tool.input.shape[field!] as z.ZodType).describe("a description nobody generated") });
    const changed = renderWebsitePages(TOOLS.map((candidate) => (candidate === tool ? { ...tool, input: changedInput } : candidate)));
    expect(changed.get("reference/tools/file-read.md")).toContain("a description nobody generated");
    expect(websiteDrift(changed)).toEqual(["stale: website/reference/tools/file-read.md"]);
  });

  test("every tool has a page naming every input field, and the sidebar lists it", () => {
    const nav = JSON.parse(pages.get(".vitepress/generated-nav.json")!) as { tools: Array<{ text: string; link: string }>; hosts: Array<{ text: string }> };
    expect(nav.tools.map((entry) => entry.text)).toEqual(TOOLS.map((tool) => tool.name));
    for (const [index, tool] of TOOLS.entries()) {
      const page = pages.get(`${nav.tools[index]!.link.slice(1)}.md`);
      expect(page).toBeDefined();
      expect(page).toContain(`# \`${tool.name}\``);
      for (const field of Object.keys(tool.input.shape)) expect(page).toContain(`<code>${field}</code>`);
    }
  });

  test("the tools overview lists every tool, and the tool named index has a page of its own beside it", () => {
    const overview = pages.get("reference/tools/index.md")!;
    expect(overview).toContain("# Tools");
    for (const tool of TOOLS) expect(overview).toContain(`<code>${tool.name}</code></a>`);
    expect(pages.get("reference/tools/index-tool.md")).toContain("# `index`");
  });

  test("fields nested in lists and in objects keyed by path are listed with their own descriptions", () => {
    const patch = pages.get("reference/tools/file-patch.md")!;
    expect(patch).toContain("<code>files.*.aiderBlocks[].search</code>");
    expect(patch).toContain("Exact existing text to find");
    expect(patch).toContain("<code>files.*.previewReceipt</code>");
  });

  test("every error code, configuration key and host target has its place", () => {
    const errors = pages.get("reference/errors.md")!;
    for (const code of Object.keys(ERROR_CODES)) expect(errors).toContain(`<span id="${code}">`);
    const config = pages.get("reference/config.md")!;
    for (const leaf of CONFIG_LEAVES) expect(config).toContain(`<code>${leaf.key}</code>`);
    for (const target of TARGETS) expect(pages.get(`guides/hosts/${target}.md`)).toContain(`ast-mcp uninstall --target ${target}`);
  });

  test("every tool page lists exactly the error codes the tool declares, each linked to its entry on the error page", () => {
    const errors = pages.get("reference/errors.md")!;
    for (const tool of TOOLS) {
      const page = pages.get(`reference/tools/${toolSlug(tool)}.md`)!;
      const linked = [...page.matchAll(/<a href="\.\.\/errors#([a-z_]+)">/g)].map((match) => match[1]);
      expect({ tool: tool.name, linked }).toEqual({ tool: tool.name, linked: [...tool.errors] });
      for (const code of linked) expect(errors).toContain(`<span id="${code}">`);
    }
    const patch = pages.get("reference/tools/file-patch.md")!;
    expect(patch).toContain("<code>ambiguous_match</code>");
    expect(pages.get("reference/tools/file-hash.md")).not.toContain("<code>ambiguous_match</code>");
  });

  test("the CLI page carries every command's own help", () => {
    const cli = pages.get("reference/cli.md")!;
    for (const command of ["mcp", "config", "journal", "install", "update", "uninstall", "hook", "doctor"]) expect(cli).toContain(`## ast-mcp ${command}\n`);
  });
});
