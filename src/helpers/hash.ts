import { createHash } from "node:crypto";

/** Lowercase hex SHA-256 of raw bytes: the one hash every tool reports and checks. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
