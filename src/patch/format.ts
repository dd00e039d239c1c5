/**
 * Formatting of write candidates: dprint in process (the installed wasm plugins, never downloaded)
 * and external formatters from the user configuration (spawned without a shell).
 *
 * Stable formatting: a candidate is formatted only when the original file was formatter-clean
 * (formatting it changes nothing), so an edit never reformats a file that was not formatted before.
 * A new file counts as clean only when the repository has a dprint config (or an external formatter
 * is configured for it, which is the user's explicit choice).
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { Formatter as DprintFormatter, GlobalConfiguration } from "@dprint/formatter";
import { parse as parseJsonc, printParseErrorCode, type ParseError } from "jsonc-parser/lib/esm/main.js";
import picomatch from "picomatch";
import { EXTERNAL_FORMATTER_TIMEOUT_MS, type ExternalFormatter } from "../config/schema.ts";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { log } from "../core/log.ts";
import { sha256OfText } from "../helpers/hash.ts";
import type { LanguageId, TopLevelStatements } from "../syntax/index.ts";
import { changedStatementRegion, statementFormattingMayApply, type StatementRegion } from "./format-region.ts";

/** Remembered "original is formatter-clean" verdicts, per (path, sha256). */
const CLEAN_CACHE_ENTRIES = 10_000;

export interface FormatResult {
  text: string;
  formatted: boolean;
  /** Why the candidate was not formatted, or which formatter ran. */
  reason: string;
}

export interface FormattersOptions {
  firstRootReal: string | undefined;
  /** Content of the repository's dprint.json / .dprint.json / dprint.jsonc, already policy-checked; undefined when there is none. */
  dprintConfig: string | undefined;
  external: ExternalFormatter[];
  enabled: boolean;
}

export type PluginName = "typescript" | "json" | "markdown" | "toml" | "dockerfile";
const PLUGIN_NAMES: readonly PluginName[] = ["typescript", "json", "markdown", "toml", "dockerfile"];

const requireHere = createRequire(import.meta.url);

/** Literal specifiers so bundlers see them; each resolves inside the installed package. */
const PLUGIN_WASM: Record<PluginName, () => string> = {
  typescript: () => requireHere.resolve("@dprint/typescript/plugin.wasm"),
  json: () => requireHere.resolve("@dprint/json/plugin.wasm"),
  markdown: () => requireHere.resolve("@dprint/markdown/plugin.wasm"),
  toml: () => requireHere.resolve("@dprint/toml/plugin.wasm"),
  dockerfile: () => requireHere.resolve("@dprint/dockerfile/plugin.wasm"),
};

/**
 * The plugin for a language an override names, and an extension of that language the plugin knows
 * (a dprint plugin picks its parser by the file name it is given).
 */
const PLUGIN_OF_LANGUAGE: Partial<Record<LanguageId, { plugin: PluginName; extension: string }>> = {
  typescript: { plugin: "typescript", extension: "ts" },
  tsx: { plugin: "typescript", extension: "tsx" },
  javascript: { plugin: "typescript", extension: "js" },
  json: { plugin: "json", extension: "json" },
  jsonc: { plugin: "json", extension: "json" },
  markdown: { plugin: "markdown", extension: "md" },
  toml: { plugin: "toml", extension: "toml" },
};

/** dprint's own built-in excludes: dependencies and lock files are never formatted. */
const DEFAULT_EXCLUDES = ["**/node_modules", "**/*-lock.json"];
/** Keys of a plugin section that belong to the dprint CLI, not to the plugin. */
const CLI_SECTION_KEYS = new Set(["associations", "locked"]);
const NEW_LINE_KINDS = new Set(["auto", "lf", "crlf", "system"]);

// ---------------------------------------------------------------------------------------------
// Compiled code (formatter sets live in the writes service's FormatterCache)

type DprintModule = typeof import("@dprint/formatter");

/**
 * The formatter library and the compiled wasm of each plugin: process-wide on purpose, since both
 * are immutable once loaded (every formatter set instantiates its own plugins from the modules) and
 * compiling a plugin again per service would only cost time. A failed load is forgotten.
 */
const compiledCode = {
  dprint: undefined as Promise<DprintModule> | undefined,
  plugins: new Map<PluginName, Promise<WebAssembly.Module>>(),
};

function loadDprint(): Promise<DprintModule> {
  compiledCode.dprint ??= import("@dprint/formatter").catch((error: unknown) => {
    compiledCode.dprint = undefined;
    throw error;
  });
  return compiledCode.dprint;
}

function compilePlugin(name: PluginName): Promise<WebAssembly.Module> {
  let compiled = compiledCode.plugins.get(name);
  if (!compiled) {
    compiled = readFile(PLUGIN_WASM[name]()).then((bytes) => WebAssembly.compile(bytes));
    compiled.catch(() => compiledCode.plugins.delete(name));
    compiledCode.plugins.set(name, compiled);
  }
  return compiled;
}

// ---------------------------------------------------------------------------------------------
// The repository's dprint configuration

export interface DprintSettings {
  global: GlobalConfiguration;
  /** Plugin sections by config key, without CLI-only keys. */
  sections: Record<string, Record<string, unknown>>;
  /** Plugins the config asks for that are installed; all of them when the config lists none. */
  plugins: PluginName[];
  includes: string[];
  excludes: string[];
  notes: string[];
}

/** Reads a dprint config (JSON with comments). Its plugin URLs are only mapped, never fetched. */
export function parseDprintConfig(text: string): DprintSettings | { error: string } {
  const errors: ParseError[] = [];
  let value: unknown;
  try {
    value = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  } catch {
    return { error: "the dprint config could not be parsed" };
  }
  if (errors.length > 0) {
    const first = errors[0]!;
    return { error: `the dprint config is not valid JSON (${printParseErrorCode(first.error)} at offset ${first.offset})` };
  }
  if (!isRecord(value)) return { error: "the dprint config is not a JSON object" };

  const notes: string[] = [];
  const global: GlobalConfiguration = {};
  if (typeof value.lineWidth === "number") global.lineWidth = value.lineWidth;
  if (typeof value.indentWidth === "number") global.indentWidth = value.indentWidth;
  if (typeof value.useTabs === "boolean") global.useTabs = value.useTabs;
  if (typeof value.newLineKind === "string" && NEW_LINE_KINDS.has(value.newLineKind)) global.newLineKind = value.newLineKind as NonNullable<GlobalConfiguration["newLineKind"]>;
  for (const key of ["lineWidth", "indentWidth", "useTabs", "newLineKind"] as const) {
    if (value[key] !== undefined && global[key] === undefined) notes.push(`dprint config: "${key}" has an unsupported value and is ignored`);
  }
  if (value.extends !== undefined) notes.push(`dprint config: "extends" is not followed (configs are never fetched)`);

  let plugins: PluginName[] = [...PLUGIN_NAMES];
  if (Array.isArray(value.plugins)) {
    const chosen = new Set<PluginName>();
    for (const specifier of value.plugins) {
      if (typeof specifier !== "string") continue;
      const plugin = pluginForSpecifier(specifier);
      if (plugin) chosen.add(plugin);
      else notes.push(`dprint plugin ${specifier} is not installed here and is skipped`);
    }
    plugins = PLUGIN_NAMES.filter((name) => chosen.has(name));
  }

  const sections: Record<string, Record<string, unknown>> = {};
  for (const [key, section] of Object.entries(value)) {
    if (!isRecord(section)) continue;
    const pluginConfig: Record<string, unknown> = {};
    for (const [setting, settingValue] of Object.entries(section)) {
      if (CLI_SECTION_KEYS.has(setting)) {
        if (setting === "associations") notes.push(`dprint config: "${key}.associations" is not supported; the plugin's own file types apply`);
        continue;
      }
      pluginConfig[setting] = settingValue;
    }
    sections[key] = pluginConfig;
  }

  return { global, sections, plugins, includes: stringList(value.includes), excludes: stringList(value.excludes), notes };
}

/** Maps a plugin URL, path or name to an installed plugin by the names it contains. */
export function pluginForSpecifier(specifier: string): PluginName | undefined {
  // Drop a "@checksum" suffix and the file extension so "prettier-0.40.0.json" does not read as json.
  const cleaned = specifier
    .trim()
    .toLowerCase()
    .replace(/@[0-9a-f]{16,}$/, "")
    .replace(/\.(wasm|json|exe-plugin)$/, "");
  const lastSegment = cleaned.split(/[\\/]/).pop() ?? cleaned;
  for (const haystack of [lastSegment, cleaned]) {
    for (const name of PLUGIN_NAMES) if (haystack.includes(name)) return name;
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

// ---------------------------------------------------------------------------------------------
// Formatters

interface LoadedPlugin {
  name: PluginName;
  formatter: DprintFormatter;
  extensions: Set<string>;
  fileNames: Set<string>;
}

/** One set of dprint plugins configured alike (the repository's config, or dprint's defaults). */
interface PluginSet {
  plugins: LoadedPlugin[];
  /** True for the repository's own config: new files may then be formatted. */
  fromRepository: boolean;
  includes: picomatch.Matcher | undefined;
  excludes: picomatch.Matcher;
}

type Route =
  | { kind: "external"; formatter: ExternalFormatter }
  /** `path`: the name the plugin is given (the file's own, or one with its override language's extension). */
  | { kind: "dprint"; plugin: LoadedPlugin; fromRepository: boolean; path: string }
  | { kind: "none"; reason: string };

interface ExternalRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** One formatter run: whether it succeeded, and what it printed. */
type Attempt = { ok: boolean; text?: string };

export class Formatters {
  private readonly cleanVerdicts = new Map<string, boolean>();

  private constructor(
    private readonly rootReal: string | undefined,
    private readonly external: ExternalFormatter[],
    /** dprint's default settings; undefined when formatting is disabled. */
    private readonly defaults: PluginSet | undefined,
    private readonly repository: PluginSet | undefined,
    /** Set when the repository has a config that cannot be used: nothing in the repository is formatted. */
    private readonly repositoryConfigError: string | undefined,
    /** Things the user may want to know about the configuration (skipped plugins, ignored keys). */
    readonly notes: readonly string[],
  ) {}

  /**
   * Loads the formatters for a workspace (FormatterCache keeps them per configuration). Plugins are
   * compiled once per process; nothing is loaded when formatting is disabled.
   */
  static async load(options: FormattersOptions): Promise<Formatters> {
    const notes: string[] = [];
    if (!options.enabled) return new Formatters(options.firstRootReal, options.external, undefined, undefined, undefined, notes);
    const defaults = await buildPluginSet(
      { global: {}, sections: {}, plugins: [...PLUGIN_NAMES], includes: [], excludes: [], notes: [] },
      false,
      notes,
    );
    let repository: PluginSet | undefined;
    let repositoryConfigError: string | undefined;
    if (options.dprintConfig !== undefined) {
      const settings = parseDprintConfig(options.dprintConfig);
      if ("error" in settings) {
        repositoryConfigError = settings.error;
        notes.push(`${settings.error}; files in the repository are not formatted`);
      } else {
        notes.push(...settings.notes);
        repository = await buildPluginSet(settings, true, notes);
      }
    }
    return new Formatters(options.firstRootReal, options.external, defaults, repository, repositoryConfigError, notes);
  }

  /**
   * Which formatter would handle this file (undefined: none, or formatting is disabled). Every
   * method takes `language` only when a [languages].overrides entry gave the file its language:
   * the language then picks the dprint plugin instead of the file name.
   */
  formatterFor(filePath: string, language?: LanguageId): "dprint" | "external" | undefined {
    const route = this.route(filePath, language);
    return route.kind === "none" ? undefined : route.kind;
  }

  /**
   * True when formatCandidate could format only the changed top-level statements of this edit,
   * given the candidate's statements: the caller then parses before formatting instead of
   * formatting the whole file alongside the parse.
   */
  formatsByStatement(filePath: string, original: string | undefined, candidate: string, language?: LanguageId): boolean {
    const route = this.route(filePath, language);
    return route.kind === "dprint" && route.plugin.name === "typescript" && original !== undefined && statementFormattingMayApply(original, candidate);
  }

  /**
   * Formats `candidate` when the original (undefined for a new file) is formatter-clean.
   * Throws format_failed when a clean file's candidate cannot be formatted and onFailure is "refuse",
   * and always when an external formatter fails. With the candidate's top-level `statements`, a
   * TypeScript or JavaScript edit formats only the statements it changed when that is equivalent
   * (see format-region.ts); the whole file otherwise.
   */
  async formatCandidate(
    filePath: string,
    original: string | undefined,
    candidate: string,
    onFailure: "refuse" | "write_unformatted",
    statements?: TopLevelStatements,
    language?: LanguageId,
  ): Promise<FormatResult> {
    const route = this.route(filePath, language);
    if (route.kind === "none") return { text: candidate, formatted: false, reason: route.reason };
    if (route.kind === "external") return this.formatExternal(route.formatter, filePath, original, candidate);

    const { plugin, fromRepository, path: formatPath } = route;
    if (original === undefined) {
      if (!fromRepository) return { text: candidate, formatted: false, reason: "new file and no dprint config in the repository" };
    } else if (!(await this.originalIsClean(`dprint:${plugin.name}:${fromRepository}`, filePath, original, () => tryFormat(plugin, formatPath, original)))) {
      return { text: candidate, formatted: false, reason: "original not formatter-clean" };
    }
    const region = original !== undefined && statements !== undefined && plugin.name === "typescript" ? changedStatementRegion(original, candidate, statements) : undefined;
    const byStatement = region && formatRegion(plugin, formatPath, candidate, region);
    const result = byStatement ?? tryFormat(plugin, formatPath, candidate);
    if (result.ok) {
      // What the formatter just wrote is clean: the next edit of this file skips re-formatting its original.
      this.remember(this.cleanKey(`dprint:${plugin.name}:${fromRepository}`, filePath, result.text), true);
      const scope = byStatement && region ? `; lines ${region.firstLine}-${region.lastLine}, the changed statements` : "";
      return { text: result.text, formatted: true, reason: `dprint ${plugin.name} plugin (${fromRepository ? "repository config" : "default settings"}${scope})` };
    }
    const message = cutError(result.error);
    if (onFailure === "refuse") {
      throw new ToolError("format_failed", `dprint (${plugin.name}) could not format the new content of ${filePath}: ${message}`, {
        details: { formatter: `dprint:${plugin.name}`, error: message },
      });
    }
    return { text: candidate, formatted: false, reason: `formatter failed (dprint ${plugin.name}: ${firstLine(message)}); written unformatted` };
  }

  private route(filePath: string, language: LanguageId | undefined): Route {
    if (!this.defaults) return { kind: "none", reason: "formatting disabled" };
    const extension = path.extname(filePath).slice(1).toLowerCase();
    const external = this.external.find((formatter) => formatter.extensions.some((wanted) => wanted.replace(/^\./, "").toLowerCase() === extension));
    if (external) return { kind: "external", formatter: external };

    const relative = this.relativeToRoot(filePath);
    const inRepository = relative !== undefined;
    if (inRepository && this.repositoryConfigError) return { kind: "none", reason: this.repositoryConfigError };
    const set = inRepository && this.repository ? this.repository : this.defaults;
    const as = language === undefined ? undefined : PLUGIN_OF_LANGUAGE[language];
    const plugin = language === undefined ? pluginForFile(set.plugins, filePath) : set.plugins.find((loaded) => loaded.name === as?.plugin);
    if (!plugin) return { kind: "none", reason: language === undefined ? "no formatter for this file type" : `no formatter for ${language}` };
    const matchPath = relative ?? filePath.replace(/\\/g, "/");
    if (isExcluded(set.excludes, matchPath)) return { kind: "none", reason: "excluded from formatting by the dprint excludes" };
    if (set.includes && !set.includes(matchPath)) return { kind: "none", reason: "not in the dprint config's includes" };
    return { kind: "dprint", plugin, fromRepository: set.fromRepository, path: as ? `${filePath}.${as.extension}` : filePath };
  }

  /** The path relative to the first root with "/" separators, or undefined outside it. */
  private relativeToRoot(filePath: string): string | undefined {
    if (this.rootReal === undefined) return undefined;
    const relative = path.relative(this.rootReal, filePath);
    if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return undefined;
    return relative.split(path.sep).join("/");
  }

  private cleanKey(formatterKey: string, filePath: string, text: string): string {
    return `${formatterKey}\0${filePath}\0${sha256OfText(text)}`;
  }

  private async originalIsClean(formatterKey: string, filePath: string, original: string, format: () => Attempt | Promise<Attempt>): Promise<boolean> {
    const key = this.cleanKey(formatterKey, filePath, original);
    const known = this.cleanVerdicts.get(key);
    if (known !== undefined) return known;
    const result = await format();
    const clean = result.ok && result.text === original;
    this.remember(key, clean);
    return clean;
  }

  private remember(key: string, clean: boolean): void {
    this.cleanVerdicts.set(key, clean);
    while (this.cleanVerdicts.size > CLEAN_CACHE_ENTRIES) this.cleanVerdicts.delete(this.cleanVerdicts.keys().next().value!);
  }

  private async formatExternal(formatter: ExternalFormatter, filePath: string, original: string | undefined, candidate: string): Promise<FormatResult> {
    const label = `external formatter ${formatter.command}`;
    if (original !== undefined) {
      const clean = await this.originalIsClean(`external:${JSON.stringify(formatter)}`, filePath, original, async () => {
        const run = await this.runExternal(formatter, filePath, original);
        // A formatter that rejects the original (e.g. it does not parse) makes the file not clean, not the edit wrong.
        return { ok: run.exitCode === 0, text: run.stdout };
      });
      if (!clean) return { text: candidate, formatted: false, reason: "original not formatter-clean" };
    }
    const run = await this.runExternal(formatter, filePath, candidate);
    if (run.exitCode !== 0) {
      const status = run.signal ? `was killed by ${run.signal}` : `exited with code ${run.exitCode}`;
      const stderr = run.stderr.trim();
      throw new ToolError("format_failed", `The ${label} ${status} on the new content of ${filePath}${stderr ? `: ${stderr}` : "."}`, {
        details: { formatter: formatter.command, exitCode: run.exitCode, signal: run.signal, stderr },
      });
    }
    return { text: run.stdout, formatted: true, reason: label };
  }

  /** Runs an external formatter with `input` on stdin; throws format_failed when it cannot finish. */
  private runExternal(formatter: ExternalFormatter, filePath: string, input: string): Promise<ExternalRun> {
    const timeoutMs = formatter.timeout_ms ?? EXTERNAL_FORMATTER_TIMEOUT_MS;
    const args = (formatter.args ?? []).map((arg) => arg.replaceAll("{path}", filePath));
    const fail = (message: string, details: Record<string, unknown> = {}) =>
      new ToolError("format_failed", `The external formatter ${formatter.command} ${message} (file ${filePath}).`, { details: { formatter: formatter.command, ...details } });

    return new Promise<ExternalRun>((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outcome();
      };
      const child = spawn(formatter.command, args, {
        cwd: this.rootReal ?? process.cwd(),
        shell: false,
        stdio: ["pipe", "pipe", "pipe"],
        windowsHide: true,
      });
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        settle(() => reject(fail(`did not finish within ${timeoutMs} ms and was stopped`, { timeoutMs })));
      }, timeoutMs);
      const stdout: Buffer[] = [];
      let stdoutBytes = 0;
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdoutBytes += chunk.length;
        if (stdoutBytes > LIMITS.format.externalMaxOutputBytes) {
          child.kill("SIGKILL");
          settle(() => reject(fail(`printed more than ${LIMITS.format.externalMaxOutputBytes} bytes and was stopped`)));
          return;
        }
        stdout.push(chunk);
      });
      child.stderr.on("data", (chunk: Buffer) => {
        if (stderr.length < LIMITS.format.maxErrorChars) stderr += chunk.toString("utf8");
      });
      child.on("error", (error: NodeJS.ErrnoException) => {
        settle(() => reject(fail(`could not be started: ${error.code ?? error.message}`, { error: error.code ?? error.message })));
      });
      child.on("close", (exitCode, signal) => {
        settle(() => {
          const bytes = Buffer.concat(stdout);
          let text: string;
          try {
            text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
          } catch {
            reject(fail("printed output that is not valid UTF-8"));
            return;
          }
          resolve({ exitCode, signal, stdout: text, stderr: cutError(stderr) });
        });
      });
      // The formatter may exit without reading its input; the broken pipe is then not our failure.
      child.stdin.on("error", () => {});
      child.stdin.end(input, "utf8");
    });
  }
}

async function buildPluginSet(settings: DprintSettings, fromRepository: boolean, notes: string[]): Promise<PluginSet> {
  const { createFromWasmModule } = await loadDprint();
  const plugins: LoadedPlugin[] = [];
  for (const name of settings.plugins) {
    const formatter = createFromWasmModule(await compilePlugin(name), { onOutput: (text) => log.debug("dprint plugin output", { plugin: name, text }) });
    const configKey = formatter.getPluginInfo().configKey;
    formatter.setConfig(settings.global, settings.sections[configKey] ?? {});
    const diagnostics = formatter.getConfigDiagnostics();
    if (diagnostics.length > 0) {
      const problems = diagnostics.map((diagnostic) => `${diagnostic.propertyName}: ${diagnostic.message}`).join("; ");
      notes.push(`dprint ${name} plugin is not used: the config has problems (${problems})`);
      continue;
    }
    const matching = formatter.getFileMatchingInfo();
    plugins.push({
      name,
      formatter,
      extensions: new Set(matching.fileExtensions.map((extension) => extension.toLowerCase())),
      fileNames: new Set(matching.fileNames.map((fileName) => fileName.toLowerCase())),
    });
  }
  // Embedded code (e.g. fenced blocks in Markdown) is formatted by the plugin for its language.
  for (const plugin of plugins) {
    plugin.formatter.setHostFormatter((request) => {
      const other = pluginForFile(plugins, request.filePath);
      return other && other !== plugin ? other.formatter.formatText(request) : request.fileText;
    });
  }
  const positive = (patterns: string[]) => patterns.filter((pattern) => !pattern.startsWith("!")).map(normalizePattern);
  const negated = (patterns: string[]) => patterns.filter((pattern) => pattern.startsWith("!")).map((pattern) => normalizePattern(pattern.slice(1)));
  const includePatterns = positive(settings.includes);
  // A "!pattern" in includes excludes; one in excludes is not supported and is ignored.
  const excludePatterns = [...DEFAULT_EXCLUDES, ...positive(settings.excludes), ...negated(settings.includes)];
  if (negated(settings.excludes).length > 0) notes.push(`dprint config: negated "excludes" patterns are not supported and are ignored`);
  return {
    plugins,
    fromRepository,
    includes: includePatterns.length > 0 ? picomatch(includePatterns, { dot: true }) : undefined,
    excludes: picomatch(excludePatterns, { dot: true }),
  };
}

function normalizePattern(pattern: string): string {
  return pattern.replace(/^\.\//, "");
}

/** A file is excluded when it or any folder above it matches an exclude pattern. */
function isExcluded(matcher: picomatch.Matcher, relativePath: string): boolean {
  const parts = relativePath.split("/");
  for (let length = parts.length; length > 0; length--) {
    if (matcher(parts.slice(0, length).join("/"))) return true;
  }
  return false;
}

function pluginForFile(plugins: LoadedPlugin[], filePath: string): LoadedPlugin | undefined {
  const fileName = path.basename(filePath).toLowerCase();
  const byName = plugins.find((plugin) => plugin.fileNames.has(fileName));
  if (byName) return byName;
  const dot = fileName.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const extension = fileName.slice(dot + 1);
  return plugins.find((plugin) => plugin.extensions.has(extension));
}

function tryFormat(plugin: LoadedPlugin, filePath: string, fileText: string): { ok: true; text: string } | { ok: false; error: string } {
  try {
    return { ok: true, text: plugin.formatter.formatText({ filePath, fileText }) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The candidate with only `region` formatted, spliced back between the untouched text around it;
 * undefined when the region alone does not format (the caller formats the whole file, which also
 * decides how a failure is reported).
 */
function formatRegion(plugin: LoadedPlugin, filePath: string, candidate: string, region: StatementRegion): { ok: true; text: string } | undefined {
  const formatted = tryFormat(plugin, filePath, candidate.slice(region.start, region.end));
  // The plugin ends what it formats with one newline; the text after the region already has its own.
  if (!formatted.ok || !formatted.text.endsWith("\n")) return undefined;
  return { ok: true, text: candidate.slice(0, region.start) + formatted.text.slice(0, -1) + candidate.slice(region.end) };
}

function cutError(message: string): string {
  return message.length > LIMITS.format.maxErrorChars ? `${message.slice(0, LIMITS.format.maxErrorChars)}…` : message;
}

function firstLine(message: string): string {
  return message.split("\n", 1)[0] ?? message;
}
