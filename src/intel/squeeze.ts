/**
 * Reversible compression of repetitive text such as logs, written for a model to read.
 *
 * The squeezed form is line-oriented. Its first line is a header; every further line is one record:
 *
 *   any line not starting with "§"  the line itself
 *   §§<rest>                        the line "§<rest>" (a literal line that starts with §)
 *   §J <json string>                the line given as a JSON string (for lines holding stray \r or \n)
 *   §×<N> <line>                    <line> repeated N times
 *   §[<K>×<N>]                      the next K records (single lines) repeated N times as a block
 *   §T<id> <template>               defines template <id>; "<*>" marks each varying field (adds no line)
 *   §<id>[ <v1> <v2> …]             a line: template <id> with its fields filled by the values, in order
 *
 * Lines are split on the text's most frequent line terminator (the header's eol), so untouched lines
 * keep their exact characters. squeeze() checks its own output by expanding it again and falls back
 * to plain escaped records if that ever differs, so unsqueeze(squeeze(x)) === x for every string x.
 */
import { LIMITS } from "../core/limits.ts";
import { log } from "../core/log.ts";
import { lineBreakCounts } from "../text/index.ts";

type SqueezeEol = "lf" | "crlf" | "cr";

export interface SqueezeStats {
  /** Lines of the original text (a final line without terminator counts). */
  lines: number;
  /** Records in the squeezed body (without the header). */
  records: number;
  templates: number;
  /** Lines covered by repeat records (single-line runs and repeated blocks). */
  repeatedLines: number;
  /** Lines written as template rows. */
  templatedLines: number;
  originalChars: number;
  squeezedChars: number;
  /** The compressed records failed the self-check and plain records were written instead (a bug if ever true). */
  fellBack: boolean;
}

export interface SqueezeResult {
  text: string;
  stats: SqueezeStats;
}

const SIGIL = "§";
const SLOT = "<*>";
const HEADER_PREFIX = `${SIGIL}squeeze v1 `;
const EOL_TEXT: Record<SqueezeEol, string> = { lf: "\n", crlf: "\r\n", cr: "\r" };

/** A run of word characters (letters, digits, _ . : -) that holds a digit is a field that may vary between lines. */
const WORD = /[\p{L}\p{N}_.:-]+/gu;
const HAS_DIGIT = /[0-9]/;

export class SqueezeFormatError extends Error {
  constructor(message: string) {
    super(`not a valid squeezed text: ${message}`);
    this.name = "SqueezeFormatError";
  }
}

/** The terminator that occurs most often (ties: LF, then CRLF, then CR). */
function dominantEol(text: string): SqueezeEol {
  const counts = lineBreakCounts(text);
  const lf = counts.get("\n") ?? 0;
  const crlf = counts.get("\r\n") ?? 0;
  const cr = counts.get("\r") ?? 0;
  if (lf >= crlf && lf >= cr) return "lf";
  return crlf >= cr ? "crlf" : "cr";
}

interface SplitText {
  eol: SqueezeEol;
  lines: string[];
  finalEol: boolean;
}

/** Lines split on one terminator: joining them with it (plus one more when finalEol) gives the text back. */
function splitOn(text: string): SplitText {
  const eol = dominantEol(text);
  const separator = EOL_TEXT[eol];
  const lines = text.split(separator);
  const finalEol = text.length > 0 && text.endsWith(separator);
  if (finalEol) lines.pop();
  return { eol, lines, finalEol };
}

/** Whether a line can be written as itself (or as §§…) on one squeezed line. */
function isPlain(line: string): boolean {
  return !line.includes("\n") && !line.includes("\r");
}

function literalRecord(line: string): string {
  if (!isPlain(line)) return `${SIGIL}J ${JSON.stringify(line)}`;
  return line.startsWith(SIGIL) ? SIGIL + line : line;
}

// ---------------------------------------------------------------- repeats

type Unit =
  | { kind: "line"; index: number }
  | { kind: "repeat"; index: number; count: number }
  | { kind: "block"; index: number; period: number; count: number };

/** How many times lines[at, at+period) repeats back to back from `at`. */
function repetitions(lines: string[], at: number, period: number): number {
  let count = 1;
  for (;;) {
    const next = at + count * period;
    if (next + period > lines.length) return count;
    for (let offset = 0; offset < period; offset++) {
      if (lines[next + offset] !== lines[at + offset]) return count;
    }
    count++;
  }
}

/** Greedy left-to-right cover of the lines by single lines, runs of one line, and repeated blocks. */
function findRepeats(lines: string[]): Unit[] {
  const units: Unit[] = [];
  let at = 0;
  while (at < lines.length) {
    let bestPeriod = 1;
    let bestCount = 1;
    const maxPeriod = Math.min(LIMITS.intel.squeeze.maxBlockLines, Math.floor((lines.length - at) / 2));
    for (let period = 1; period <= maxPeriod; period++) {
      if (lines[at + period] !== lines[at]) continue;
      const count = repetitions(lines, at, period);
      // A longer period must cover more lines to win; a block of identical lines is a run of one line.
      if (count >= 2 && period * count > bestPeriod * bestCount) {
        bestPeriod = period;
        bestCount = count;
      }
    }
    const plain = (offset: number) => isPlain(lines[at + offset]!);
    let blockIsPlain = true;
    for (let offset = 0; offset < bestPeriod && blockIsPlain; offset++) blockIsPlain = plain(offset);
    if (bestCount < 2 || !blockIsPlain) {
      units.push({ kind: "line", index: at });
      at += 1;
    } else if (bestPeriod === 1) {
      units.push({ kind: "repeat", index: at, count: bestCount });
      at += bestCount;
    } else {
      units.push({ kind: "block", index: at, period: bestPeriod, count: bestCount });
      at += bestPeriod * bestCount;
    }
  }
  return units;
}

// ---------------------------------------------------------------- templates

interface Shape {
  /** Literal text around the fields: pieces.length === fields.length + 1. */
  pieces: string[];
  fields: string[];
}

function shapeOf(line: string): Shape {
  const pieces: string[] = [];
  const fields: string[] = [];
  let last = 0;
  for (const match of line.matchAll(WORD)) {
    if (!HAS_DIGIT.test(match[0])) continue;
    pieces.push(line.slice(last, match.index));
    fields.push(match[0]);
    last = match.index + match[0].length;
  }
  pieces.push(line.slice(last));
  return { pieces, fields };
}

interface Template {
  id: number;
  text: string;
  /** Per field of the shape: undefined when it is the same on every line (and part of the text), else what its values share. */
  varying: Array<{ prefix: number; suffix: number } | undefined>;
}

interface TemplatePlan {
  /** Line index → its template, for lines written as rows. */
  byLine: Map<number, Template>;
  shapes: Map<number, Shape>;
  count: number;
}

function commonPrefixLength(values: string[]): number {
  const first = values[0]!;
  let length = first.length;
  for (const value of values) {
    let at = 0;
    while (at < length && at < value.length && value.charCodeAt(at) === first.charCodeAt(at)) at++;
    length = at;
  }
  return length;
}

function commonSuffixLength(values: string[], skip: number): number {
  const first = values[0]!;
  let length = first.length - skip;
  for (const value of values) {
    let at = 0;
    while (at < length && at < value.length - skip && value.charCodeAt(value.length - 1 - at) === first.charCodeAt(first.length - 1 - at)) at++;
    length = at;
  }
  return length;
}

/** The part of a field written in a row: what is left after the text all its values share. */
function rowValue(value: string, shared: { prefix: number; suffix: number }): string {
  return value.slice(shared.prefix, value.length - shared.suffix);
}

/**
 * Groups lines of the same shape (same literal text around their numeric fields) and keeps a group
 * as a template when writing it as a definition plus rows is shorter than writing its lines. A
 * varying field's shared prefix and suffix ("2024-01-01T12:00:" of timestamps) move into the
 * template, always leaving every value at least one character.
 */
function planTemplates(lines: string[], candidates: number[]): TemplatePlan {
  const groups = new Map<string, number[]>();
  const shapes = new Map<number, Shape>();
  for (const index of candidates) {
    const line = lines[index]!;
    // Lines already holding the slot marker or needing JSON stay literal so rows parse unambiguously.
    if (!isPlain(line) || line.includes(SLOT) || line.length < LIMITS.intel.squeeze.minTemplateChars) continue;
    const shape = shapeOf(line);
    shapes.set(index, shape);
    const key = shape.pieces.join("\u0000");
    const group = groups.get(key);
    if (group) group.push(index);
    else groups.set(key, [index]);
  }

  const chosen: Array<{ first: number; members: number[]; text: string; varying: Template["varying"] }> = [];
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    const firstShape = shapes.get(members[0]!)!;
    const varying: Template["varying"] = firstShape.fields.map((value, field) => {
      const values = members.map((index) => shapes.get(index)!.fields[field]!);
      if (values.every((other) => other === value)) return undefined;
      let shortest = value.length;
      for (const other of values) shortest = Math.min(shortest, other.length);
      const prefix = Math.min(commonPrefixLength(values), shortest - 1);
      const suffix = Math.min(commonSuffixLength(values, prefix), shortest - prefix - 1);
      return { prefix, suffix };
    });
    let text = firstShape.pieces[0]!;
    firstShape.fields.forEach((value, field) => {
      const shared = varying[field];
      text += (shared ? value.slice(0, shared.prefix) + SLOT + value.slice(value.length - shared.suffix) : value) + firstShape.pieces[field + 1]!;
    });
    // Ids have at most a few digits; 4 characters is a safe overestimate for "§T<id> " and "§<id>".
    const definitionCost = 4 + text.length + 1;
    let rowsCost = 0;
    let originalCost = 0;
    for (const index of members) {
      originalCost += lines[index]!.length + 1;
      rowsCost += 4 + 1;
      shapes.get(index)!.fields.forEach((value, field) => {
        const shared = varying[field];
        if (shared) rowsCost += 1 + rowValue(value, shared).length;
      });
    }
    // Members are in line order, so members[0] is the first use.
    if (definitionCost + rowsCost < originalCost) chosen.push({ first: members[0]!, members, text, varying });
  }
  // Ids follow first use, so a reader meets template 1 first.
  chosen.sort((a, b) => a.first - b.first);
  const byLine = new Map<number, Template>();
  chosen.forEach((group, position) => {
    const template: Template = { id: position + 1, text: group.text, varying: group.varying };
    for (const index of group.members) byLine.set(index, template);
  });
  return { byLine, shapes, count: chosen.length };
}

// ---------------------------------------------------------------- squeeze

function header(split: SplitText, lineCount: number): string {
  return `${HEADER_PREFIX}eol=${split.eol} final=${split.finalEol ? 1 : 0} lines=${lineCount}`;
}

/** Records for a text where every line is written as itself: always valid, used if a check fails. */
function plainRecords(split: SplitText): string[] {
  return split.lines.map(literalRecord);
}

function buildRecords(split: SplitText): { records: string[]; templates: number; repeatedLines: number; templatedLines: number } {
  const { lines } = split;
  const units = findRepeats(lines);
  const singleLines: number[] = [];
  for (const unit of units) {
    if (unit.kind === "line") singleLines.push(unit.index);
    else if (unit.kind === "block") { for (let offset = 0; offset < unit.period; offset++) singleLines.push(unit.index + offset); }
  }
  const plan = planTemplates(lines, singleLines);
  const defined = new Set<number>();
  const records: string[] = [];
  let repeatedLines = 0;
  let templatedLines = 0;

  const lineRecord = (index: number): string[] => {
    const template = plan.byLine.get(index);
    if (!template) return [literalRecord(lines[index]!)];
    templatedLines++;
    const out: string[] = [];
    if (!defined.has(template.id)) {
      defined.add(template.id);
      out.push(`${SIGIL}T${template.id} ${template.text}`);
    }
    const values: string[] = [];
    plan.shapes.get(index)!.fields.forEach((value, field) => {
      const shared = template.varying[field];
      if (shared) values.push(rowValue(value, shared));
    });
    out.push(`${SIGIL}${template.id}${values.map((value) => ` ${value}`).join("")}`);
    return out;
  };

  for (const unit of units) {
    if (unit.kind === "line") records.push(...lineRecord(unit.index));
    else if (unit.kind === "repeat") {
      records.push(`${SIGIL}×${unit.count} ${lines[unit.index]!}`);
      repeatedLines += unit.count;
    } else {
      // Template definitions go before the block marker so the block holds exactly `period` line records.
      const body: string[] = [];
      for (let offset = 0; offset < unit.period; offset++) {
        const produced = lineRecord(unit.index + offset);
        if (produced.length === 2) records.push(produced[0]!);
        body.push(produced[produced.length - 1]!);
      }
      records.push(`${SIGIL}[${unit.period}×${unit.count}]`, ...body);
      repeatedLines += unit.period * unit.count;
    }
  }
  return { records, templates: plan.count, repeatedLines, templatedLines };
}

/** Squeezes text losslessly; `unsqueeze(squeeze(text).text) === text` always holds. */
export function squeeze(text: string): SqueezeResult {
  const split = splitOn(text);
  let built = buildRecords(split);
  let squeezed = [header(split, split.lines.length), ...built.records].join("\n");
  let verified = false;
  try {
    verified = unsqueeze(squeezed) === text;
  } catch {
    verified = false;
  }
  if (!verified) {
    log.error("squeeze: compressed records did not expand to the input; wrote plain records instead", { chars: text.length });
    built = { records: plainRecords(split), templates: 0, repeatedLines: 0, templatedLines: 0 };
    squeezed = [header(split, split.lines.length), ...built.records].join("\n");
  }
  return {
    text: squeezed,
    stats: {
      lines: split.lines.length,
      records: built.records.length,
      templates: built.templates,
      repeatedLines: built.repeatedLines,
      templatedLines: built.templatedLines,
      originalChars: text.length,
      squeezedChars: squeezed.length,
      fellBack: !verified,
    },
  };
}

// ---------------------------------------------------------------- unsqueeze

const HEADER = /^§squeeze v1 eol=(lf|crlf|cr) final=([01]) lines=(\d+)$/;
const REPEAT = /^§×(\d+) /;
const BLOCK = /^§\[(\d+)×(\d+)\]$/;
const DEFINE = /^§T(\d+) /;
const ROW = /^§(\d+)(?: (.*))?$/;

function fillTemplate(template: string, values: string[], recordNumber: number): string {
  const pieces = template.split(SLOT);
  if (pieces.length !== values.length + 1) {
    throw new SqueezeFormatError(`record ${recordNumber} gives ${values.length} values for a template with ${pieces.length - 1} fields`);
  }
  let line = pieces[0]!;
  values.forEach((value, index) => {
    line += value + pieces[index + 1]!;
  });
  return line;
}

/** The exact text a squeezed text stands for. Throws SqueezeFormatError on anything squeeze() would not write. */
export function unsqueeze(squeezed: string): string {
  const records = squeezed.split("\n");
  const head = HEADER.exec(records[0] ?? "");
  if (!head) throw new SqueezeFormatError(`the first line must be the header "${HEADER_PREFIX}eol=… final=… lines=…"`);
  const eol = EOL_TEXT[head[1] as SqueezeEol];
  const finalEol = head[2] === "1";
  const expectedLines = Number(head[3]);
  const templates = new Map<string, string>();
  const out: string[] = [];

  /** The single line a record stands for, or undefined for a definition; throws for multi-line records. */
  const singleLine = (record: string, number: number): string | undefined => {
    if (!record.startsWith(SIGIL)) return record;
    if (record.startsWith(SIGIL + SIGIL)) return record.slice(1);
    if (record.startsWith(`${SIGIL}J `)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(record.slice(3));
      } catch {
        throw new SqueezeFormatError(`record ${number} is not a JSON string`);
      }
      if (typeof parsed !== "string") throw new SqueezeFormatError(`record ${number} is not a JSON string`);
      return parsed;
    }
    const define = DEFINE.exec(record);
    if (define) {
      templates.set(define[1]!, record.slice(define[0].length));
      return undefined;
    }
    const row = ROW.exec(record);
    if (row) {
      const template = templates.get(row[1]!);
      if (template === undefined) throw new SqueezeFormatError(`record ${number} uses template ${row[1]} before it is defined`);
      const values = row[2] === undefined ? [] : row[2].split(" ");
      return fillTemplate(template, values, number);
    }
    throw new SqueezeFormatError(`record ${number} starts with ${SIGIL} but is no known record`);
  };

  for (let number = 1; number < records.length; number++) {
    const record = records[number]!;
    const repeat = REPEAT.exec(record);
    if (repeat) {
      const count = Number(repeat[1]);
      if (out.length + count > expectedLines) throw new SqueezeFormatError(`record ${number} repeats past the ${expectedLines} lines the header states`);
      const line = record.slice(repeat[0].length);
      for (let copy = 0; copy < count; copy++) out.push(line);
      continue;
    }
    const block = BLOCK.exec(record);
    if (block) {
      const period = Number(block[1]);
      const count = Number(block[2]);
      if (out.length + period * count > expectedLines) throw new SqueezeFormatError(`record ${number} repeats past the ${expectedLines} lines the header states`);
      const body: string[] = [];
      while (body.length < period) {
        number++;
        if (number >= records.length) throw new SqueezeFormatError(`the block at record ${number} is missing lines`);
        const line = singleLine(records[number]!, number);
        if (line === undefined) throw new SqueezeFormatError(`record ${number}: a template definition inside a block`);
        body.push(line);
      }
      for (let copy = 0; copy < count; copy++) out.push(...body);
      continue;
    }
    const line = singleLine(record, number);
    if (line !== undefined) out.push(line);
  }
  if (out.length !== expectedLines) throw new SqueezeFormatError(`it holds ${out.length} lines, the header states ${expectedLines}`);
  return out.join(eol) + (finalEol ? eol : "");
}

/** What the squeezed notation means, for a reader meeting it the first time. */
export const SQUEEZE_LEGEND =
  "§×N line = line repeated N times; §[K×N] = the next K lines repeated N times; §Tn template = defines template n (<*> = varying field); §n v1 v2 = template n filled with the values; §§ = a line starting with §; §J = a line as a JSON string.";
