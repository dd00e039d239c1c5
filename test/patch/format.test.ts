import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { ExternalFormatter } from "../../src/config/schema.ts";
import { ToolError } from "../../src/core/errors.ts";
import { Formatters, parseDprintConfig, pluginForSpecifier } from "../../src/patch/format.ts";

let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "ast-mcp-format-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const REPO_CONFIG = JSON.stringify({
  indentWidth: 4,
  typescript: { quoteStyle: "preferSingle" },
  excludes: ["generated/**"],
  plugins: [
    "https://plugins.dprint.dev/typescript-0.88.3.wasm",
    "https://plugins.dprint.dev/markdown-0.16.0.wasm",
    "https://plugins.dprint.dev/g-plane/malva-v0.11.1.wasm",
  ],
});

function load(options: { config?: string; external?: ExternalFormatter[]; enabled?: boolean } = {}) {
  return Formatters.load({
    firstRootReal: root,
    dprintConfig: options.config,
    external: options.external ?? [],
    enabled: options.enabled ?? true,
  });
}

async function rejection(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error("expected a ToolError");
}

const file = (relative: string) => path.join(root, relative);

describe("dprint with the repository's config", () => {
  const clean = "export function add(a: number, b: number): number {\n    return a + b;\n}\n";

  test("a clean original's candidate is formatted with the config's indentWidth and quoteStyle", async () => {
    const formatters = await load({ config: REPO_CONFIG });
    const candidate = "export function add(a: number, b: number): number {\n  return a + b + \"!\"\n}\n";
    const result = await formatters.formatCandidate(file("src/add.ts"), clean, candidate, "refuse");
    expect(result).toEqual({
      text: "export function add(a: number, b: number): number {\n    return a + b + '!';\n}\n",
      formatted: true,
      reason: "dprint typescript plugin (repository config)",
    });
  });

  test("new files are formatted because the repository has a config", async () => {
    const formatters = await load({ config: REPO_CONFIG });
    const result = await formatters.formatCandidate(file("src/new.ts"), undefined, "const   x = \"y\"\n", "refuse");
    expect(result).toMatchObject({ text: "const x = 'y';\n", formatted: true });
  });

  test("an original that is not clean under the config stays untouched", async () => {
    const formatters = await load({ config: REPO_CONFIG });
    const twoSpaces = "export function add(a: number, b: number): number {\n  return a + b;\n}\n";
    const candidate = "export function add(a: number, b: number): number {\n  return a  +  b;\n}\n";
    expect(await formatters.formatCandidate(file("src/add.ts"), twoSpaces, candidate, "refuse")).toEqual({
      text: candidate,
      formatted: false,
      reason: "original not formatter-clean",
    });
  });

  test("a clean original with a broken candidate is format_failed, or written unformatted on request", async () => {
    const formatters = await load({ config: REPO_CONFIG });
    const broken = "export function add(a: number, b: number): number {\n    return a + ;\n}\n";
    const error = await rejection(formatters.formatCandidate(file("src/add.ts"), clean, broken, "refuse"));
    expect(error.code).toBe("format_failed");
    expect(error.message).toContain("dprint (typescript)");
    expect(error.details).toMatchObject({ formatter: "dprint:typescript" });
    const unformatted = await formatters.formatCandidate(file("src/add.ts"), clean, broken, "write_unformatted");
    expect(unformatted.text).toBe(broken);
    expect(unformatted.formatted).toBe(false);
    expect(unformatted.reason).toStartWith("formatter failed (dprint typescript:");
    expect(unformatted.reason).toEndWith("written unformatted");
  });

  test("only the plugins the config lists are active; an unknown plugin is skipped with a note", async () => {
    const formatters = await load({ config: REPO_CONFIG });
    expect(formatters.notes).toContain("dprint plugin https://plugins.dprint.dev/g-plane/malva-v0.11.1.wasm is not installed here and is skipped");
    expect(formatters.formatterFor(file("src/a.ts"))).toBe("dprint");
    expect(formatters.formatterFor(file("docs/a.md"))).toBe("dprint");
    expect(formatters.formatterFor(file("package.json"))).toBeUndefined();
    const result = await formatters.formatCandidate(file("data.json"), "{\"a\":1}\n", "{\"a\":2}\n", "refuse");
    expect(result).toEqual({ text: "{\"a\":2}\n", formatted: false, reason: "no formatter for this file type" });
  });

  test("excludes (the config's and dprint's own) keep files unformatted", async () => {
    const formatters = await load({ config: REPO_CONFIG });
    for (const excluded of ["generated/api.ts", "packages/x/node_modules/lib/index.ts"]) {
      expect(formatters.formatterFor(file(excluded))).toBeUndefined();
      const result = await formatters.formatCandidate(file(excluded), undefined, "const   a = 1\n", "refuse");
      expect(result.formatted).toBe(false);
      expect(result.reason).toContain("excludes");
    }
  });

  test("includes restrict formatting to matching files", async () => {
    const formatters = await load({ config: JSON.stringify({ includes: ["src/**/*.ts"] }) });
    expect(formatters.formatterFor(file("src/deep/a.ts"))).toBe("dprint");
    expect(formatters.formatterFor(file("scripts/a.ts"))).toBeUndefined();
    const outside = await formatters.formatCandidate(file("scripts/a.ts"), undefined, "const   a = 1\n", "refuse");
    expect(outside.reason).toBe("not in the dprint config's includes");
  });

  test("Markdown code blocks are formatted by the TypeScript plugin", async () => {
    const formatters = await load({ config: REPO_CONFIG });
    const result = await formatters.formatCandidate(file("README.md"), undefined, "# Title\n\n```ts\nconst   a = \"b\"\n```\n", "refuse");
    expect(result.text).toBe("# Title\n\n```ts\nconst a = 'b';\n```\n");
  });

  test("an unusable repository config formats nothing in the repository", async () => {
    const formatters = await load({ config: "{ not json" });
    expect(formatters.formatterFor(file("src/a.ts"))).toBeUndefined();
    const result = await formatters.formatCandidate(file("src/a.ts"), "const a = 1;\n", "const  a = 2;\n", "refuse");
    expect(result.formatted).toBe(false);
    expect(result.reason).toContain("not valid JSON");
  });
});

describe("dprint without a repository config", () => {
  test("an unformatted original stays untouched", async () => {
    const formatters = await load();
    const messy = "const a   =   1\nfunction f(){return a}\n";
    const candidate = "const a   =   2\nfunction f(){return a}\n";
    expect(await formatters.formatCandidate(file("src/messy.ts"), messy, candidate, "refuse")).toEqual({
      text: candidate,
      formatted: false,
      reason: "original not formatter-clean",
    });
  });

  test("a file already clean under dprint's defaults is kept clean", async () => {
    const formatters = await load();
    const clean = "export function add(a: number, b: number): number {\n  return a + b;\n}\n";
    const result = await formatters.formatCandidate(file("src/add.ts"), clean, "export function add(a: number, b: number): number {\n    return a+b+'!'\n}\n", "refuse");
    expect(result).toEqual({
      text: "export function add(a: number, b: number): number {\n  return a + b + \"!\";\n}\n",
      formatted: true,
      reason: "dprint typescript plugin (default settings)",
    });
  });

  test("new files are not formatted", async () => {
    const formatters = await load();
    expect(await formatters.formatCandidate(file("src/new.ts"), undefined, "const   a = 1\n", "refuse")).toEqual({
      text: "const   a = 1\n",
      formatted: false,
      reason: "new file and no dprint config in the repository",
    });
  });

  test("files of other types and disabled formatting are reported as such", async () => {
    const formatters = await load();
    expect(formatters.formatterFor(file("main.py"))).toBeUndefined();
    expect((await formatters.formatCandidate(file("main.py"), "x=1\n", "x=2\n", "refuse")).reason).toBe("no formatter for this file type");
    const disabled = await load({ enabled: false, config: REPO_CONFIG });
    expect(disabled.formatterFor(file("src/a.ts"))).toBeUndefined();
    expect(await disabled.formatCandidate(file("src/a.ts"), undefined, "const   a = 1\n", "refuse")).toEqual({
      text: "const   a = 1\n",
      formatted: false,
      reason: "formatting disabled",
    });
  });
});

describe("dprint config parsing", () => {
  test("plugin specifiers map to installed plugins by name", () => {
    expect(pluginForSpecifier("https://plugins.dprint.dev/typescript-0.88.3.wasm")).toBe("typescript");
    expect(pluginForSpecifier("https://plugins.dprint.dev/json-0.19.0.wasm")).toBe("json");
    expect(pluginForSpecifier("./node_modules/@dprint/toml/plugin.wasm")).toBe("toml");
    expect(pluginForSpecifier("https://plugins.dprint.dev/dockerfile-0.3.0.wasm")).toBe("dockerfile");
    expect(pluginForSpecifier("https://plugins.dprint.dev/prettier-0.40.0.json@0123456789abcdef0123456789abcdef")).toBeUndefined();
    expect(pluginForSpecifier("https://plugins.dprint.dev/ruff-0.1.0.wasm")).toBeUndefined();
  });

  test("comments, global settings, sections and CLI-only keys", () => {
    const settings = parseDprintConfig(`{
      // the repository's style
      "lineWidth": 100, "useTabs": true, "newLineKind": "crlf", "indentWidth": "wide",
      "typescript": { "semiColons": "asi", "associations": ["**/*.ts"], "locked": true },
      "extends": "https://example.com/base.json",
    }`);
    if ("error" in settings) throw new Error(settings.error);
    expect(settings.global).toEqual({ lineWidth: 100, useTabs: true, newLineKind: "crlf" });
    expect(settings.sections.typescript).toEqual({ semiColons: "asi" });
    expect(settings.plugins).toEqual(["typescript", "json", "markdown", "toml", "dockerfile"]);
    expect(settings.notes.join("\n")).toContain("\"indentWidth\" has an unsupported value");
    expect(settings.notes.join("\n")).toContain("\"extends\" is not followed");
    expect(settings.notes.join("\n")).toContain("associations");
  });

  test("a plugin section with options the installed plugin does not know disables that plugin", async () => {
    const formatters = await load({ config: JSON.stringify({ json: { noSuchOption: true } }) });
    expect(formatters.notes.join("\n")).toContain("dprint json plugin is not used");
    expect(formatters.formatterFor(file("a.json"))).toBeUndefined();
    expect(formatters.formatterFor(file("a.ts"))).toBe("dprint");
  });
});

describe("external formatters", () => {
  // Strips trailing whitespace; fails when the path argument does not end in ".rs".
  const STRIP = [
    "if (!String(process.argv[1]).endsWith('.rs')) { console.error('bad path ' + process.argv[1]); process.exit(3); }",
    "let input = '';",
    "process.stdin.on('data', (chunk) => (input += chunk)).on('end', () => process.stdout.write(input.replace(/[ \\t]+$/gm, '')));",
  ].join("\n");
  const stripper: ExternalFormatter = { extensions: ["rs"], command: "node", args: ["-e", STRIP, "{path}"] };

  test("formats the candidate of a clean original through stdin/stdout, taking precedence over dprint", async () => {
    const formatters = await load({ external: [stripper, { extensions: ["ts"], command: "node", args: ["-e", STRIP, "{path}"] }] });
    expect(formatters.formatterFor(file("src/main.rs"))).toBe("external");
    const result = await formatters.formatCandidate(file("src/main.rs"), "fn main() {}\n", "fn main() {   \n    run();  \n}\n", "refuse");
    expect(result).toEqual({ text: "fn main() {\n    run();\n}\n", formatted: true, reason: "external formatter node" });
    // The .ts formatter exits 3 because its path does not end in .rs: external failures always refuse.
    const error = await rejection(formatters.formatCandidate(file("src/a.ts"), undefined, "const a = 1;\n", "write_unformatted"));
    expect(error.code).toBe("format_failed");
    expect(error.message).toContain("exited with code 3");
    expect(error.details).toMatchObject({ exitCode: 3, stderr: expect.stringContaining("bad path") });
  });

  test("an original the formatter would change is not clean, and new files are formatted", async () => {
    const formatters = await load({ external: [stripper] });
    expect(await formatters.formatCandidate(file("lib.rs"), "fn a() {}   \n", "fn b() {}   \n", "refuse")).toMatchObject({
      formatted: false,
      reason: "original not formatter-clean",
    });
    expect(await formatters.formatCandidate(file("new.rs"), undefined, "fn c() {}  \n", "refuse")).toMatchObject({ text: "fn c() {}\n", formatted: true });
  });

  test("the clean check of an original runs once per content", async () => {
    const counter = path.join(root, "runs.txt");
    await writeFile(counter, "");
    const counting: ExternalFormatter = {
      extensions: ["go"],
      command: "node",
      args: ["-e", `require('fs').appendFileSync(${JSON.stringify(counter)}, 'x'); process.stdin.pipe(process.stdout);`],
    };
    const formatters = await load({ external: [counting] });
    await formatters.formatCandidate(file("main.go"), "package main\n", "package main\n\nfunc a() {}\n", "refuse");
    await formatters.formatCandidate(file("main.go"), "package main\n", "package main\n\nfunc b() {}\n", "refuse");
    // One run on the original, one per candidate.
    expect(await readFile(counter, "utf8")).toBe("xxx");
  });

  test("a formatter that hangs is stopped at its timeout", async () => {
    const hanging: ExternalFormatter = { extensions: ["hs"], command: "node", args: ["-e", "setTimeout(() => {}, 60000)"], timeout_ms: 300 };
    const formatters = await load({ external: [hanging] });
    const error = await rejection(formatters.formatCandidate(file("Main.hs"), undefined, "main = pure ()\n", "write_unformatted"));
    expect(error.code).toBe("format_failed");
    expect(error.message).toContain("did not finish within 300 ms");
  });

  test("a missing command is format_failed", async () => {
    const missing: ExternalFormatter = { extensions: ["zig"], command: "ast-mcp-no-such-formatter", args: [] };
    const formatters = await load({ external: [missing] });
    const error = await rejection(formatters.formatCandidate(file("a.zig"), undefined, "const a = 1;\n", "refuse"));
    expect(error.code).toBe("format_failed");
    expect(error.message).toContain("could not be started: ENOENT");
  });
});
