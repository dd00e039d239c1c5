/**
 * Reads HTTP bodies under a byte limit: requests to this server, and the answers of servers it
 * fetches from (an OAuth issuer's documents). A body is counted as it arrives and reading stops as
 * soon as the limit is passed; what to do with the rest is the caller's (drain it or cancel it).
 */

/** The part of a stream reader used here (Node's and Bun's reader types differ). */
interface BodyReader {
  read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;
  cancel(reason?: unknown): Promise<void>;
  releaseLock(): void;
}

/** A body read whole, or one that passed the limit, with its reader (still locked) holding the rest. */
type CappedRead = { ok: true; bytes: Uint8Array } | { ok: false; rest: BodyReader };

/** Reads a stream to its end, stopping once more than `maxBytes` have arrived. */
export async function readStreamWithinLimit(stream: { getReader(): BodyReader }, maxBytes: number): Promise<CappedRead> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > maxBytes) return { ok: false, rest: reader };
    chunks.push(value);
  }
  reader.releaseLock();
  const bytes = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, bytes };
}

export type BodyReadResult = { ok: true; bytes: Uint8Array } | { ok: false; reason: "too_large" };

/**
 * Reads a request's body under a byte limit. The declared Content-Length is checked first (and such a
 * body is read in one go); chunked bodies (no length) are counted while they arrive.
 */
export async function readBodyWithinLimit(request: Request, maxBytes: number): Promise<BodyReadResult> {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    const length = Number(declared);
    if (length > maxBytes) return { ok: false, reason: "too_large" };
    // The HTTP parser delivers exactly the declared length, so the body can be taken in one read;
    // on @hono/node-server that read comes straight off the socket without building a web stream
    // (which cost more than the tool call behind it).
    if (Number.isSafeInteger(length) && length >= 0) return { ok: true, bytes: new Uint8Array(await request.arrayBuffer()) };
  }
  if (request.body === null) return { ok: true, bytes: new Uint8Array(0) };
  const read = await readStreamWithinLimit(request.body, maxBytes);
  if (read.ok) return read;
  void discardRest(read.rest, maxBytes);
  return { ok: false, reason: "too_large" };
}

/**
 * Swallows the rest of an oversized body in the background. Cancelling at once would
 * reset the connection, and a client still sending might lose the 413; leaving it unread
 * stalls the connection. Past another `maxBytes` the sender is abusive: cancel after all.
 */
async function discardRest(reader: BodyReader, maxBytes: number): Promise<void> {
  let discarded = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      discarded += value.byteLength;
      if (discarded > maxBytes) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // The connection went away; nothing left to discard.
  }
}
