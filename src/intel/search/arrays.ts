/** Typed-array growth and trimming shared by the search structures (dictionary, postings, columns). */

type GrowableArray = Int32Array<ArrayBuffer> | Uint32Array<ArrayBuffer> | Uint8Array<ArrayBuffer> | Uint16Array<ArrayBuffer> | Float64Array<ArrayBuffer>;

/** `array` with room for at least `needed` elements (doubling), new elements set to `fill`; the same array when it has room. */
export function grown<T extends GrowableArray>(array: T, needed: number, fill = 0): T {
  if (needed <= array.length) return array;
  const next = new (array.constructor as new(length: number) => T)(Math.max(array.length * 2, needed));
  next.set(array);
  if (fill !== 0) next.fill(fill, array.length);
  return next;
}

/** A size with an eighth more room (at least 16). */
export function withSlack(size: number): number {
  return size + (size >> 3) + 16;
}

/**
 * Spare room (a share of the used size) up to which arrays are left as they are after a build
 * instead of copied to fit: every large copy is one more freed buffer the allocator keeps resident.
 */
const TRIM_SPARE_SHARE = 0.25;

/** Whether an array of `length` elements holding `size` has enough spare room to be worth a copy that fits. */
export function worthTrimming(length: number, size: number): boolean {
  return length > size + Math.max(1024, Math.floor(size * TRIM_SPARE_SHARE));
}
