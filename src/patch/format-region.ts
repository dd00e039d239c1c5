/**
 * Which part of a candidate a formatter must see, when the original was formatter-clean: the
 * top-level statements that hold every changed character. Formatting those alone and splicing
 * them back gives what formatting the whole file gives, as long as nothing couples a statement to
 * its neighbours; the cases that do are refused here and the caller formats the whole file:
 * - import and re-export groups (formatters sort them together),
 * - ignore comments (`dprint-ignore…` may govern statements far away),
 * - CR line endings (a formatter picks the line ending from the text it sees),
 * - edits before the first or after the last statement (file headers and trailers).
 * Pure: the statements come from the syntax guard's parse of the candidate.
 */
import { lastIndexWhere } from "../core/bisect.ts";
import type { TopLevelStatement, TopLevelStatements } from "../syntax/index.ts";

export interface StatementRegion {
  /** UTF-16 offsets of the region in the candidate, end exclusive. */
  start: number;
  end: number;
  /** 1-based first and last line of the region in the candidate. */
  firstLine: number;
  lastLine: number;
}

/** Whether `text` holds what makes whole-file context matter to the formatter (plain searches: a regular expression alternative scans 50 times slower). */
function couplesStatements(text: string): boolean {
  return text.includes("\r") || text.includes("dprint-ignore");
}

/** Quick test on the texts alone, before any parse: false when statement formatting cannot apply. */
export function statementFormattingMayApply(original: string, candidate: string): boolean {
  return !couplesStatements(candidate) && !couplesStatements(original);
}

/**
 * The last span computed: one edit asks for it several times (formatting, then confirming the
 * region). Module-level on purpose: a one-entry memo of a pure function, so no caller can see it.
 */
let lastSpan: { original: string; candidate: string; span: { start: number; end: number } } | undefined;

/** The candidate's changed span [start, end), from the common prefix and suffix with the original. */
export function changedSpan(original: string, candidate: string): { start: number; end: number } {
  if (lastSpan !== undefined && lastSpan.original === original && lastSpan.candidate === candidate) return { ...lastSpan.span };
  // Binary searches whose steps compare slices natively: ~50 times faster on a 500-line file than
  // comparing character by character, and equal to it (a common prefix of length k has every
  // shorter one).
  const shorter = Math.min(original.length, candidate.length);
  let prefix = 0;
  for (let high = shorter; prefix < high;) {
    const middle = (prefix + high + 1) >>> 1;
    if (original.slice(prefix, middle) === candidate.slice(prefix, middle)) prefix = middle;
    else high = middle - 1;
  }
  // The suffix may not reach into the prefix.
  let suffix = 0;
  for (let high = shorter - prefix; suffix < high;) {
    const middle = (suffix + high + 1) >>> 1;
    if (original.slice(original.length - middle, original.length - suffix) === candidate.slice(candidate.length - middle, candidate.length - suffix)) suffix = middle;
    else high = middle - 1;
  }
  const span = { start: prefix, end: candidate.length - suffix };
  lastSpan = { original, candidate, span };
  return { ...span };
}

/**
 * The smallest run of whole top-level statements of `candidate` covering every character that
 * differs from `original`, widened to the comments that lead into it and a comment trailing its
 * last line; undefined when formatting it alone could differ from formatting the whole file.
 */
export function changedStatementRegion(original: string, candidate: string, statements: TopLevelStatements): StatementRegion | undefined {
  if (original === candidate || statements.length === 0 || !statementFormattingMayApply(original, candidate)) return undefined;
  const changed = changedSpan(original, candidate);
  const at = (index: number): TopLevelStatement => statements.at(index);
  // The last statement starting at or before the change (one ending before it brings the gap in).
  let first = lastIndexWhere(statements.length, (index) => at(index).start <= changed.start);
  // The first statement ending at or after the change (one starting after it brings the gap in).
  let last = lastIndexWhere(statements.length, (index) => at(index).end < changed.end) + 1;
  if (first < 0 || last >= statements.length) return undefined;
  if (last < first) last = first;
  while (first > 0 && at(first - 1).kind === "comment") first--;
  while (last + 1 < statements.length && at(last + 1).kind === "comment" && at(last + 1).startLine === at(last).endLine) last++;
  // A module group next to the region could be reordered together with it.
  for (let index = Math.max(0, first - 1); index <= Math.min(statements.length - 1, last + 1); index++) {
    if (at(index).namesModule) return undefined;
  }
  return { start: at(first).start, end: at(last).end, firstLine: at(first).startLine + 1, lastLine: at(last).endLine + 1 };
}
