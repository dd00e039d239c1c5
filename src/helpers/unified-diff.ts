/**
 * Bounded unified diffs for previews. Lines are compared with their terminators, so a changed line
 * ending is a changed line. Minimal diffs come from jsdiff's Myers implementation within a work
 * budget; past it, lines unique to both sides anchor the texts (patience style) and the gaps between
 * anchors are diffed again, a gap that is still too large becoming one replacement. The result is
 * always a correct diff; it is only less minimal for huge rewrites.
 */
import { diffArrays } from "diff";
import { LIMITS } from "../core/limits.ts";
import { lineStarts, utf8Length } from "../text/index.ts";
import { lastIndexWhere } from "../core/bisect.ts";

export interface UnifiedDiff {
  diff: string;
  /** The diff was cut at maxBytes; `added`/`removed` still count the whole diff. */
  truncated: boolean;
  added: number;
  removed: number;
}

type ChangeKind = "equal" | "removed" | "added";

interface Change {
  kind: ChangeKind;
  count: number;
}

interface Segment {
  kind: ChangeKind;
  /** Index of the segment's first line in the old (equal, removed) or new (added) lines. */
  from: number;
  count: number;
}

interface Hunk {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
  segments: Segment[];
}

const NO_NEWLINE = "\\ No newline at end of file";
/** Recursion depth of the anchor step before a gap becomes one replacement. */
const MAX_ANCHOR_DEPTH = 4;

/**
 * A unified diff with `a/<path>` / `b/<path>` headers (`/dev/null` for a created or deleted file),
 * cut on a line boundary so that it and its closing note fit in maxBytes.
 */
export function unifiedDiff(displayPath: string, before: string | undefined, after: string | undefined, maxBytes: number): UnifiedDiff {
  if (before === after) return { diff: "", truncated: false, added: 0, removed: 0 };
  const oldLines = splitKeepingTerminators(before ?? "");
  const newLines = splitKeepingTerminators(after ?? "");

  const changes = diffLines(oldLines, newLines);
  let added = 0;
  let removed = 0;
  for (const change of changes) {
    if (change.kind === "added") added += change.count;
    else if (change.kind === "removed") removed += change.count;
  }
  const path = displayPath.replace(/\\/g, "/");
  // git's a/ b/ prefixes suit relative paths; an absolute path is shown as it is.
  const side = (prefix: string) => (/^([a-zA-Z]:)?[\\/]/.test(path) ? path : `${prefix}/${path}`);
  const header = `--- ${before === undefined ? "/dev/null" : side("a")}\n+++ ${after === undefined ? "/dev/null" : side("b")}\n`;
  const hunks = buildHunks(changes, LIMITS.patch.diffContextLines);
  const rendered = render(header, hunks, oldLines, newLines, maxBytes);
  return { diff: rendered.text, truncated: rendered.truncated, added, removed };
}

/** Lines with their terminators ("\n", "\r\n" or a lone "\r"); the last may have none. */
function splitKeepingTerminators(text: string): string[] {
  const starts = lineStarts(text);
  // After a final terminator the table ends with an empty last line, which is no line here.
  if (starts[starts.length - 1] === text.length) starts.pop();
  return starts.map((start, index) => text.slice(start, starts[index + 1] ?? text.length));
}

// ---------------------------------------------------------------------------------------------
// Line diff within a work budget

function diffLines(oldLines: string[], newLines: string[]): Change[] {
  const out: Change[] = [];
  const budget = { remaining: LIMITS.patch.diffMaxWork };
  diffRange(oldLines, 0, oldLines.length, newLines, 0, newLines.length, budget, 0, out);
  return normalize(out);
}

function diffRange(
  oldLines: string[],
  oldFrom: number,
  oldTo: number,
  newLines: string[],
  newFrom: number,
  newTo: number,
  budget: { remaining: number },
  depth: number,
  out: Change[],
): void {
  let prefix = 0;
  while (oldFrom + prefix < oldTo && newFrom + prefix < newTo && oldLines[oldFrom + prefix] === newLines[newFrom + prefix]) prefix++;
  let suffix = 0;
  while (
    oldTo - suffix > oldFrom + prefix &&
    newTo - suffix > newFrom + prefix &&
    oldLines[oldTo - suffix - 1] === newLines[newTo - suffix - 1]
  ) {
    suffix++;
  }
  push(out, "equal", prefix);
  const aFrom = oldFrom + prefix;
  const aTo = oldTo - suffix;
  const bFrom = newFrom + prefix;
  const bTo = newTo - suffix;
  const oldCount = aTo - aFrom;
  const newCount = bTo - bFrom;

  if (oldCount === 0 || newCount === 0) {
    push(out, "removed", oldCount);
    push(out, "added", newCount);
  } else {
    const size = oldCount + newCount;
    // Myers costs about size × edit length: allow only as many edits as the budget pays for.
    const maxEditLength = Math.min(size, Math.floor(budget.remaining / size));
    const minimal = maxEditLength >= 1 ? diffArrays(oldLines.slice(aFrom, aTo), newLines.slice(bFrom, bTo), { maxEditLength }) : undefined;
    if (minimal) {
      let edits = 0;
      for (const change of minimal) {
        const kind: ChangeKind = change.added ? "added" : change.removed ? "removed" : "equal";
        if (kind !== "equal") edits += change.count;
        push(out, kind, change.count);
      }
      budget.remaining -= size * Math.max(1, edits);
    } else {
      budget.remaining -= size * Math.max(0, maxEditLength);
      const anchors = depth < MAX_ANCHOR_DEPTH ? uniqueAnchors(oldLines, aFrom, aTo, newLines, bFrom, bTo) : [];
      if (anchors.length === 0) {
        push(out, "removed", oldCount);
        push(out, "added", newCount);
      } else {
        let oldAt = aFrom;
        let newAt = bFrom;
        for (const [oldAnchor, newAnchor] of anchors) {
          diffRange(oldLines, oldAt, oldAnchor, newLines, newAt, newAnchor, budget, depth + 1, out);
          push(out, "equal", 1);
          oldAt = oldAnchor + 1;
          newAt = newAnchor + 1;
        }
        diffRange(oldLines, oldAt, aTo, newLines, newAt, bTo, budget, depth + 1, out);
      }
    }
  }
  push(out, "equal", suffix);
}

/**
 * Pairs of lines that occur exactly once on each side, kept in an order increasing on both sides
 * (longest increasing subsequence of their old positions, in new order).
 */
function uniqueAnchors(oldLines: string[], oldFrom: number, oldTo: number, newLines: string[], newFrom: number, newTo: number): Array<[number, number]> {
  const oldSeen = new Map<string, number>();
  for (let index = oldFrom; index < oldTo; index++) {
    const line = oldLines[index]!;
    oldSeen.set(line, oldSeen.has(line) ? -1 : index);
  }
  const newSeen = new Map<string, number>();
  for (let index = newFrom; index < newTo; index++) {
    const line = newLines[index]!;
    newSeen.set(line, newSeen.has(line) ? -1 : index);
  }
  const pairs: Array<[number, number]> = [];
  for (let index = newFrom; index < newTo; index++) {
    const line = newLines[index]!;
    const oldIndex = oldSeen.get(line);
    if (oldIndex !== undefined && oldIndex >= 0 && newSeen.get(line) === index) pairs.push([oldIndex, index]);
  }
  return longestIncreasing(pairs);
}

/** Longest subsequence of `pairs` (ordered by new index) whose old indexes increase; O(n log n). */
function longestIncreasing(pairs: Array<[number, number]>): Array<[number, number]> {
  const tails: number[] = [];
  const previous = new Int32Array(pairs.length).fill(-1);
  pairs.forEach(([oldIndex], position) => {
    const low = lastIndexWhere(tails.length, (index) => pairs[tails[index]!]![0] < oldIndex) + 1;
    if (low > 0) previous[position] = tails[low - 1]!;
    tails[low] = position;
  });
  const result: Array<[number, number]> = [];
  for (let position = tails.length > 0 ? tails[tails.length - 1]! : -1; position >= 0; position = previous[position]!) result.push(pairs[position]!);
  return result.reverse();
}

function push(out: Change[], kind: ChangeKind, count: number): void {
  if (count > 0) out.push({ kind, count });
}

/** Merges runs: equal runs join, and each stretch between equal runs becomes removed-then-added. */
function normalize(changes: Change[]): Change[] {
  const result: Change[] = [];
  let removed = 0;
  let added = 0;
  const flush = () => {
    push(result, "removed", removed);
    push(result, "added", added);
    removed = 0;
    added = 0;
  };
  for (const change of changes) {
    if (change.kind === "removed") removed += change.count;
    else if (change.kind === "added") added += change.count;
    else {
      flush();
      const last = result[result.length - 1];
      if (last?.kind === "equal") last.count += change.count;
      else result.push({ ...change });
    }
  }
  flush();
  return result;
}

// ---------------------------------------------------------------------------------------------
// Hunks and rendering

function buildHunks(changes: Change[], context: number): Hunk[] {
  const hunks: Hunk[] = [];
  let current: Hunk | undefined;
  let oldAt = 0;
  let newAt = 0;
  const addSegment = (hunk: Hunk, kind: ChangeKind, from: number, count: number) => {
    if (count <= 0) return;
    hunk.segments.push({ kind, from, count });
    if (kind !== "added") hunk.oldCount += count;
    if (kind !== "removed") hunk.newCount += count;
  };
  changes.forEach((change, position) => {
    if (change.kind === "equal") {
      if (current) {
        const isLast = position === changes.length - 1;
        if (!isLast && change.count <= 2 * context) {
          addSegment(current, "equal", oldAt, change.count);
        } else {
          addSegment(current, "equal", oldAt, Math.min(context, change.count));
          hunks.push(current);
          current = undefined;
        }
      }
      oldAt += change.count;
      newAt += change.count;
      return;
    }
    if (!current) {
      const previous = changes[position - 1];
      const lead = previous?.kind === "equal" ? Math.min(context, previous.count) : 0;
      current = { oldStart: oldAt - lead, oldCount: 0, newStart: newAt - lead, newCount: 0, segments: [] };
      addSegment(current, "equal", oldAt - lead, lead);
    }
    if (change.kind === "removed") {
      addSegment(current, "removed", oldAt, change.count);
      oldAt += change.count;
    } else {
      addSegment(current, "added", newAt, change.count);
      newAt += change.count;
    }
  });
  if (current) hunks.push(current);
  return hunks;
}

function hunkHeader(hunk: Hunk): string {
  // An empty side names the line before it (0 at the start), as diff and patch expect.
  const oldStart = hunk.oldCount === 0 ? hunk.oldStart : hunk.oldStart + 1;
  const newStart = hunk.newCount === 0 ? hunk.newStart : hunk.newStart + 1;
  return `@@ -${oldStart},${hunk.oldCount} +${newStart},${hunk.newCount} @@\n`;
}

function renderLine(marker: string, line: string): string {
  const body = line.endsWith("\n") ? line.slice(0, -1) : line;
  const endsLine = line.endsWith("\n") || line.endsWith("\r");
  return `${marker}${body}\n${endsLine ? "" : `${NO_NEWLINE}\n`}`;
}

function* diffLinesOf(hunks: Hunk[], oldLines: string[], newLines: string[]): Generator<string> {
  for (const hunk of hunks) {
    yield hunkHeader(hunk);
    for (const segment of hunk.segments) {
      const source = segment.kind === "added" ? newLines : oldLines;
      const marker = segment.kind === "added" ? "+" : segment.kind === "removed" ? "-" : " ";
      for (let index = segment.from; index < segment.from + segment.count; index++) yield renderLine(marker, source[index]!);
    }
  }
}

function countDiffLines(hunks: Hunk[]): number {
  let total = 0;
  for (const hunk of hunks) total += 1 + hunk.segments.reduce((sum, segment) => sum + segment.count, 0);
  return total;
}

function render(header: string, hunks: Hunk[], oldLines: string[], newLines: string[], maxBytes: number): { text: string; truncated: boolean } {
  const parts: string[] = [header];
  let bytes = utf8Length(header);
  let shown = 0;
  let truncated = bytes > maxBytes;
  if (!truncated) {
    for (const line of diffLinesOf(hunks, oldLines, newLines)) {
      const size = utf8Length(line);
      if (bytes + size > maxBytes) {
        truncated = true;
        break;
      }
      parts.push(line);
      bytes += size;
      // A "\ No newline" marker rides along with its line and is not counted separately.
      shown++;
    }
  }
  if (!truncated) return { text: parts.join(""), truncated: false };
  const total = countDiffLines(hunks);
  const note = (omitted: number) => `[diff cut at ${maxBytes} bytes: ${omitted} more diff lines not shown]\n`;
  // Drop lines until the note fits too; the note itself is always kept.
  while (parts.length > 1 && bytes + utf8Length(note(total - shown)) > maxBytes) {
    bytes -= utf8Length(parts.pop()!);
    shown--;
  }
  if (parts.length === 1 && bytes + utf8Length(note(total - shown)) > maxBytes) return { text: note(total), truncated: true };
  return { text: parts.join("") + note(total - shown), truncated: true };
}
