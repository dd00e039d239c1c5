/**
 * One TypeScript project: its configuration (the nearest tsconfig.json or jsconfig.json, or an
 * inferred project over its root), one long-lived language service, and a host that sees only
 * policy-approved files (see approved-fs.ts) plus the compiler's own lib files.
 *
 * The repository's tsconfig is untrusted: `extends` and file lists resolve only through approved
 * listings, and the options are forced so nothing is ever emitted or written (noEmit, no
 * incremental build info, no plugins). Calls on one project run one at a time.
 */
import { statSync } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import type * as TS from "typescript";
import { LIMITS } from "../../core/limits.ts";
import type { Workspace } from "../../policy/workspace.ts";
import { eachLimited } from "../../helpers/concurrency.ts";
import { ApprovedFileSystem, LIST_CONCURRENCY } from "./approved-fs.ts";
import type { TypeScriptModule } from "./load.ts";

/** What one project's answer rests on, for the caller to show. */
export interface ProjectInfo {
  /** The config file as the workspace displays it, or null for an inferred project. */
  config: string | null;
  /** Root files in the project. */
  files: number;
  /** Why the answer may be incomplete (config errors, limits hit). */
  notes: string[];
}

/** Script extensions a project takes as root files. */
const SCRIPT_EXTENSIONS = [".ts", ".tsx", ".mts", ".cts", ".d.ts", ".d.mts", ".d.cts", ".js", ".jsx", ".mjs", ".cjs"];

/** Directories an inferred project never takes root files from. */
const INFERRED_EXCLUDES = ["**/node_modules", "**/bower_components", "**/jspm_packages", "**/.git", "**/dist", "**/build", "**/out", "**/coverage"];

interface MatchFiles {
  (
    root: string,
    extensions: readonly string[] | undefined,
    excludes: readonly string[] | undefined,
    includes: readonly string[] | undefined,
    useCaseSensitiveFileNames: boolean,
    currentDirectory: string,
    depth: number | undefined,
    getFileSystemEntries: (directory: string) => { files: readonly string[]; directories: readonly string[] },
    realpath: (target: string) => string,
  ): string[];
}

function versionOf(stats: { mtimeMs: number; ctimeMs: number; size: number; ino: number }): string {
  return `${stats.mtimeMs}:${stats.ctimeMs}:${stats.size}:${stats.ino}`;
}

/** Options that would have the compiler write, load plugins or trace; they are dropped. */
const DROPPED_OPTIONS = [
  "tsBuildInfoFile",
  "emitDeclarationOnly",
  "plugins",
  "generateTrace",
  "generateCpuProfile",
  "diagnostics",
  "extendedDiagnostics",
  "listFiles",
  "listEmittedFiles",
  "traceResolution",
] as const;

/** The repository may ask for anything; these options make sure the compiler only reads. */
function hardenOptions(options: TS.CompilerOptions): TS.CompilerOptions {
  const hardened: TS.CompilerOptions = { ...options, noEmit: true, incremental: false, composite: false };
  for (const key of DROPPED_OPTIONS) delete hardened[key];
  hardened.maxNodeModuleJsDepth = Math.min(options.maxNodeModuleJsDepth ?? 0, 2);
  // noEmit with declaration-only settings is a config error; declarations are irrelevant when nothing is emitted.
  hardened.declaration = false;
  hardened.declarationMap = false;
  return hardened;
}

function inferredOptions(ts: TypeScriptModule): TS.CompilerOptions {
  return {
    allowJs: true,
    checkJs: false,
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    jsx: ts.JsxEmit.Preserve,
    allowImportingTsExtensions: true,
    resolveJsonModule: true,
    esModuleInterop: true,
    skipLibCheck: true,
    noEmit: true,
  };
}

export interface ProjectSession {
  readonly ts: TypeScriptModule;
  readonly service: TS.LanguageService;
  /** The current program, after every directory it needs has been approved. */
  program(): Promise<TS.Program>;
  /** Makes sure an existing file is part of the program even when the config does not list it. */
  ensureRoot(fileName: string): void;
  /** Replaces a file's content for this session only (the disk is never touched). */
  setOverlay(fileName: string, text: string): void;
  /** A file's real path as approved, or undefined for files outside the roots (the compiler's lib). */
  approvedReal(fileName: string): string | undefined;
  info(): ProjectInfo;
}

/** The project was evicted (LIMITS.intel.typescript.maxServices) between lookup and use: look it up again. */
export class ProjectDisposedError extends Error {
  constructor() {
    super("the TypeScript project was disposed");
    this.name = "ProjectDisposedError";
  }
}

export class TsProject {
  readonly ts: TypeScriptModule;
  /** Real path of tsconfig.json/jsconfig.json, or undefined for an inferred project. */
  readonly configFile: string | undefined;
  /** The directory the project's paths are relative to. */
  readonly directory: string;
  readonly #fs: ApprovedFileSystem;
  readonly #service: TS.LanguageService;
  readonly #libDirectory: string;
  readonly #caseSensitive: boolean;
  #workspace: Workspace;
  #options: TS.CompilerOptions;
  #rootNames: string[] = [];
  #rootSet = new Set<string>();
  #configNotes: string[] = [];
  #configLoaded = false;
  /** Files the config parse read (the tsconfig and its extends chain) → their version. */
  #configInputs = new Map<string, string>();
  readonly #extraRoots = new Set<string>();
  /** File name → version of the content the compiler has. */
  readonly #versions = new Map<string, { real: string; version: string }>();
  readonly #overlays = new Map<string, { text: string; version: string }>();
  #overlaySerial = 0;
  #projectVersion = 0;
  #typeRootsVersion = 0;
  #roundsExhausted = false;
  #queue: Promise<unknown> = Promise.resolve();
  #disposed = false;
  #signal: AbortSignal | undefined;

  /** `registry`: parsed files (lib.d.ts above all) shared by the language services of one TypeScriptProjects. */
  constructor(ts: TypeScriptModule, workspace: Workspace, configFile: string | undefined, directory: string, registry: TS.DocumentRegistry) {
    this.ts = ts;
    this.#workspace = workspace;
    this.configFile = configFile;
    this.directory = directory;
    this.#fs = new ApprovedFileSystem(workspace);
    this.#caseSensitive = ts.sys.useCaseSensitiveFileNames;
    this.#libDirectory = path.dirname(ts.getDefaultLibFilePath({}));
    this.#options = hardenOptions(configFile ? {} : inferredOptions(ts));
    this.#service = ts.createLanguageService(this.#host(), registry, ts.LanguageServiceMode.Semantic);
  }

  /** Runs one request with the project fresh against the disk; requests on one project never overlap. */
  use<T>(workspace: Workspace, work: (session: ProjectSession) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const run = async (): Promise<T> => {
      if (this.#disposed) throw new ProjectDisposedError();
      signal?.throwIfAborted();
      this.#signal = signal;
      try {
        await this.#refresh(workspace);
        return await work(this.#session());
      } catch (error) {
        // The compiler stops long work when the caller cancels; report it as the cancellation it is.
        if (signal?.aborted) signal.throwIfAborted();
        throw error;
      } finally {
        this.#signal = undefined;
        if (this.#overlays.size > 0) {
          this.#overlays.clear();
          this.#projectVersion++;
        }
      }
    };
    const result = this.#queue.then(run, run);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  dispose(): void {
    const finish = () => {
      this.#disposed = true;
      this.#service.dispose();
    };
    this.#queue = this.#queue.then(finish, finish);
  }

  #session(): ProjectSession {
    return {
      ts: this.ts,
      service: this.#service,
      program: () => this.#stableProgram(),
      ensureRoot: (fileName) => {
        if (this.#rootSet.has(fileName) || this.#extraRoots.has(fileName)) return;
        this.#extraRoots.add(fileName);
        this.#projectVersion++;
      },
      setOverlay: (fileName, text) => {
        this.#overlays.set(fileName, { text, version: `overlay:${++this.#overlaySerial}` });
        this.#projectVersion++;
      },
      approvedReal: (fileName) => (this.#isLib(fileName) ? undefined : this.#fs.entry(fileName)?.real ?? this.#overlayReal(fileName)),
      info: () => this.#info(),
    };
  }

  #overlayReal(fileName: string): string | undefined {
    return this.#overlays.has(fileName) ? fileName : undefined;
  }

  #info(): ProjectInfo {
    const notes = [...this.#configNotes];
    if (this.#fs.exhausted) notes.push(`directory limit reached (LIMITS.intel.typescript.maxDirectories = ${LIMITS.intel.typescript.maxDirectories}); some files may be missing`);
    if (this.#roundsExhausted) {
      notes.push("file discovery stopped at its round limit (LIMITS.intel.typescript.maxApprovalRounds, maxConfigRounds); some files or imports may be missing");
    }
    return {
      config: this.configFile ? this.#workspace.display(this.configFile) : null,
      files: this.#rootNames.length + this.#extraRoots.size,
      notes,
    };
  }

  #isLib(fileName: string): boolean {
    return path.dirname(path.resolve(fileName)) === this.#libDirectory;
  }

  // ───── the host: only approved files, the compiler's lib, and overlays ─────

  #host(): TS.LanguageServiceHost {
    const ts = this.ts;
    return {
      getProjectVersion: () => String(this.#projectVersion),
      getCancellationToken: () => ({ isCancellationRequested: () => this.#signal?.aborted === true }),
      getTypeRootsVersion: () => this.#typeRootsVersion,
      getCompilationSettings: () => this.#options,
      getScriptFileNames: () => {
        const names = [...this.#rootNames, ...this.#extraRoots];
        for (const name of this.#overlays.keys()) if (!this.#rootSet.has(name) && !this.#extraRoots.has(name)) names.push(name);
        return names;
      },
      getScriptVersion: (fileName) => this.#overlays.get(fileName)?.version ?? this.#versionOf(fileName),
      getScriptSnapshot: (fileName) => {
        const overlay = this.#overlays.get(fileName);
        if (overlay) return ts.ScriptSnapshot.fromString(overlay.text);
        const text = this.#readFile(fileName);
        return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
      },
      getCurrentDirectory: () => this.directory,
      getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
      useCaseSensitiveFileNames: () => this.#caseSensitive,
      fileExists: (fileName) => this.#overlays.has(fileName) || (this.#isLib(fileName) ? ts.sys.fileExists(fileName) : this.#fs.fileExists(fileName)),
      readFile: (fileName) => this.#overlays.get(fileName)?.text ?? this.#readFile(fileName),
      directoryExists: (directory) => path.resolve(directory) === this.#libDirectory || this.#fs.directoryExists(directory),
      getDirectories: (directory) => this.#fs.entriesOf(directory).directories,
      realpath: (target) => (this.#isLib(target) ? target : this.#fs.realpath(target)),
      readDirectory: (root, extensions, excludes, includes, depth) => this.#matchFiles(root, extensions, excludes, includes, depth),
    };
  }

  #readFile(fileName: string): string | undefined {
    if (this.#isLib(fileName)) return this.ts.sys.readFile(fileName);
    return this.#fs.readFile(fileName);
  }

  #versionOf(fileName: string): string {
    if (this.#isLib(fileName)) return "lib";
    const known = this.#versions.get(fileName);
    if (known) return known.version;
    const entry = this.#fs.entry(fileName);
    if (entry?.kind !== "file") return "absent";
    let version = "absent";
    try {
      version = versionOf(statSync(entry.real));
    } catch {
      // Vanished: the listing refresh will notice.
    }
    this.#versions.set(fileName, { real: entry.real, version });
    return version;
  }

  #matchFiles(
    root: string,
    extensions: readonly string[] | undefined,
    excludes: readonly string[] | undefined,
    includes: readonly string[] | undefined,
    depth: number | undefined,
  ): string[] {
    // The compiler's own include/exclude matcher: internal, present in the typescript version package.json pins.
    const match = (this.ts as unknown as { matchFiles: MatchFiles }).matchFiles;
    return match(
      root,
      extensions,
      excludes,
      includes,
      this.#caseSensitive,
      this.directory,
      depth,
      (directory) => this.#fs.entriesOf(directory),
      (target) => this.#fs.realpath(target),
    );
  }

  // ───── configuration ─────

  async #loadConfig(): Promise<void> {
    const ts = this.ts;
    const parseHost: TS.ParseConfigHost = {
      useCaseSensitiveFileNames: this.#caseSensitive,
      readDirectory: (root, extensions, excludes, includes, depth) => this.#matchFiles(root, extensions, excludes, includes, depth),
      fileExists: (fileName) => this.#fs.fileExists(fileName),
      readFile: (fileName) => {
        const text = this.#fs.readFile(fileName);
        const entry = this.#fs.entry(fileName);
        if (text !== undefined && entry) read.add(entry.real);
        return text;
      },
    };
    /** Real paths of the files the parse read: the config and its extends chain. */
    const read = new Set<string>();
    let parsed: { options: TS.CompilerOptions; fileNames: string[]; errors: readonly TS.Diagnostic[] };
    for (let round = 0;; round++) {
      this.#fs.clearWanted();
      read.clear();
      if (this.configFile) {
        const text = this.#fs.readFile(this.configFile);
        if (text !== undefined) read.add(this.configFile);
        const source = ts.parseJsonText(this.configFile, text ?? "{}");
        const isJsConfig = path.basename(this.configFile) === "jsconfig.json";
        const existing: TS.CompilerOptions = isJsConfig ? { allowJs: true, maxNodeModuleJsDepth: 2, allowSyntheticDefaultImports: true, skipLibCheck: true, noEmit: true } : {};
        const result = ts.parseJsonSourceFileConfigFileContent(source, parseHost, path.dirname(this.configFile), existing, this.configFile);
        parsed = { options: result.options, fileNames: result.fileNames, errors: [...(source as { parseDiagnostics?: TS.Diagnostic[] }).parseDiagnostics ?? [], ...result.errors] };
      } else {
        const fileNames = this.#matchFiles(this.directory, SCRIPT_EXTENSIONS, INFERRED_EXCLUDES, ["**/*"], undefined);
        parsed = { options: inferredOptions(ts), fileNames, errors: [] };
      }
      if (this.#fs.wanted.size === 0) break;
      if (round >= LIMITS.intel.typescript.maxConfigRounds) {
        this.#roundsExhausted = true;
        break;
      }
      if ((await this.#fs.approveWanted()) === 0) break;
    }
    const inputs = new Map<string, string>();
    for (const real of read) inputs.set(real, await this.#statVersion(real));
    this.#configInputs = inputs;

    const notes: string[] = [];
    // The final round's errors: a missing or refused extends, an unknown option, no inputs.
    for (const error of parsed.errors.slice(0, 5)) {
      notes.push(`config: ${ts.flattenDiagnosticMessageText(error.messageText, " ").slice(0, LIMITS.intel.typescript.maxMessageChars)}`);
    }
    let fileNames = parsed.fileNames;
    if (fileNames.length > LIMITS.intel.typescript.maxProjectFiles) {
      notes.push(`the project has ${fileNames.length} files; only the first ${LIMITS.intel.typescript.maxProjectFiles} are roots (LIMITS.intel.typescript.maxProjectFiles)`);
      fileNames = fileNames.slice(0, LIMITS.intel.typescript.maxProjectFiles);
    }
    this.#options = hardenOptions(parsed.options);
    this.#rootNames = fileNames.map((name) => path.resolve(name));
    this.#rootSet = new Set(this.#rootNames);
    this.#configNotes = notes;
    this.#configLoaded = true;
  }

  async #statVersion(real: string): Promise<string> {
    try {
      return versionOf(await stat(real));
    } catch {
      return "absent";
    }
  }

  // ───── freshness ─────

  async #refresh(workspace: Workspace): Promise<void> {
    this.#workspace = workspace;
    this.#roundsExhausted = false;
    const listingsChanged = await this.#fs.refresh(workspace);
    let configChanged = !this.#configLoaded || listingsChanged;
    if (!configChanged) {
      for (const [real, version] of this.#configInputs) {
        if ((await this.#statVersion(real)) !== version) configChanged = true;
      }
    }
    if (listingsChanged) this.#typeRootsVersion++;
    if (configChanged) {
      await this.#loadConfig();
      this.#projectVersion++;
    }
    let filesChanged = false;
    await eachLimited([...this.#versions], LIST_CONCURRENCY, async ([fileName, known]) => {
      const version = await this.#statVersion(known.real);
      if (version !== known.version) {
        this.#versions.delete(fileName);
        filesChanged = true;
      }
    });
    if (filesChanged || listingsChanged) {
      if (listingsChanged) {
        // Entries may now point elsewhere; versions are recomputed from the current listings.
        this.#versions.clear();
        for (const name of [...this.#extraRoots]) if (!this.#fs.fileExists(name)) this.#extraRoots.delete(name);
      }
      this.#projectVersion++;
    }
  }

  /** Builds the program, approving what it asked for, until it asks for nothing new. */
  async #stableProgram(): Promise<TS.Program> {
    for (let round = 0;; round++) {
      this.#fs.clearWanted();
      const program = this.#service.getProgram();
      if (!program) throw new Error("the language service produced no program");
      if (this.#fs.wanted.size === 0) return program;
      if (round >= LIMITS.intel.typescript.maxApprovalRounds) {
        this.#roundsExhausted = true;
        return program;
      }
      if ((await this.#fs.approveWanted()) === 0) return program;
      this.#typeRootsVersion++;
      this.#projectVersion++;
    }
  }
}
