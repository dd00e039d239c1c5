import { createHash } from "node:crypto";

/** Lowercase hex SHA-256 of raw bytes: the one hash every tool reports and checks. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Lowercase hex SHA-256 of a text's UTF-8 encoding (the same as sha256Hex of its bytes). */
export function sha256OfText(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
