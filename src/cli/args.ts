/**
 * A small, strict command-line parser: known flags only, typed values, positionals kept in order.
 * Anything unknown is a UsageError, which the CLI turns into usage on stderr and exit 2.
 */

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export interface FlagSpec {
  type: "boolean" | "string";
  /** Allowed values for a string flag. */
  choices?: readonly string[];
}

export interface ParsedArgs {
  flags: Record<string, string | boolean>;
  positionals: string[];
}

/** parseArgs for a command that takes no positionals; undefined once --help has printed `usage`. */
export function parseFlags(argv: readonly string[], spec: Record<string, FlagSpec>, usage: string, stdout: (text: string) => void): ParsedArgs["flags"] | undefined {
  const { flags, positionals } = parseArgs(argv, spec);
  if (flags.help) {
    stdout(usage);
    return undefined;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  return flags;
}

/** A --port value, a whole number from `min` to 65535; undefined when none is given. */
export function parsePort(value: string | boolean | undefined, min: 0 | 1): number | undefined {
  if (typeof value !== "string") return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < min || port > 65535) throw new UsageError(`--port must be a whole number from ${min} to 65535`);
  return port;
}

export function parseArgs(argv: readonly string[], spec: Record<string, FlagSpec>): ParsedArgs {
  const flags: Record<string, string | boolean> = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const isLong = arg.startsWith("--");
    const body = isLong ? arg.slice(2) : arg.slice(1);
    const eq = body.indexOf("=");
    const name = eq === -1 ? body : body.slice(0, eq);
    // The only short option is -h.
    const flag = isLong ? name : name === "h" ? "help" : undefined;
    const def = flag === undefined ? undefined : spec[flag];
    if (flag === undefined || !def) throw new UsageError(`unknown option ${isLong ? `--${name}` : arg}`);
    if (def.type === "boolean") {
      if (eq !== -1) throw new UsageError(`option --${flag} takes no value`);
      flags[flag] = true;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = body.slice(eq + 1);
    else {
      value = argv[i + 1];
      i++;
    }
    if (value === undefined || value === "") throw new UsageError(`option --${flag} needs a value`);
    if (def.choices && !def.choices.includes(value)) throw new UsageError(`option --${flag} must be one of ${def.choices.join(", ")}`);
    flags[flag] = value;
  }
  return { flags, positionals };
}
