import { readFileSync } from "node:fs";
import { defineConfig } from "vitepress";

// The tool and host entries of the sidebar come from the code (scripts/gen-website.ts writes them).
const generated = JSON.parse(readFileSync(new URL("./generated-nav.json", import.meta.url), "utf8")) as {
  tools: Array<{ text: string; link: string }>;
  hosts: Array<{ text: string; link: string }>;
};

export default defineConfig({
  title: "ast-mcp",
  description: "An MCP server that gives coding agents syntax-tree reads and guarded writes.",
  lang: "en-US",
  cleanUrls: true,
  lastUpdated: false,
  // Every page is built from files in this repository: no remote fonts, scripts or analytics.
  head: [
    ["meta", { name: "color-scheme", content: "light dark" }],
    ["link", { rel: "icon", type: "image/svg+xml", href: "/favicon.svg" }],
  ],
  srcExclude: ["README.md", "test/**"],
  // The high-contrast code themes keep comments readable (WCAG AA contrast, checked by axe in the browser test).
  markdown: { theme: { light: "github-light-high-contrast", dark: "github-dark-high-contrast" } },
  themeConfig: {
    nav: [
      { text: "Start", link: "/start" },
      { text: "Concepts", link: "/concepts/" },
      { text: "Guides", link: "/guides/hosts/" },
      { text: "Reference", link: "/reference/tools/" },
      { text: "Benchmarks", link: "/benchmarks" },
    ],
    sidebar: [
      { text: "Start", items: [{ text: "What it is and a first session", link: "/start" }] },
      {
        text: "Concepts",
        items: [
          { text: "Overview", link: "/concepts/" },
          { text: "The root policy", link: "/concepts/root-policy" },
          { text: "Writes and the patch lifecycle", link: "/concepts/writes" },
          { text: "Receipts, undo and recovery", link: "/concepts/undo" },
          { text: "Freshness and completeness", link: "/concepts/freshness" },
          { text: "Call edges and confidence", link: "/concepts/call-edges" },
          { text: "Protocol revisions and state", link: "/concepts/protocol" },
          { text: "Security model", link: "/concepts/security" },
        ],
      },
      {
        text: "Guides",
        items: [
          { text: "Install into a host", link: "/guides/hosts/", collapsed: false, items: generated.hosts },
          { text: "How install works", link: "/guides/install" },
          { text: "HTTP transport", link: "/guides/http" },
          { text: "The hook", link: "/guides/hook" },
          { text: "Configuration", link: "/guides/configuration" },
          { text: "Claude Desktop bundle and MCP Registry", link: "/guides/bundle" },
        ],
      },
      {
        text: "Reference",
        items: [
          { text: "Tools", link: "/reference/tools/", collapsed: true, items: generated.tools },
          { text: "Error codes", link: "/reference/errors" },
          { text: "Configuration keys", link: "/reference/config" },
          { text: "Command line", link: "/reference/cli" },
          { text: "Limits", link: "/reference/limits" },
        ],
      },
      {
        text: "Benchmarks",
        items: [
          { text: "Measured runs", link: "/benchmarks" },
          { text: "Compared with peers", link: "/compare" },
        ],
      },
    ],
    // The framework's own offline search: an index built into the site, no service.
    search: { provider: "local" },
    outline: { level: [2, 3] },
    footer: { message: "MIT licensed. Reference pages are generated from the source by scripts/gen-website.ts." },
  },
});
