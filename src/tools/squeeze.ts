/**
 * squeeze: a repetitive text file (a log) in a lossless compact form, so a model can read much more
 * of it per token. The inverse is `unsqueeze` in src/intel/squeeze.ts; the file itself stays the
 * exact source, so there is no tool to expand a squeezed text again (file_read returns the lines).
 */
import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { SQUEEZE_LEGEND, squeeze, type SqueezeResult } from "../intel/squeeze.ts";
import { loadTextFile, PathInput, plural, resolveReadableFile } from "./common.ts";
import { Completeness, completeness, renderIncomplete } from "./completeness.ts";
import { TEXT_ERRORS } from "./error-sets.ts";
import { defineTool, READ_ONLY } from "./contract.ts";
import { lineStarts } from "../text/index.ts";

/** Offsets where each line starts; a final terminator ends the last line rather than starting an empty one. */
function squeezeLineStarts(text: string): number[] {
  const starts = lineStarts(text);
  if (text.length > 0 && starts[starts.length - 1] === text.length) starts.pop();
  return starts;
}

interface Window {
  endLine: number;
  result: SqueezeResult;
}

/**
 * Squeezes lines startLine..endLine, or as many lines from startLine as fit in maxChars (found by
 * bisection: squeezing is linear, so this costs a logarithmic number of passes).
 */
function squeezeWindow(text: string, starts: number[], startLine: number, endLine: number, maxChars: number): Window {
  const sliceOf = (last: number) => text.slice(starts[startLine - 1]!, last < starts.length ? starts[last]! : text.length);
  const whole = squeeze(sliceOf(endLine));
  if (whole.text.length <= maxChars) return { endLine, result: whole };
  let fits = startLine;
  let fitsResult = squeeze(sliceOf(startLine));
  let tooLong = endLine;
  while (tooLong - fits > 1) {
    const middle = Math.floor((fits + tooLong) / 2);
    const attempt = squeeze(sliceOf(middle));
    if (attempt.text.length <= maxChars) {
      fits = middle;
      fitsResult = attempt;
    } else tooLong = middle;
  }
  return { endLine: fits, result: fitsResult };
}

const Output = z.object({
  path: z.string().describe("The file's path as the workspace displays it; usable as input."),
  sha256: z.string().describe("SHA-256 of the file's raw bytes when it was read."),
  startLine: z.number().int().describe("First line squeezed (1-based)."),
  endLine: z.number().int().describe("Last line squeezed (inclusive)."),
  totalLines: z.number().int().describe("Lines in the file."),
  ...Completeness,
  nextStartLine: z.number().int().optional().describe("When incomplete: call again with this startLine for the rest."),
  squeezed: z.string().describe("The squeezed text; unsqueeze() of it gives the exact lines back (see legend)."),
  legend: z.string().describe("How to read the squeezed notation."),
  stats: z
    .object({
      lines: z.number().int().describe("Lines squeezed."),
      records: z.number().int().describe("Records the squeezed text holds (its lines after the header)."),
      templates: z.number().int().describe("Templates defined."),
      repeatedLines: z.number().int().describe("Lines covered by repeat records."),
      templatedLines: z.number().int().describe("Lines written as template rows."),
      originalChars: z.number().int().describe("Characters of the squeezed lines as they are in the file."),
      squeezedChars: z.number().int().describe("Characters of the squeezed text."),
    })
    .describe("What the compression did."),
});

export const squeezeTool = defineTool({
  name: "squeeze",
  title: "Squeeze a log",
  description:
    "Read a repetitive text file (logs, test output) in a lossless compact form: runs of a line become '§×N line', repeated blocks '§[K×N]', lines differing only in numbers/ids a template ('§T1 … <*> …') plus short rows ('§1 v1 v2'). Nothing is lost: the exact lines can be rebuilt, and file_read still returns them.",
  input: z.strictObject({
    path: PathInput.describe("The text file to squeeze, absolute or relative to the first root."),
    startLine: z.number().int().min(1).optional().describe("First line to squeeze, 1-based (default 1)."),
    endLine: z.number().int().min(1).optional().describe("Last line to squeeze, inclusive (default: the last line); clamped to the file."),
  }),
  output: Output,
  annotations: READ_ONLY,
  errors: [...TEXT_ERRORS, "invalid_range"],
  handler: async ({ path, startLine = 1, endLine }, context) => {
    const resolved = await resolveReadableFile(context, path);
    const loaded = await loadTextFile(resolved, LIMITS.intel.squeeze.maxInputBytes, "Squeeze a smaller file, or read line ranges with file_read.");
    context.signal.throwIfAborted();
    const starts = squeezeLineStarts(loaded.text);
    const totalLines = loaded.text.length === 0 ? 0 : starts.length;
    if (endLine !== undefined && endLine < startLine) throw new ToolError("invalid_range", `endLine ${endLine} is before startLine ${startLine}.`);
    if (startLine > Math.max(totalLines, 1)) throw new ToolError("invalid_range", `startLine ${startLine} is past the end of ${resolved.display} (${plural(totalLines, "line")}).`);
    const lastLine = Math.max(1, Math.min(endLine ?? totalLines, totalLines));
    const window = squeezeWindow(loaded.text, starts, startLine, lastLine, LIMITS.intel.squeeze.maxOutputChars);
    const complete = window.endLine === lastLine;
    const cut = `intel.squeeze.maxOutputChars = ${LIMITS.intel.squeeze.maxOutputChars} characters: call again with startLine ${window.endLine + 1}`;
    const { fellBack: _fellBack, ...stats } = window.result.stats;
    return {
      path: resolved.display,
      sha256: loaded.sha256,
      startLine,
      endLine: totalLines === 0 ? 0 : window.endLine,
      totalLines,
      ...completeness(undefined, complete ? [] : [cut]),
      ...(complete ? {} : { nextStartLine: window.endLine + 1 }),
      squeezed: window.result.text,
      legend: SQUEEZE_LEGEND,
      stats,
    };
  },
  render: (result) => {
    const { stats } = result;
    const head = `${result.path} L${result.startLine}-${result.endLine} of ${result.totalLines}: ${plural(stats.lines, "line")} → ${plural(stats.records, "record")}, ${
      plural(stats.templates, "template")
    }; ${stats.originalChars} → ${stats.squeezedChars} chars`;
    const lines = [head, result.legend, result.squeezed];
    return renderIncomplete(result, lines);
  },
});
