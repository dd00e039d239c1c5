/**
 * The one answer every read tool gives to "is this everything?": `complete` and `limits` at the top
 * level of its output, built by `completeness` and rendered by `renderIncomplete`. A limit names its
 * key and value and what to do about it (call again with …, or the config key to raise), so a model
 * can act on it without knowing the tool.
 */
import { z } from "zod";

export const Completeness = {
  complete: z.boolean().describe("Whether the answer holds everything asked for: the code index (where one was read) covered every file and no limit cut the answer."),
  limits: z
    .array(z.string())
    .describe("Each limit that cut the answer, as key = value and how to get the rest (call again with …, or the config key to raise); the index's first. Empty when complete."),
};
export type Completeness = { complete: boolean; limits: string[] };

/** The index's limits (when the answer read the index) followed by the tool's own cuts, each once. */
export function completeness(index: { readonly limits: readonly string[] } | undefined, cuts: readonly string[] = []): Completeness {
  const limits = [...new Set([...(index?.limits ?? []), ...cuts])];
  return { complete: limits.length === 0, limits };
}

/** Adds the shared text line of an incomplete answer to `lines`; returns the lines as one text. */
export function renderIncomplete(result: Completeness, lines: string[]): string {
  if (!result.complete) lines.push(`incomplete: ${result.limits.join("; ")}`);
  return lines.join("\n");
}
