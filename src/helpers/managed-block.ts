/**
 * A block of text that ast-mcp owns inside a file someone else owns (AGENTS.md, CLAUDE.md):
 * delimited by stable markers, replaced in place on update, and removed together with the
 * separator that was added before it, so the file comes back byte for byte.
 */

export const BLOCK_BEGIN = "<!-- ast-mcp:begin (managed by `ast-mcp install`; edits inside are replaced on update) -->";
export const BLOCK_END = "<!-- ast-mcp:end -->";

const BEGIN_PATTERN = /<!-- ast-mcp:begin\b[^\n]*-->/;

function eolOf(text: string): string {
  return text.includes("\r\n") ? "\r\n" : "\n";
}

/** The block with its markers, in the file's line ending, ending without a newline. */
function renderManagedBlock(body: string, eol = "\n"): string {
  const inner = body.replace(/\r\n/g, "\n").replace(/\n+$/, "");
  return [BLOCK_BEGIN, inner, BLOCK_END].join("\n").replace(/\n/g, eol);
}

/** Offsets of the block (from its begin marker to the end of its end marker), or undefined. */
function findManagedBlock(text: string): { start: number; end: number } | undefined {
  const begin = BEGIN_PATTERN.exec(text);
  if (!begin) return undefined;
  const endMarker = text.indexOf(BLOCK_END, begin.index);
  if (endMarker === -1) return undefined;
  return { start: begin.index, end: endMarker + BLOCK_END.length };
}

/**
 * Puts the block into `text` (null: the file does not exist): replaces an existing block in
 * place, else appends it after one blank line. `prefix` is the separator added before a new
 * block and `suffix` the newline after it; removal takes both back.
 */
export function upsertManagedBlock(text: string | null, body: string): { text: string; changed: boolean; prefix: string; suffix: string; appended: boolean } {
  const current = text ?? "";
  const eol = eolOf(current);
  const block = renderManagedBlock(body, eol);
  const existing = findManagedBlock(current);
  if (existing) {
    const next = current.slice(0, existing.start) + block + current.slice(existing.end);
    return { text: next, changed: next !== current, prefix: "", suffix: "", appended: false };
  }
  let prefix = "";
  if (current.length > 0) {
    if (current.endsWith(eol + eol)) prefix = "";
    else if (current.endsWith(eol)) prefix = eol;
    else prefix = eol + eol;
  }
  return { text: current + prefix + block + eol, changed: true, prefix, suffix: eol, appended: true };
}

/** Removes the block and the separators recorded when it was appended. */
export function removeManagedBlock(text: string, prefix: string, suffix: string): { text: string; changed: boolean } {
  const region = findManagedBlock(text);
  if (!region) return { text, changed: false };
  let start = region.start;
  let end = region.end;
  if (suffix.length > 0 && text.slice(end, end + suffix.length) === suffix) end += suffix.length;
  if (prefix.length > 0 && text.slice(start - prefix.length, start) === prefix) start -= prefix.length;
  return { text: text.slice(0, start) + text.slice(end), changed: true };
}
