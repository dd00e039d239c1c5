/** Parsing raw Aider text (`<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE`) into blocks. */
import { ToolError } from "../core/errors.ts";
import type { AiderBlock } from "./aider.ts";

// Aider itself accepts 5 to 9 marker characters.
const SEARCH_MARKER = /^<{5,9} SEARCH>?\s*$/;
const DIVIDER_MARKER = /^={5,9}\s*$/;
const REPLACE_MARKER = /^>{5,9} REPLACE\s*$/;
const LINE_BREAK = /\r\n|\r|\n/g;
const FENCE_LINE = /^\s*(```|~~~)/;

type ParseState =
  | { kind: "outside" }
  | { kind: "search"; openedAt: number; filename: string | undefined; lines: string[] }
  | { kind: "replace"; openedAt: number; filename: string | undefined; search: string[]; lines: string[] };

/**
 * Parses `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` blocks. Around blocks only blank lines,
 * ``` fences and one filename line per block are tolerated. Sections become whole lines, each ending
 * in "\n" (an empty section is ""). A line of only "=" characters cannot be block content.
 */
export function parseAiderText(raw: string): AiderBlock[] {
  const lines = raw.split(LINE_BREAK);
  if (lines[lines.length - 1] === "") lines.pop();
  const blocks: AiderBlock[] = [];
  let state: ParseState = { kind: "outside" };
  let pendingText: { line: number; text: string } | undefined;

  const fail = (line: number, message: string): never => {
    throw new ToolError("invalid_input", `Aider text, line ${line}: ${message}`, { details: { line } });
  };

  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const lineNumber = index + 1;
    const isSearch = SEARCH_MARKER.test(line);
    const isDivider = DIVIDER_MARKER.test(line);
    const isReplace = REPLACE_MARKER.test(line);
    switch (state.kind) {
      case "outside":
        if (isSearch) {
          state = { kind: "search", openedAt: lineNumber, filename: pendingText?.text, lines: [] };
          pendingText = undefined;
        } else if (isDivider) {
          fail(lineNumber, `"=======" without an open "<<<<<<< SEARCH".`);
        } else if (isReplace) {
          fail(lineNumber, `">>>>>>> REPLACE" without an open "<<<<<<< SEARCH".`);
        } else if (line.trim() !== "" && !FENCE_LINE.test(line)) {
          if (pendingText) {
            fail(pendingText.line, `unexpected text outside a SEARCH/REPLACE block (only a filename line and \`\`\` fences may surround a block).`);
          }
          pendingText = { line: lineNumber, text: line.trim() };
        }
        break;
      case "search":
        if (isDivider) {
          state = { kind: "replace", openedAt: state.openedAt, filename: state.filename, search: state.lines, lines: [] };
        } else if (isSearch) {
          fail(lineNumber, `"<<<<<<< SEARCH" inside the block opened at line ${state.openedAt}, which has no "=======" yet.`);
        } else if (isReplace) {
          fail(lineNumber, `">>>>>>> REPLACE" before the "=======" of the block opened at line ${state.openedAt}.`);
        } else {
          state.lines.push(line);
        }
        break;
      case "replace":
        if (isReplace) {
          const block: AiderBlock = { search: joinSection(state.search), replace: joinSection(state.lines) };
          if (state.filename !== undefined) block.filename = state.filename;
          blocks.push(block);
          state = { kind: "outside" };
        } else if (isSearch) {
          fail(lineNumber, `"<<<<<<< SEARCH" before the ">>>>>>> REPLACE" closing the block opened at line ${state.openedAt}.`);
        } else if (isDivider) {
          fail(lineNumber, `a second "=======" in the block opened at line ${state.openedAt}; a line of only "=" cannot be block content (send the block as JSON instead).`);
        } else {
          state.lines.push(line);
        }
        break;
    }
  }
  if (state.kind === "search") fail(state.openedAt, `the block opened here has no "=======" and no ">>>>>>> REPLACE".`);
  if (state.kind === "replace") fail(state.openedAt, `the block opened here is not closed by ">>>>>>> REPLACE".`);
  if (pendingText) fail(pendingText.line, `unexpected text after the last SEARCH/REPLACE block.`);
  if (blocks.length === 0) {
    throw new ToolError("invalid_input", `Aider text contains no "<<<<<<< SEARCH" / "=======" / ">>>>>>> REPLACE" block.`);
  }
  return blocks;
}

function joinSection(lines: string[]): string {
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}
