/**
 * RFC 6901 JSON Pointers: parsing, escaping and evaluation against parsed JSON-like values.
 */

export class PointerSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PointerSyntaxError";
  }
}

/** Splits a pointer into unescaped reference tokens; "" is the whole document. */
export function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) {
    throw new PointerSyntaxError(`a JSON Pointer is "" or starts with "/"; got ${JSON.stringify(pointer.slice(0, 40))}`);
  }
  return pointer
    .slice(1)
    .split("/")
    .map((token) => {
      const badEscape = /~(?![01])/.exec(token);
      if (badEscape) throw new PointerSyntaxError(`"~" must be followed by 0 or 1 (write "~0" for "~" and "~1" for "/"), in token ${JSON.stringify(token)}`);
      // Order matters: "~01" is "~1" literally, not "/".
      return token.replaceAll("~1", "/").replaceAll("~0", "~");
    });
}

export function escapeToken(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

export function formatPointer(tokens: readonly string[]): string {
  return tokens.map((token) => `/${escapeToken(token)}`).join("");
}

export type PointerResult =
  | { found: true; value: unknown }
  | {
    found: false;
    /** Pointer to the deepest value that exists on the way. */
    existingPrefix: string;
    /** The token that could not be followed. */
    missingToken: string;
    /** The value at existingPrefix (to list what is there instead). */
    parent: unknown;
  };

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/** Follows tokens through objects and arrays; only own properties count as present. */
export function evaluatePointer(document: unknown, tokens: readonly string[]): PointerResult {
  let current: unknown = document;
  for (let depth = 0; depth < tokens.length; depth++) {
    const token = tokens[depth]!;
    const missing = (): PointerResult => ({ found: false, existingPrefix: formatPointer(tokens.slice(0, depth)), missingToken: token, parent: current });
    if (Array.isArray(current)) {
      // "-" names the element after the last one, which never exists; leading zeros are not indices.
      if (!ARRAY_INDEX.test(token)) return missing();
      const index = Number(token);
      if (index >= current.length) return missing();
      current = current[index];
    } else if (current !== null && typeof current === "object") {
      if (!Object.hasOwn(current, token)) return missing();
      current = (current as Record<string, unknown>)[token];
    } else {
      return missing();
    }
  }
  return { found: true, value: current };
}
