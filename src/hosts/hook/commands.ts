/**
 * What one simple shell command does to files, from its words alone (no I/O). Words the shell
 * would expand at run time arrive as null ("unknown"). The table covers the commands agents use to
 * write files (redirections are handled by the caller): in-place editors, tee, cp/mv/rm/touch/
 * truncate/dd/ln/install/chmod, patch, git apply/checkout/restore/rm/mv/clean/reset,
 * interpreter one-liners that write, download tools, archive extraction, formatters and fixers
 * (fixers.ts); wrappers (env, sudo, nice, timeout, xargs, …) and package runners (npx, pnpm exec,
 * uv run, python -m, …) are looked through, and `bash -c '…'` / `eval` hand their script back to
 * be parsed. Everything else is treated as not writing files.
 */
import { fixerWrites, isFixer } from "./fixers.ts";

/** The ast-mcp tools the hook may point to instead (a test holds them to the tool catalog; the hook bundle does not load it). */
export const SUGGESTED_TOOLS = ["file_write", "file_patch", "file_delete", "file_rename", "file_chattr", "file_undo"] as const;
export type SuggestedTool = (typeof SUGGESTED_TOOLS)[number];

/** A word of the command line: its text, or null when the shell would compute it at run time. */
export type Word = string | null;

export type CommandEffect =
  /** Writes (creates, changes, deletes) these paths; null = a path that cannot be known now. */
  | { kind: "write"; targets: Word[]; via: string; tool: SuggestedTool; formatter?: { command: string } }
  /** A script to parse and analyse in turn (null: computed at run time). */
  | { kind: "script"; script: Word; via: string }
  /** Runs code that cannot be seen (a script piped into a shell, an unknown one-liner). */
  | { kind: "unknown"; via: string; reason: string }
  /** Changes the working directory of the commands that follow. */
  | { kind: "cd"; dir: Word };

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"]);
const PYTHONS = /^(python[0-9.]*|pypy[0-9.]*)$/;
const NODES = new Set(["node", "nodejs", "bun", "deno", "tsx", "ts-node"]);

/** Code that writes files, across the usual one-liner languages. */
const WRITING_CODE = new RegExp(
  [
    String.raw`\bopen\s*\([^)]*,\s*(?:mode\s*=\s*)?[rbt]*['"][^'"]*[wax+]`,
    String.raw`\.write_(?:text|bytes)\s*\(`,
    String.raw`(?<!std(?:out|err))\.write(?:lines)?\s*\(`,
    String.raw`\bos\.(?:remove|unlink|rename|replace|rmdir|removedirs|truncate|chmod)\s*\(`,
    String.raw`\bshutil\.(?:copy\w*|move|rmtree)\s*\(`,
    String.raw`\.(?:unlink|touch|rename|replace|rmdir|chmod)\s*\(`,
    String.raw`\b(?:writeFile|appendFile|createWriteStream|writeFileSync|appendFileSync|unlinkSync|rmSync|rmdirSync|renameSync|copyFileSync|truncateSync|chmodSync|cpSync)\b`,
    String.raw`\bfs(?:\.promises)?\.(?:write|rm|unlink|rename|copyFile|truncate|cp|chmod)\w*\s*\(`,
    String.raw`\bFile\.(?:write|delete|rename|open\s*\([^)]*['"][wa])`,
    String.raw`\bFileUtils\.`,
    String.raw`\bIO\.write`,
    String.raw`\bfile_put_contents\s*\(`,
    String.raw`\bfopen\s*\([^)]*['"][wax]`,
    String.raw`\bDeno\.(?:writeTextFile|writeFile|remove|rename|truncate|chmod)`,
    String.raw`\bBun\.write\s*\(`,
    String.raw`\bunlink\s*\(?\s*['"$]`,
    String.raw`\bopen\s*\(?\s*\w*\s*,?\s*['"]?\s*(?:>|\+<)`,
  ].join("|"),
);

export function codeWrites(code: string): boolean {
  return WRITING_CODE.test(code);
}

function isOption(word: Word): boolean {
  return word !== null && word.length > 1 && word.startsWith("-");
}

/** Operands: the words that are not options (after "--" everything is an operand). */
function operands(words: Word[], optionsWithValue: ReadonlySet<string> = new Set()): Word[] {
  const result: Word[] = [];
  let afterDashes = false;
  for (let index = 0; index < words.length; index++) {
    const word = words[index] as Word;
    if (afterDashes || !isOption(word)) {
      result.push(word);
      continue;
    }
    if (word === "--") {
      afterDashes = true;
      continue;
    }
    if (optionsWithValue.has(word as string)) index++;
  }
  return result;
}

function valueOf(words: Word[], short: string[], long: string[]): { found: boolean; value: Word } {
  for (let index = 0; index < words.length; index++) {
    const word = words[index];
    if (word === null || word === undefined) continue;
    if (word === "--") break;
    for (const name of long) {
      if (word === name) return { found: true, value: words[index + 1] ?? null };
      if (word.startsWith(`${name}=`)) return { found: true, value: word.slice(name.length + 1) };
    }
    for (const name of short) {
      if (word === name) return { found: true, value: words[index + 1] ?? null };
      if (word.startsWith(name) && !word.startsWith("--") && word.length > name.length) return { found: true, value: word.slice(name.length) };
    }
  }
  return { found: false, value: null };
}

function has(words: Word[], ...flags: string[]): boolean {
  return words.some((word) => word !== null && flags.includes(word));
}

function write(targets: Word[], via: string, tool: SuggestedTool): CommandEffect[] {
  return [{ kind: "write", targets: targets.length > 0 ? targets : [null], via, tool }];
}

/**
 * Walks a command's words: operands (and every word after "--") are returned in order; each option
 * word goes to `option`, which calls `takeValue` when the option takes the next word as its value.
 */
function walkOptions(args: Word[], option: (word: string, takeValue: () => Word) => void): Word[] {
  const rest: Word[] = [];
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as Word;
    if (word === null || !word.startsWith("-") || word === "-") rest.push(word);
    else if (word === "--") {
      rest.push(...args.slice(index + 1));
      break;
    } else option(word, () => args[++index] ?? null);
  }
  return rest;
}

/** sed: -i / --in-place anywhere in the options makes it edit its files. */
function sedEffects(args: Word[]): CommandEffect[] {
  let inPlace = false;
  let scriptGiven = false;
  const rest = walkOptions(args, (word, takeValue) => {
    if (word.startsWith("--")) {
      if (word === "--in-place" || word.startsWith("--in-place=")) inPlace = true;
      if (word === "--expression" || word === "--file") {
        scriptGiven = true;
        takeValue();
      } else if (word.startsWith("--expression=") || word.startsWith("--file=")) scriptGiven = true;
      return;
    }
    for (let at = 1; at < word.length; at++) {
      const flag = word[at];
      if (flag === "i") {
        inPlace = true;
        return;
      }
      if (flag === "e" || flag === "f" || flag === "l") {
        if (flag !== "l") scriptGiven = true;
        if (at === word.length - 1) takeValue();
        return;
      }
    }
  });
  if (!inPlace) return [];
  return write(scriptGiven ? rest : rest.slice(1), "sed -i", "file_patch");
}

/** perl: -i edits its files in place; -e code without -i may still write from code. */
function perlEffects(args: Word[]): CommandEffect[] {
  let inPlace = false;
  let code: Word | undefined;
  const rest = walkOptions(args, (word, takeValue) => {
    for (let at = 1; at < word.length; at++) {
      const flag = word[at] as string;
      if (flag === "i") {
        inPlace = true;
        return;
      }
      if (flag === "e" || flag === "E") {
        code = at === word.length - 1 ? takeValue() : word.slice(at + 1);
        return;
      }
      // -l and -0 take optional digits; these take the rest of the word as their value.
      if ("IMmxCdD".includes(flag)) return;
    }
  });
  if (inPlace) return write(code === undefined ? rest.slice(1) : rest, "perl -i", "file_patch");
  if (code === undefined) return [];
  if (code === null) return [{ kind: "unknown", via: "perl -e", reason: "runs perl code computed at run time" }];
  return codeWrites(code) ? write([null], "perl one-liner", "file_write") : [];
}

/** A formatter's writes (undefined: `name` is no formatter; none when it only checks). */
function formatterEffects(name: string, args: Word[]): CommandEffect[] | undefined {
  const writes = fixerWrites(name, args);
  if (writes === undefined) return undefined;
  return writes === null ? [] : [{ kind: "write", targets: writes.targets, via: `formatter ${writes.command}`, tool: "file_patch", formatter: { command: writes.command } }];
}

function oneLiner(code: Word | undefined, via: string): CommandEffect[] {
  if (code === undefined) return [];
  if (code === null) return [{ kind: "unknown", via, reason: "runs code computed at run time" }];
  return codeWrites(code) ? write([null], `${via} one-liner`, "file_write") : [];
}

function gitEffects(args: Word[]): { effects: CommandEffect[]; cwd?: Word } {
  let index = 0;
  let cwd: Word | undefined;
  while (index < args.length) {
    const word = args[index];
    if (word === "-C") {
      cwd = args[index + 1] ?? null;
      index += 2;
    } else if (word === "-c" || word === "--git-dir" || word === "--work-tree" || word === "--namespace") index += 2;
    else if (word !== null && word !== undefined && word.startsWith("-")) index++;
    else break;
  }
  const sub = args[index];
  const rest = args.slice(index + 1);
  const result = (effects: CommandEffect[]) => (cwd === undefined ? { effects } : { effects, cwd });
  if (sub === null) return result([{ kind: "unknown", via: "git", reason: "runs a git subcommand computed at run time" }]);
  switch (sub) {
    case "apply":
      if (has(rest, "--check", "--stat", "--numstat", "--summary") && !has(rest, "--apply")) return result([]);
      if (has(rest, "--cached") && !has(rest, "--index")) return result([]);
      return result(write(["."], "git apply", "file_patch"));
    case "checkout": {
      const dashes = rest.indexOf("--");
      if (dashes !== -1) return result(write(rest.slice(dashes + 1), "git checkout --", "file_undo"));
      if (has(rest, "-p", "--patch")) return result(write(["."], "git checkout -p", "file_undo"));
      if (has(rest, "-b", "-B", "--orphan")) return result([]);
      const paths = operands(rest);
      return result(paths.length >= 2 ? write(paths.slice(1), "git checkout <rev> <path>", "file_undo") : []);
    }
    case "restore": {
      const stagedOnly = has(rest, "--staged", "-S") && !has(rest, "--worktree", "-W");
      return result(stagedOnly ? [] : write(operands(rest, new Set(["-s", "--source"])), "git restore", "file_undo"));
    }
    case "rm":
      return result(has(rest, "--cached") ? [] : write(operands(rest), "git rm", "file_delete"));
    case "mv":
      return result(write(operands(rest), "git mv", "file_rename"));
    case "clean": {
      const dry = rest.some((word) => word === "-n" || word === "--dry-run" || (word !== null && /^-[a-z]*n/.test(word) && !word.startsWith("--")));
      return result(dry ? [] : write(["."], "git clean", "file_delete"));
    }
    case "reset":
      return result(has(rest, "--hard", "--merge", "--keep") ? write(["."], "git reset --hard", "file_undo") : []);
    case "am":
      return result(write(["."], "git am", "file_patch"));
    default:
      return result([]);
  }
}

/** find: -delete removes what it finds; -exec/-execdir/-ok run a command on each match. */
function findEffects(args: Word[]): CommandEffect[] {
  const starts: Word[] = [];
  let index = 0;
  while (index < args.length) {
    const word = args[index] as Word;
    if (word !== null && (word.startsWith("-") || word === "(" || word === "!")) break;
    starts.push(word);
    index++;
  }
  const roots = starts.length > 0 ? starts : ["."];
  const effects: CommandEffect[] = [];
  for (; index < args.length; index++) {
    const word = args[index];
    if (word === "-delete") effects.push(...write(roots, "find -delete", "file_delete"));
    if (word === "-exec" || word === "-execdir" || word === "-ok" || word === "-okdir") {
      const end = args.findIndex((candidate, at) => at > index && (candidate === ";" || candidate === "+"));
      const inner = args.slice(index + 1, end === -1 ? args.length : end);
      for (const effect of commandEffects(inner).effects) {
        if (effect.kind === "write") {
          effects.push({ ...effect, targets: effect.targets.flatMap((target) => (target === "{}" ? roots : [target])), via: `find ${word} ${effect.via}` });
        } else if (effect.kind !== "cd") effects.push(effect);
      }
      index = end === -1 ? args.length : end;
    }
  }
  return effects;
}

/** Options that take a value, for the wrappers that come before a command. */
const WRAPPERS: Readonly<Record<string, { withValue: string[]; positional?: number }>> = {
  env: { withValue: ["-u", "--unset", "-C", "--chdir", "-S", "--split-string"] },
  sudo: { withValue: ["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group"] },
  doas: { withValue: ["-u", "-C"] },
  nice: { withValue: ["-n", "--adjustment"] },
  ionice: { withValue: ["-c", "-n", "-p", "--class", "--classdata"] },
  nohup: { withValue: [] },
  time: { withValue: ["-f", "-o", "--format", "--output"] },
  command: { withValue: [] },
  builtin: { withValue: [] },
  exec: { withValue: ["-a"] },
  stdbuf: { withValue: ["-i", "-o", "-e"] },
  timeout: { withValue: ["-k", "-s", "--kill-after", "--signal"], positional: 1 },
  unbuffer: { withValue: [] },
  chronic: { withValue: [] },
  caffeinate: { withValue: ["-t", "-w"] },
};

const XARGS_WITH_VALUE = new Set([
  "-n",
  "-I",
  "-L",
  "-P",
  "-d",
  "-a",
  "-E",
  "-s",
  "--max-args",
  "--replace",
  "--max-lines",
  "--max-procs",
  "--delimiter",
  "--arg-file",
  "--eof",
  "--max-chars",
]);

/**
 * Package runners that run a named command (`npx prettier`, `pnpm exec eslint`, `uv run black`):
 * where the command starts, or a shell script they run (`npx -c '…'`); undefined when the words
 * are no runner. Bare `yarn x` / `bun run x` may name a package script, so only a formatter or
 * fixer name counts there.
 */
function runnerStart(words: Word[]): { start: number } | { script: Word; via: string } | undefined {
  const base = (words[0] as string).replace(/^.*\//, "");
  const sub = words[1];
  let index = 1;
  let withValue = ["-p", "--package", "--from", "--with", "--python", "--project", "--directory", "-n", "--name", "--prefix", "--env", "-e"];
  let fixersOnly = false;
  switch (base) {
    case "npx":
    case "pnpx":
    case "bunx":
    case "uvx":
      break;
    case "npm":
    case "pnpm":
    case "yarn":
    case "bun":
      if (sub === "exec" || sub === "x" || sub === "dlx") index = 2;
      else if (sub === "run" && base !== "npm") {
        index = 2;
        fixersOnly = true;
      } else if (base === "yarn" || base === "pnpm") fixersOnly = true;
      else return undefined;
      break;
    case "uv":
      if (sub === "run") index = 2;
      else if (sub === "tool" && words[2] === "run") index = 3;
      else return undefined;
      break;
    case "poetry":
    case "pipx":
    case "pdm":
    case "hatch":
    case "rye":
    case "pixi":
    case "conda":
    case "mamba":
      if (sub !== "run") return undefined;
      index = 2;
      break;
    case "bundle":
    case "bundler":
      if (sub !== "exec") return undefined;
      index = 2;
      withValue = [];
      break;
    default:
      return undefined;
  }
  for (; index < words.length; index++) {
    const word = words[index] as Word;
    if (word === "--") {
      index++;
      break;
    }
    if (!isOption(word)) break;
    if (word === "-c" || word === "--call") return { script: words[index + 1] ?? null, via: `${base} -c` };
    if (withValue.includes(word as string)) index++;
  }
  const name = words[index];
  if (name === undefined) return undefined;
  if (fixersOnly && (name === null || !isFixer(name.replace(/^.*\//, ""), words[index + 1]))) return undefined;
  return { start: index };
}

/** Strips wrapper commands; returns the wrapped command's words and whether extra operands will be appended (xargs). */
export function unwrap(words: Word[]): { words: Word[]; extraOperands: boolean; wrappers: string[] } {
  let current = words;
  let extraOperands = false;
  const wrappers: string[] = [];
  for (let guard = 0; guard < 16; guard++) {
    const name = current[0];
    if (name === null || name === undefined) break;
    const base = name.replace(/^.*\//, "");
    if (base === "xargs") {
      let index = 1;
      while (index < current.length && isOption(current[index] ?? null)) {
        const option = current[index] as string;
        index += XARGS_WITH_VALUE.has(option) ? 2 : 1;
      }
      current = current.slice(index);
      extraOperands = true;
      wrappers.push("xargs");
      continue;
    }
    const wrapper = WRAPPERS[base];
    if (!wrapper) {
      const runner = runnerStart(current);
      // A runner's own script (`npx -c`) stays for commandEffects to hand back.
      if (!runner || !("start" in runner)) break;
      current = current.slice(runner.start);
      wrappers.push(base);
      continue;
    }
    if (base === "command" && (current[1] === "-v" || current[1] === "-V")) return { words: [], extraOperands, wrappers };
    let index = 1;
    while (index < current.length) {
      const word = current[index] as Word;
      if (word === "--") {
        index++;
        break;
      }
      if (base === "env" && word !== null && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
        index++;
        continue;
      }
      if (!isOption(word)) break;
      index += wrapper.withValue.includes(word as string) ? 2 : 1;
    }
    index += wrapper.positional ?? 0;
    current = current.slice(index);
    wrappers.push(base);
  }
  return { words: current, extraOperands, wrappers };
}

/** The effects of one simple command (assignments already removed). */
export function commandEffects(words: Word[]): { effects: CommandEffect[]; name: string | null } {
  const { words: inner, extraOperands } = unwrap(words);
  const rawName = inner[0];
  if (rawName === undefined) return { effects: [], name: null };
  if (rawName === null) return { effects: [{ kind: "unknown", via: "command", reason: "runs a command whose name is computed at run time" }], name: null };
  const name = rawName.replace(/^.*\//, "");
  const args = inner.slice(1);
  const withExtra = (effects: CommandEffect[]) =>
    extraOperands ? effects.map((effect) => (effect.kind === "write" ? { ...effect, targets: [...effect.targets, null] } : effect)) : effects;
  const done = (effects: CommandEffect[]) => ({ effects: withExtra(effects), name });

  const runner = runnerStart(inner);
  if (runner && "script" in runner) return done([{ kind: "script", script: runner.script, via: runner.via }]);
  const formatting = formatterEffects(name, name === "cargo" ? args.filter((word) => !word?.startsWith("+")) : args);
  if (formatting !== undefined) return done(formatting);

  if (SHELLS.has(name)) {
    for (let index = 0; index < args.length; index++) {
      const word = args[index] as Word;
      if (word === null) return done([{ kind: "unknown", via: name, reason: `runs a ${name} script named at run time` }]);
      if (word === "-o" || word === "+o" || word === "-O" || word === "+O" || word === "--rcfile" || word === "--init-file") {
        index++;
        continue;
      }
      if (word.startsWith("--")) continue;
      if ((!word.startsWith("-") && !word.startsWith("+")) || word === "-") {
        // A script file: running a script is allowed; its contents are not ours to judge.
        return done([]);
      }
      if (word.slice(1).includes("c")) {
        const script = operands(args.slice(index + 1), new Set(["-o", "+o", "-O", "+O"]))[0];
        return done([{ kind: "script", script: script ?? null, via: `${name} -c` }]);
      }
      if (word.slice(1).includes("s")) break;
    }
    return done([{ kind: "unknown", via: name, reason: `reads a script for ${name} from its input` }]);
  }
  if (PYTHONS.test(name)) {
    const module = args.indexOf("-m");
    const moduleName = args[module + 1];
    if (module !== -1 && moduleName !== null && moduleName !== undefined) return done(formatterEffects(moduleName, args.slice(module + 2)) ?? []);
    const code = valueOf(args, ["-c"], []);
    return done(code.found ? oneLiner(code.value, name) : []);
  }
  if (NODES.has(name)) {
    if (name === "deno" && args[0] === "eval") return done(oneLiner(args[1] ?? null, "deno eval"));
    const code = valueOf(args, ["-e", "-p"], ["--eval", "--print"]);
    return done(code.found ? oneLiner(code.value, name) : []);
  }
  switch (name) {
    case "cd":
    case "pushd":
      return done([{ kind: "cd", dir: operands(args)[0] ?? null }]);
    case "eval":
      return done([{ kind: "script", script: args.some((word) => word === null) ? null : args.join(" "), via: "eval" }]);
    case "ruby": {
      const code = valueOf(args, ["-e"], []);
      return done(code.found ? oneLiner(code.value, "ruby") : []);
    }
    case "php": {
      const code = valueOf(args, ["-r"], []);
      return done(code.found ? oneLiner(code.value, "php") : []);
    }
    case "lua": {
      const code = valueOf(args, ["-e"], []);
      return done(code.found ? oneLiner(code.value, "lua") : []);
    }
    case "perl":
      return done(perlEffects(args));
    case "sed":
    case "gsed":
      return done(sedEffects(args));
    case "awk":
    case "gawk": {
      const inplace = valueOf(args, ["-i"], ["--include"]);
      if (inplace.found && (inplace.value === "inplace" || inplace.value === null)) {
        const rest = operands(args, new Set(["-i", "-f", "-v", "-F", "--include"]));
        return done(write(valueOf(args, ["-f"], []).found ? rest : rest.slice(1), "awk -i inplace", "file_patch"));
      }
      const program = operands(args, new Set(["-f", "-v", "-F"]))[0];
      if (program === null) return done([{ kind: "unknown", via: "awk", reason: "runs an awk program computed at run time" }]);
      return done(program !== undefined && /\bprintf?\b[^|;]*>\s*["$(a-zA-Z]/.test(program) ? write([null], "awk print >", "file_write") : []);
    }
    case "tee":
      return done(write(operands(args), "tee", "file_write"));
    case "touch":
      return done(write(operands(args, new Set(["-d", "-r", "-t", "--date", "--reference"])), "touch", "file_write"));
    case "truncate":
      return done(write(operands(args, new Set(["-s", "-r", "-o", "--size", "--reference"])), "truncate", "file_write"));
    case "rm":
    case "rmdir":
    case "unlink":
    case "shred":
      return done(write(operands(args, new Set(["-n", "-s", "--iterations", "--size"])), name, "file_delete"));
    case "mv": {
      const target = valueOf(args, ["-t"], ["--target-directory"]);
      const paths = operands(args, new Set(["-t", "-S", "--target-directory", "--suffix"]));
      return done(write(target.found ? [...paths, target.value] : paths, "mv", "file_rename"));
    }
    case "cp":
    case "ln":
    case "install":
    case "rsync": {
      const target = valueOf(args, ["-t"], ["--target-directory"]);
      if (target.found) return done(write([target.value], name, "file_write"));
      const paths = operands(args, new Set(["-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group", "-e", "--rsh"]));
      return done(write(paths.length > 0 ? [paths[paths.length - 1] as Word] : [null], name, "file_write"));
    }
    case "chmod":
    case "chown":
    case "chgrp": {
      const paths = operands(args, new Set(["--reference"]));
      return done(write(has(args, "--reference") || args.some((word) => word?.startsWith("--reference=")) ? paths : paths.slice(1), name, "file_chattr"));
    }
    case "dd": {
      const output = args.find((word): word is string => word !== null && word.startsWith("of="));
      if (args.includes(null) && output === undefined) return done(write([null], "dd", "file_write"));
      return done(output === undefined ? [] : write([output.slice(3)], "dd of=", "file_write"));
    }
    case "find":
      return done(findEffects(args));
    case "patch":
      if (has(args, "--dry-run", "-C", "--check")) return done([]);
      return done(
        write([operands(args, new Set(["-i", "-p", "-d", "-o", "-r", "-B", "-D", "-F", "-V", "-z", "--input", "--directory", "--output"]))[0] ?? "."], "patch", "file_patch"),
      );
    case "ed":
    case "ex":
      return done(write(operands(args), name, "file_patch"));
    case "git": {
      const git = gitEffects(args);
      const effects: CommandEffect[] = git.cwd === undefined ? git.effects : [{ kind: "cd", dir: git.cwd }, ...git.effects];
      return done(effects);
    }
    case "curl": {
      const output = valueOf(args, ["-o"], ["--output"]);
      if (output.found && output.value !== "-") return done(write([output.value], "curl -o", "file_write"));
      if (has(args, "-O", "--remote-name", "--remote-name-all")) return done(write(["."], "curl -O", "file_write"));
      return done([]);
    }
    case "wget": {
      let output = valueOf(args, ["-O"], ["--output-document"]);
      // Short options cluster: -qO- is -q -O -.
      const clustered = args.findIndex((word) => word !== null && /^-[a-zA-Z]+O/.test(word) && !word.startsWith("--"));
      if (!output.found && clustered !== -1) {
        const rest = (args[clustered] as string).replace(/^-[a-zA-Z]*?O/, "");
        output = { found: true, value: rest !== "" ? rest : (args[clustered + 1] ?? null) };
      }
      if (output.found) return done(output.value === "-" ? [] : write([output.value], "wget -O", "file_write"));
      const prefix = valueOf(args, ["-P"], ["--directory-prefix"]);
      return done(write([prefix.found ? prefix.value : "."], "wget", "file_write"));
    }
    case "tar": {
      const first = args[0];
      const extracting = has(args, "-x", "--extract", "--get") || (first !== null && first !== undefined && /^-?[a-zA-Z]*x/.test(first) && !first.startsWith("--"));
      if (!extracting) return done([]);
      const directory = valueOf(args, ["-C"], ["--directory"]);
      return done(write([directory.found ? directory.value : "."], "tar -x", "file_write"));
    }
    case "unzip": {
      if (has(args, "-l", "-t", "-v", "-Z")) return done([]);
      const directory = valueOf(args, ["-d"], []);
      return done(write([directory.found ? directory.value : "."], "unzip", "file_write"));
    }
    default:
      return done([]);
  }
}
