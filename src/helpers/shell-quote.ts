/** Quoting a word for a POSIX shell (hook commands are run through one by every host). */

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

export function shellQuote(word: string): string {
  if (SAFE.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Quoting for cmd.exe / PowerShell command strings: double quotes around words with spaces. */
export function windowsQuote(word: string): string {
  if (SAFE.test(word.replace(/\\/g, "/"))) return word;
  return `"${word.replace(/"/g, "\\\"")}"`;
}
