/**
 * The text layer's façade: byte fidelity for edits (decodeForEdit / encodeLike), the one decoder and
 * meaning of binary, and the one line table. The rest of src/ imports text/ through this file.
 */
export * from "./codec.ts";
export * from "./encoding.ts";
export * from "./lines.ts";
