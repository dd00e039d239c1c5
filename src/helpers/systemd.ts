/**
 * Quoting for systemd unit files. In ExecStart and Environment, systemd expands "%" specifiers
 * and "$" variables and splits on whitespace honouring double quotes; these functions write
 * arguments so that they come back unchanged, and read them back the same way.
 */

const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One argument as systemd reads it back verbatim. */
export function quoteSystemdArg(arg: string): string {
  const escaped = arg.replace(/%/g, "%%").replace(/\$/g, "$$$$");
  if (PLAIN.test(arg)) return escaped;
  return `"${escaped.replace(/\\/g, "\\\\").replace(/"/g, "\\\"")}"`;
}

/** A command line for ExecStart=. */
export function renderSystemdCommand(argv: readonly string[]): string {
  return argv.map(quoteSystemdArg).join(" ");
}

/** Environment="NAME=value". */
export function renderSystemdEnvironment(name: string, value: string): string {
  return `Environment=${quoteSystemdArg(`${name}=${value}`)}`;
}

/** Splits an ExecStart= value back into arguments (the subset of syntax renderSystemdCommand writes). */
export function splitSystemdCommand(line: string): string[] {
  const args: string[] = [];
  let index = 0;
  while (index < line.length) {
    while (index < line.length && /\s/.test(line[index] as string)) index++;
    if (index >= line.length) break;
    let arg = "";
    if (line[index] === "\"") {
      index++;
      while (index < line.length && line[index] !== "\"") {
        if (line[index] === "\\" && index + 1 < line.length) index++;
        arg += line[index];
        index++;
      }
      index++;
    } else {
      while (index < line.length && !/\s/.test(line[index] as string)) arg += line[index++];
    }
    args.push(arg.replace(/%%/g, "%").replace(/\$\$/g, "$"));
  }
  return args;
}
