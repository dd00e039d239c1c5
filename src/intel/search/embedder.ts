/**
 * Dense embeddings for search, behind an interface so a local model can be plugged in later. The
 * default is NullEmbedder (no model, zero dimensions): search then ranks lexically only.
 */

export interface Embedder {
  /** Names the model, so vectors of different models are never compared. */
  readonly id: string;
  /** Length of every vector; 0 means "no embeddings". */
  readonly dimensions: number;
  /** One vector per text, in order. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export class NullEmbedder implements Embedder {
  readonly id = "none";
  readonly dimensions = 0;

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map(() => new Float32Array(0));
  }
}

/** The vector scaled to length 1 (a zero vector stays zero), so a dot product is the cosine. */
export function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  const out = new Float32Array(vector.length);
  for (let index = 0; index < vector.length; index++) out[index] = vector[index]! * scale;
  return out;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) sum += a[index]! * b[index]!;
  return sum;
}
