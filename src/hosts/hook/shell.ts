/**
 * Finds what a shell command line writes, with a real parser (tree-sitter-bash through ast-grep):
 * pipelines, lists, subshells, command and process substitutions, heredocs, quoting and
 * environment prefixes are all structure, not text. Redirections are judged here; simple
 * commands go to commands.ts; `bash -c '…'` and `eval` scripts are parsed in turn. What cannot be
 * known statically (a computed path, a script piped into a shell, a line that does not parse)
 * is reported as unknown, and the caller treats unknown as a possible write.
 */
import path from "node:path";
import type { SgNode } from "@ast-grep/napi";
import { LIMITS } from "../../core/limits.ts";
import { parseSource } from "../../syntax/index.ts";
import { commandEffects, type SuggestedTool, type Word } from "./commands.ts";

export interface ShellWrite {
  /** Absolute path written, or null when it cannot be known before the command runs. */
  path: string | null;
  via: string;
  tool: SuggestedTool;
  /** The command that writes (after wrappers), for allow-lists; null for redirections. */
  command: string | null;
  /** Set when a formatter or fixer writes: its allow-list name ("prettier", "cargo fmt"). */
  formatter?: string;
}

export interface ShellUnknown {
  via: string;
  reason: string;
}

export interface ShellAnalysis {
  writes: ShellWrite[];
  unknown: ShellUnknown[];
}

export interface ShellOptions {
  cwd: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

interface State {
  /** The working directory at this point of the script; null after a `cd` to somewhere unknown. */
  cwd: string | null;
}

const WRITE_OPERATORS = new Set([">", ">>", ">|", "&>", "&>>", "<>", ">&", "&>|"]);
const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "-"]);

class Analyzer {
  readonly result: ShellAnalysis = { writes: [], unknown: [] };

  constructor(private readonly options: ShellOptions) {}

  run(command: string, state: State, depth: number): void {
    if (command.length > LIMITS.hosts.hookMaxCommandChars) {
      this.result.unknown.push({ via: "shell", reason: `the command is longer than ${LIMITS.hosts.hookMaxCommandChars} characters` });
      return;
    }
    const parsed = parseSource("bash", command);
    if (!parsed) {
      this.result.unknown.push({ via: "shell", reason: "no shell parser is available" });
      return;
    }
    const first = parsed.errors[0];
    if (first) {
      this.result.unknown.push({ via: "shell", reason: `the command does not parse (line ${first.line}, column ${first.column})` });
      return;
    }
    this.walk(parsed.root.root(), state, depth);
  }

  private walk(node: SgNode, state: State, depth: number): void {
    switch (node.kind()) {
      case "command":
        this.command(node, state, depth);
        return;
      case "file_redirect":
        this.redirect(node, state, depth);
        return;
      case "subshell":
      case "command_substitution":
      case "process_substitution":
        this.children(node, { ...state }, depth);
        return;
      case "pipeline":
        // Every element of a pipeline runs in its own subshell.
        for (const child of node.children()) if (child.isNamed()) this.walk(child, { ...state }, depth);
        return;
      default:
        this.children(node, state, depth);
    }
  }

  private children(node: SgNode, state: State, depth: number): void {
    for (const child of node.children()) if (child.isNamed()) this.walk(child, state, depth);
  }

  private variable(name: string, state: State): string | null {
    if (name === "HOME") return this.options.home;
    if (name === "PWD") return state.cwd;
    if (name === "TMPDIR") return this.options.env.TMPDIR ?? "/tmp";
    return null;
  }

  /** The text a word has before the command runs, or null when the shell computes it. */
  private word(node: SgNode, state: State): Word {
    switch (node.kind()) {
      case "word": {
        const text = node.text().replace(/\\(.)/gs, "$1");
        if (text === "~") return this.options.home;
        if (text.startsWith("~/")) return this.options.home + text.slice(1);
        return text;
      }
      case "number":
        return node.text();
      case "raw_string":
        return node.text().slice(1, -1);
      case "ansi_c_string":
        return node
          .text()
          .slice(2, -1)
          .replace(/\\([ntr\\'"])/g, (_, c: string) => ({ n: "\n", t: "\t", r: "\r" })[c] ?? c);
      case "string": {
        let text = "";
        for (const child of node.children()) {
          if (!child.isNamed()) continue;
          if (child.kind() === "string_content") text += child.text().replace(/\\([$`"\\\n])/g, "$1");
          else {
            const part = this.word(child, state);
            if (part === null) return null;
            text += part;
          }
        }
        return text;
      }
      case "concatenation": {
        let text = "";
        for (const child of node.children()) {
          const part = this.word(child, state);
          if (part === null) return null;
          text += part;
        }
        return text;
      }
      case "simple_expansion": {
        const name = node.children().find((child) => child.kind() === "variable_name");
        return name ? this.variable(name.text(), state) : null;
      }
      case "expansion": {
        const named = node.children().filter((child) => child.isNamed());
        return named.length === 1 && named[0]?.kind() === "variable_name" ? this.variable(named[0].text(), state) : null;
      }
      default:
        return null;
    }
  }

  private resolve(target: Word, state: State): string | null {
    if (target === null) return null;
    if (path.isAbsolute(target)) return path.resolve(target);
    return state.cwd === null ? null : path.resolve(state.cwd, target);
  }

  private command(node: SgNode, state: State, depth: number): void {
    const words: Word[] = [];
    for (const child of node.children()) {
      if (!child.isNamed()) continue;
      const kind = child.kind();
      if (kind === "variable_assignment") {
        // Assignments run their substitutions; their values are not arguments.
        this.children(child, { ...state }, depth);
        continue;
      }
      if (kind === "file_redirect") {
        this.redirect(child, state, depth);
        continue;
      }
      if (kind === "herestring_redirect" || kind === "heredoc_redirect") {
        this.children(child, { ...state }, depth);
        continue;
      }
      const wordNode = kind === "command_name" ? (child.children().find((inner) => inner.isNamed()) ?? child) : child;
      // Substitutions inside arguments run before the command does.
      this.children(wordNode, { ...state }, depth);
      words.push(this.word(wordNode, state));
    }
    this.effects(words, state, depth);
  }

  /** What one simple command's words do; `bash -c` scripts among them are parsed in turn. */
  effects(words: Word[], state: State, depth: number): void {
    const { effects, name } = commandEffects(words);
    for (const effect of effects) {
      switch (effect.kind) {
        case "write":
          for (const target of effect.targets) {
            const write: ShellWrite = { path: this.resolve(target, state), via: effect.via, tool: effect.tool, command: effect.formatter?.command ?? name };
            if (effect.formatter) write.formatter = effect.formatter.command;
            this.result.writes.push(write);
          }
          break;
        case "unknown":
          this.result.unknown.push({ via: effect.via, reason: effect.reason });
          break;
        case "script":
          if (effect.script === null) this.result.unknown.push({ via: effect.via, reason: "runs a script computed at run time" });
          else if (depth >= LIMITS.hosts.hookMaxShellDepth) {
            this.result.unknown.push({ via: effect.via, reason: `nests scripts more than ${LIMITS.hosts.hookMaxShellDepth} levels deep` });
          } else this.run(effect.script, { ...state }, depth + 1);
          break;
        case "cd":
          if (effect.dir === null) state.cwd = words.length === 1 ? this.options.home : null;
          else if (effect.dir === "-") state.cwd = null;
          else state.cwd = this.resolve(effect.dir, state);
          break;
      }
    }
  }

  private redirect(node: SgNode, state: State, depth: number): void {
    const operator = node.children().find((child) => !child.isNamed() && WRITE_OPERATORS.has(child.text()));
    const named = node.children().filter((child) => child.isNamed() && child.kind() !== "file_descriptor");
    for (const child of named) this.children(child, { ...state }, depth);
    if (!operator) return;
    const destination = named[named.length - 1];
    if (!destination) return;
    const target = this.word(destination, state);
    // ">&2" and ">&-" duplicate or close descriptors; they write no file.
    if (operator.text() === ">&" && target !== null && /^(\d+|-)$/.test(target)) return;
    if (target !== null && (HARMLESS_TARGETS.has(target) || target.startsWith("/dev/fd/"))) return;
    this.result.writes.push({ path: this.resolve(target, state), via: `redirection ${operator.text()}`, tool: "file_write", command: null });
  }
}

/**
 * The same for a command given as an argv array (Codex's `["bash", "-lc", "…"]`): the words are
 * the command's own, unquoted; a shell among them has its script parsed as shell. A word that is
 * not a string is one the hook cannot know.
 */
export function analyzeArgv(argv: readonly unknown[], options: ShellOptions): ShellAnalysis {
  const analyzer = new Analyzer(options);
  const chars = argv.reduce<number>((sum, word) => sum + (typeof word === "string" ? word.length : 0), 0);
  if (chars > LIMITS.hosts.hookMaxCommandChars) {
    analyzer.result.unknown.push({ via: "command", reason: `the command is longer than ${LIMITS.hosts.hookMaxCommandChars} characters` });
  } else analyzer.effects(argv.map((word) => (typeof word === "string" ? word : null)), { cwd: options.cwd }, 0);
  return analyzer.result;
}

/** Every file write and every unknowable part of a shell command line. */
export function analyzeShell(command: string, options: ShellOptions): ShellAnalysis {
  const analyzer = new Analyzer(options);
  analyzer.run(command, { cwd: options.cwd }, 0);
  return analyzer.result;
}
