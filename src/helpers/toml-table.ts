/**
 * Edits one table of a TOML file as text, so the rest of the file (comments, order, spacing)
 * stays byte for byte: render a table, find where a table and its subtables are written,
 * append one, replace it, or remove it again together with the separator that was added.
 */

export type TomlScalar = string | number | boolean | string[];
export interface TomlTableValues {
  [key: string]: TomlScalar | TomlTableValues;
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

function renderKey(key: string): string {
  return BARE_KEY.test(key) ? key : JSON.stringify(key);
}

function renderScalar(value: TomlScalar): string {
  if (Array.isArray(value)) return `[${value.map((item) => JSON.stringify(item)).join(", ")}]`;
  // JSON string escapes are a subset of TOML basic-string escapes.
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/** `[a.b]` with its scalar keys, then each nested object as a `[a.b.c]` subtable. Ends with "\n". */
export function renderTomlTable(header: string[], values: TomlTableValues): string {
  const lines = [`[${header.map(renderKey).join(".")}]`];
  const subtables: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (typeof value === "object" && !Array.isArray(value)) subtables.push(renderTomlTable([...header, key], value));
    else lines.push(`${renderKey(key)} = ${renderScalar(value)}`);
  }
  return [`${lines.join("\n")}\n`, ...subtables].join("\n");
}

/** Splits a header's dotted key ("a.\"b.c\".d") into its parts. */
export function parseHeaderKey(inner: string): string[] | undefined {
  const parts: string[] = [];
  let rest = inner.trim();
  while (rest.length > 0) {
    let part: string;
    if (rest.startsWith("\"")) {
      const match = /^"((?:[^"\\]|\\.)*)"/.exec(rest);
      if (!match) return undefined;
      try {
        part = JSON.parse(match[0]) as string;
      } catch {
        return undefined;
      }
      rest = rest.slice(match[0].length);
    } else if (rest.startsWith("'")) {
      const close = rest.indexOf("'", 1);
      if (close === -1) return undefined;
      part = rest.slice(1, close);
      rest = rest.slice(close + 1);
    } else {
      const match = /^[A-Za-z0-9_-]+/.exec(rest);
      if (!match) return undefined;
      part = match[0];
      rest = rest.slice(part.length);
    }
    parts.push(part);
    rest = rest.trimStart();
    if (rest.length === 0) break;
    if (!rest.startsWith(".")) return undefined;
    rest = rest.slice(1).trimStart();
  }
  return parts.length > 0 ? parts : undefined;
}

interface Line {
  start: number;
  /** Offset after the line's newline (or the end of the text). */
  end: number;
  text: string;
  /** The dotted key of a `[table]` or `[[array]]` header on this line. */
  header?: string[];
  inMultilineString: boolean;
}

function scanLines(text: string): Line[] {
  const lines: Line[] = [];
  let offset = 0;
  let openDelimiter: "\"\"\"" | "'''" | undefined;
  while (offset < text.length) {
    const newline = text.indexOf("\n", offset);
    const end = newline === -1 ? text.length : newline + 1;
    const content = text.slice(offset, end).replace(/\r?\n$/, "");
    const line: Line = { start: offset, end, text: content, inMultilineString: openDelimiter !== undefined };
    if (!openDelimiter) {
      const header = /^\s*\[\[?\s*([^[\]]+?)\s*\]\]?\s*(?:#.*)?$/.exec(content);
      if (header?.[1]) {
        const key = parseHeaderKey(header[1]);
        if (key) line.header = key;
      }
    }
    // Track multi-line strings so a line inside one is never taken for a header.
    for (const delimiter of ["\"\"\"", "'''"] as const) {
      const count = content.split(delimiter).length - 1;
      if (count % 2 === 1) {
        if (openDelimiter === undefined) openDelimiter = delimiter;
        else if (openDelimiter === delimiter) openDelimiter = undefined;
      }
    }
    lines.push(line);
    offset = end;
  }
  return lines;
}

function startsWith(path: string[], prefix: string[]): boolean {
  return prefix.length <= path.length && prefix.every((part, index) => path[index] === part);
}

/**
 * Where `[header]` and its subtables are written: from the header line to the end of the last
 * key line before the next unrelated header (blank lines and comments just above the next header
 * belong to it). Undefined when the table has no header of its own in the file.
 */
export function findTomlTable(text: string, header: string[]): { start: number; end: number } | undefined {
  const lines = scanLines(text);
  const first = lines.findIndex((line) => line.header !== undefined && line.header.length === header.length && startsWith(line.header, header));
  if (first === -1) return undefined;
  let lastContent = first;
  for (let index = first + 1; index < lines.length; index++) {
    const line = lines[index] as Line;
    if (line.header && !startsWith(line.header, header)) break;
    const trimmed = line.text.trim();
    if (line.inMultilineString || (trimmed !== "" && !trimmed.startsWith("#"))) lastContent = index;
  }
  return { start: (lines[first] as Line).start, end: (lines[lastContent] as Line).end };
}

function eolOf(text: string): string {
  return text.includes("\r\n") ? "\r\n" : "\n";
}

function withEol(tableText: string, eol: string): string {
  return eol === "\n" ? tableText : tableText.replace(/\n/g, eol);
}

/** Appends a table at the end, separated by one blank line; returns the separator it added. */
export function appendTomlTable(text: string, tableText: string): { text: string; prefix: string } {
  const eol = eolOf(text);
  let prefix = "";
  if (text.length > 0) {
    if (text.endsWith(eol + eol)) prefix = "";
    else if (text.endsWith(eol)) prefix = eol;
    else prefix = eol + eol;
  }
  return { text: text + prefix + withEol(tableText, eol), prefix };
}

/** Replaces the text of `[header]` (and its subtables) with `tableText`. */
export function replaceTomlTable(text: string, header: string[], tableText: string): string | undefined {
  const region = findTomlTable(text, header);
  if (!region) return undefined;
  const eol = eolOf(text);
  return text.slice(0, region.start) + withEol(tableText, eol) + text.slice(region.end);
}

/** The exact text of `[header]` and its subtables, or undefined. */
export function tomlTableText(text: string, header: string[]): string | undefined {
  const region = findTomlTable(text, header);
  return region ? text.slice(region.start, region.end) : undefined;
}

/** Removes `[header]` and the separator `prefix` that appendTomlTable put before it. */
export function removeTomlTable(text: string, header: string[], prefix: string): { text: string; changed: boolean } {
  const region = findTomlTable(text, header);
  if (!region) return { text, changed: false };
  let start = region.start;
  if (prefix.length > 0 && text.slice(start - prefix.length, start) === prefix) start -= prefix.length;
  return { text: text.slice(0, start) + text.slice(region.end), changed: true };
}
