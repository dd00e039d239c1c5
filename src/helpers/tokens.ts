/**
 * The one token estimator behind every `maxTokens` and `budget`, and helpers that fit output into
 * a budget. The estimate splits text the way the o200k tokenizer's pre-tokenizer does (words with
 * their leading character, camelCase humps, 1-3 digit groups, punctuation runs, whitespace runs)
 * and charges each piece by length; the constants were fitted against gpt-tokenizer's o200k
 * counts on TypeScript, JavaScript, Python, C, Markdown and JSON (aggregate ratio 0.9-1.06, see
 * test/helpers/tokens.test.ts). No vocabulary is loaded, so it costs about as much as one regex pass.
 */
import { lastIndexWhere } from "../core/bisect.ts";

/** The o200k pre-tokenizer split, without its contraction suffixes (they rarely matter in code). */
const PIECE =
  /[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;

/** Characters of a word piece one token covers on average (common words are one token). */
const WORD_CHARS_PER_TOKEN = 8;
/** Characters of a punctuation run one token covers ("();" and "=>" merge). */
const PUNCTUATION_CHARS_PER_TOKEN = 2.5;
/** Characters of a pure whitespace run one token covers (indentation). */
const WHITESPACE_CHARS_PER_TOKEN = 16;

const LETTER = /[\p{L}\p{M}]/u;

function isAsciiLetter(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
}

/** Estimated o200k tokens of `text`. */
export function estimateTokens(text: string): number {
  if (text.length === 0) return 0;
  let tokens = 0;
  const pieces = new RegExp(PIECE.source, PIECE.flags);
  let match: RegExpExecArray | null;
  while ((match = pieces.exec(text)) !== null) {
    const piece = match[0];
    const last = piece.charCodeAt(piece.length - 1);
    if (isAsciiLetter(last) || (last > 127 && LETTER.test(piece.slice(-1)))) {
      tokens += Math.ceil(piece.length / WORD_CHARS_PER_TOKEN);
    } else if (last >= 48 && last <= 57) {
      tokens += 1;
    } else {
      const trimmed = piece.trim().length;
      tokens += trimmed === 0 ? Math.ceil(piece.length / WHITESPACE_CHARS_PER_TOKEN) : Math.ceil(trimmed / PUNCTUATION_CHARS_PER_TOKEN);
    }
  }
  return tokens;
}

export interface CutText {
  text: string;
  /** Estimated tokens of the returned text. */
  tokens: number;
  truncated: boolean;
  /** Whole lines kept (the text is cut at a line boundary when it can be). */
  keptLines: number;
  totalLines: number;
}

/**
 * The longest run of whole lines from the start of `text` that fits in `maxTokens`. When not even
 * the first line fits, the first line is cut by characters instead so the answer is never empty.
 */
export function cutToTokens(text: string, maxTokens: number): CutText {
  const lines = text.split("\n");
  const total = estimateTokens(text);
  if (total <= maxTokens) return { text, tokens: total, truncated: false, keptLines: lines.length, totalLines: lines.length };
  let used = 0;
  let kept = 0;
  for (const line of lines) {
    // A line break is about one token in o200k when it does not merge with indentation.
    const cost = estimateTokens(line) + 1;
    if (used + cost > maxTokens) break;
    used += cost;
    kept += 1;
  }
  if (kept > 0) return { text: lines.slice(0, kept).join("\n"), tokens: used, truncated: true, keptLines: kept, totalLines: lines.length };
  const first = lines[0] ?? "";
  const cut = first.slice(0, Math.max(0, lastIndexWhere(first.length + 1, (length) => estimateTokens(first.slice(0, length)) <= maxTokens)));
  return { text: cut, tokens: estimateTokens(cut), truncated: true, keptLines: 0, totalLines: lines.length };
}
