/**
 * Formatters and fixers: commands that rewrite source files in place when given a flag
 * (`prettier --write`, `eslint --fix`) or by default (`black`, `cargo fmt`), and only check or
 * print under another (`black --check`, `gofmt -l`). One table, keyed by the command name or by
 * "name subcommand"; package runners (`npx`, `pnpm exec`, `uv run`, `python -m`, …) are looked
 * through by the caller, so `npx prettier --write x` meets the `prettier` entry here.
 */
import type { Word } from "./commands.ts";

interface Fixer {
  /** It writes only when one of these flags is given (`--flag=value` counts as the flag). */
  writeWhen?: readonly string[];
  /** It writes unless one of these flags is given. Absent with writeWhen absent: always writes. */
  checkWhen?: readonly string[];
}

const ALWAYS: Fixer = {};
const FIX: Fixer = { writeWhen: ["--fix"] };
const CHECK: Fixer = { checkWhen: ["--check"] };
const IN_PLACE: Fixer = { writeWhen: ["-i", "--in-place"] };

/** Keys are "name" or "name subcommand"; the subcommand entry wins. */
const FIXERS: Readonly<Record<string, Fixer>> = {
  // JavaScript, TypeScript, CSS, Markdown
  prettier: { writeWhen: ["--write", "-w"] },
  eslint: FIX,
  eslint_d: FIX,
  stylelint: FIX,
  xo: FIX,
  standard: FIX,
  tslint: FIX,
  oxlint: { writeWhen: ["--fix", "--fix-suggestions", "--fix-dangerously"] },
  "biome format": { writeWhen: ["--write", "--apply", "--fix"] },
  "biome check": { writeWhen: ["--write", "--apply", "--apply-unsafe", "--fix", "--unsafe"] },
  "biome lint": { writeWhen: ["--write", "--apply", "--apply-unsafe", "--fix", "--unsafe"] },
  "dprint fmt": ALWAYS,
  "deno fmt": CHECK,
  "deno lint": FIX,
  "markdownlint": FIX,
  "markdownlint-cli2": FIX,
  "sort-package-json": { checkWhen: ["--check", "-c"] },
  "gts fix": ALWAYS,
  // Python
  black: { checkWhen: ["--check", "--diff"] },
  blue: { checkWhen: ["--check", "--diff"] },
  "ruff format": { checkWhen: ["--check", "--diff"] },
  "ruff check": { writeWhen: ["--fix", "--unsafe-fixes"] },
  ruff: FIX,
  isort: { checkWhen: ["--check", "--check-only", "-c", "--diff"] },
  autopep8: IN_PLACE,
  yapf: IN_PLACE,
  autoflake: IN_PLACE,
  docformatter: IN_PLACE,
  pyupgrade: ALWAYS,
  pycln: { checkWhen: ["--check", "--diff", "-c", "-d"] },
  mdformat: CHECK,
  djlint: { writeWhen: ["--reformat"] },
  "sqlfluff fix": ALWAYS,
  "sqlfluff format": ALWAYS,
  // Go, Rust, Zig, C family, JVM, .NET, Swift
  gofmt: { writeWhen: ["-w"] },
  goimports: { writeWhen: ["-w"] },
  gofumpt: { writeWhen: ["-w"] },
  golines: { writeWhen: ["-w", "--write-output"] },
  "go fmt": { checkWhen: ["-n"] },
  "go fix": ALWAYS,
  "golangci-lint run": FIX,
  "cargo fmt": CHECK,
  "cargo fix": ALWAYS,
  "cargo clippy": FIX,
  rustfmt: CHECK,
  "zig fmt": CHECK,
  "clang-format": { writeWhen: ["-i"] },
  "clang-tidy": { writeWhen: ["--fix", "-fix", "--fix-errors", "-fix-errors"] },
  "cmake-format": IN_PLACE,
  "google-java-format": { writeWhen: ["-i", "--replace"] },
  ktlint: { writeWhen: ["-F", "--format"] },
  scalafmt: { checkWhen: ["--test", "--list", "--check"] },
  "dotnet format": { checkWhen: ["--verify-no-changes"] },
  csharpier: CHECK,
  swiftformat: { checkWhen: ["--lint", "--dryrun"] },
  "swift-format": IN_PLACE,
  swiftlint: FIX,
  // Ruby, PHP, Elixir, Haskell, Elm, Lua, shell, Nix, config and the rest
  rubocop: { writeWhen: ["-a", "-A", "-x", "--autocorrect", "--autocorrect-all", "--auto-correct", "--auto-correct-all", "--fix-layout"] },
  standardrb: FIX,
  "php-cs-fixer fix": { checkWhen: ["--dry-run"] },
  phpcbf: ALWAYS,
  "mix format": { checkWhen: ["--check-formatted", "--dry-run"] },
  ormolu: { writeWhen: ["-i", "--mode=inplace"] },
  fourmolu: { writeWhen: ["-i", "--mode=inplace"] },
  "elm-format": { checkWhen: ["--validate", "--stdout"] },
  stylua: CHECK,
  shfmt: { writeWhen: ["-w", "--write"] },
  nixfmt: { checkWhen: ["--check", "-c"] },
  alejandra: { checkWhen: ["--check", "-c"] },
  "terraform fmt": { checkWhen: ["-check", "-write=false"] },
  "tofu fmt": { checkWhen: ["-check", "-write=false"] },
  "taplo fmt": CHECK,
  "taplo format": CHECK,
  "buf format": { writeWhen: ["-w", "--write"] },
  buildifier: { checkWhen: ["--mode=check", "-mode=check", "--mode=diff", "-mode=diff"] },
  codespell: { writeWhen: ["-w", "--write-changes"] },
  typos: { writeWhen: ["-w", "--write-changes"] },
  "cljfmt fix": ALWAYS,
};

/** Flags after which a command prints and exits, whatever else it was given. */
const INFO_FLAGS = ["--help", "-h", "--version", "-V"];

function flagGiven(args: readonly Word[], flags: readonly string[]): boolean {
  return args.some((word) => word !== null && flags.some((flag) => word === flag || word.startsWith(`${flag}=`)));
}

/** Whether `name` (or `name sub`) is a formatter or fixer: package runners use this to see through themselves. */
export function isFixer(name: string, sub: Word | undefined): boolean {
  return (sub !== null && sub !== undefined && Object.hasOwn(FIXERS, `${name} ${sub}`)) || Object.hasOwn(FIXERS, name);
}

/**
 * What a formatter invocation writes: its file operands (the folder it runs in when it names
 * none), with the command's allow-list name ("prettier", "cargo fmt"); undefined when the command
 * is no formatter, null when this invocation only checks or formats its input to its output.
 */
export function fixerWrites(name: string, args: readonly Word[]): { command: string; targets: Word[] } | null | undefined {
  const sub = args[0];
  const withSub = sub !== null && sub !== undefined ? `${name} ${sub}` : undefined;
  // Own keys only: a command named "constructor" is no formatter.
  const key = withSub !== undefined && Object.hasOwn(FIXERS, withSub) ? withSub : Object.hasOwn(FIXERS, name) ? name : undefined;
  if (key === undefined) return undefined;
  const fixer = FIXERS[key] as Fixer;
  const rest = key === name ? args : args.slice(1);
  if (flagGiven(rest, INFO_FLAGS)) return null;
  if (fixer.writeWhen && !flagGiven(rest, fixer.writeWhen)) return null;
  if (fixer.checkWhen && flagGiven(rest, fixer.checkWhen)) return null;
  // Options' values may be counted as files here: a false path inside the repository only makes the hook more careful.
  const operands = rest.filter((word) => word === null || !word.startsWith("-") || word === "-");
  if (operands.length === 1 && operands[0] === "-") return null;
  // Go's package patterns ("./...", "pkg/...") name a folder and everything below it.
  const targets = operands.filter((word) => word !== "-").map((word) => (word === null ? null : word.replace(/(?:^|\/)\.\.\.$/, "") || "."));
  return { command: key, targets: targets.length > 0 ? targets : ["."] };
}
