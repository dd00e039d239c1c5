import { createHash } from "node:crypto";

/** Lowercase hex SHA-256 of raw bytes: the one hash every tool reports and checks. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The last few texts hashed, newest last: one edit asks for the same original and candidate from several places. */
const recentTexts: Array<{ text: string; sha256: string }> = [];
const RECENT_TEXTS = 4;

/** Lowercase hex SHA-256 of a text's UTF-8 encoding (the same as sha256Hex of its bytes). */
export function sha256OfText(text: string): string {
  for (const entry of recentTexts) if (entry.text === text) return entry.sha256;
  const sha256 = createHash("sha256").update(text, "utf8").digest("hex");
  recentTexts.push({ text, sha256 });
  if (recentTexts.length > RECENT_TEXTS) recentTexts.shift();
  return sha256;
}
