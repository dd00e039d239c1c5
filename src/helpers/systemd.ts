/**
 * Quoting for systemd unit files. In ExecStart and Environment, systemd expands "%" specifiers
 * and "$" variables and splits on whitespace honouring double quotes; these functions write
 * arguments so that they come back unchanged.
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
