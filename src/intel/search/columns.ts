/**
 * The search index's chunk and defined-symbol data as columns of typed arrays indexed by id (no
 * object per chunk or symbol), grown as ids arrive and trimmed after a build.
 */
import { grown, withSlack, worthTrimming } from "./arrays.ts";

/** Chunk columns, indexed by chunk id. */
export class ChunkColumns {
  file = new Int32Array(1024);
  startLine = new Int32Array(1024);
  endLine = new Int32Array(1024);
  startOffset = new Int32Array(1024);
  /** Kind code + 1 of the owning symbol (0: none). */
  ownerKind = new Uint8Array(1024);
  owner: Array<string | undefined> = [];
  /** Its defined symbols are [defineFirst, defineFirst + defineCount) of the define columns. */
  defineFirst = new Int32Array(1024);
  defineCount = new Int32Array(1024);

  ensure(id: number): void {
    if (id < this.file.length) return;
    const size = id + 1;
    this.file = grown(this.file, size);
    this.startLine = grown(this.startLine, size);
    this.endLine = grown(this.endLine, size);
    this.startOffset = grown(this.startOffset, size);
    this.ownerKind = grown(this.ownerKind, size);
    this.defineFirst = grown(this.defineFirst, size);
    this.defineCount = grown(this.defineCount, size);
  }

  /** Keeps room for ids below `size` only. */
  trim(size: number): void {
    if (!worthTrimming(this.file.length, size)) return;
    this.file = this.file.slice(0, size);
    this.startLine = this.startLine.slice(0, size);
    this.endLine = this.endLine.slice(0, size);
    this.startOffset = this.startOffset.slice(0, size);
    this.ownerKind = this.ownerKind.slice(0, size);
    this.defineFirst = this.defineFirst.slice(0, size);
    this.defineCount = this.defineCount.slice(0, size);
  }
}

/** Columns of the symbols chunks define. */
export class DefineColumns {
  size = 0;
  qualifiedName: string[] = [];
  kind = new Uint8Array(1024);
  startLine = new Int32Array(1024);
  endLine = new Int32Array(1024);
  /** Term id of the whole name (lowercased, without leading/trailing _ and $). */
  name = new Int32Array(1024);
  /** Its terms are termPool[termFirst, termFirst + termCount). */
  termFirst = new Int32Array(1024);
  termCount = new Int32Array(1024);
  termPool = new Int32Array(4096);
  termPoolSize = 0;

  push(qualifiedName: string, kind: number, startLine: number, endLine: number, name: number, terms: ArrayLike<number>): void {
    const at = this.size++;
    if (at >= this.kind.length) {
      const size = at + 1;
      this.kind = grown(this.kind, size);
      this.startLine = grown(this.startLine, size);
      this.endLine = grown(this.endLine, size);
      this.name = grown(this.name, size);
      this.termFirst = grown(this.termFirst, size);
      this.termCount = grown(this.termCount, size);
    }
    this.qualifiedName[at] = qualifiedName;
    this.kind[at] = kind;
    this.startLine[at] = startLine;
    this.endLine[at] = endLine;
    this.name[at] = name;
    this.termFirst[at] = this.termPoolSize;
    this.termCount[at] = terms.length;
    this.termPool = grown(this.termPool, this.termPoolSize + terms.length);
    for (let index = 0; index < terms.length; index++) this.termPool[this.termPoolSize++] = terms[index]!;
  }

  /** Gives back the room grown for symbols to come, keeping an eighth. */
  trim(): void {
    const size = withSlack(this.size);
    if (worthTrimming(this.kind.length, size)) {
      this.kind = this.kind.slice(0, size);
      this.startLine = this.startLine.slice(0, size);
      this.endLine = this.endLine.slice(0, size);
      this.name = this.name.slice(0, size);
      this.termFirst = this.termFirst.slice(0, size);
      this.termCount = this.termCount.slice(0, size);
    }
    const terms = withSlack(this.termPoolSize);
    if (worthTrimming(this.termPool.length, terms)) this.termPool = this.termPool.slice(0, terms);
  }
}

/** The columns with the chunks `renumber` keeps (old id → new id, 0: dropped) under their new ids, in order. */
export function renumbered(old: ChunkColumns, oldDefines: DefineColumns, renumber: Int32Array, count: number): { chunks: ChunkColumns; defines: DefineColumns } {
  const chunks = new ChunkColumns();
  const defines = new DefineColumns();
  chunks.ensure(count);
  for (let id = 1; id < renumber.length; id++) {
    const to = renumber[id]!;
    if (to === 0) continue;
    chunks.file[to] = old.file[id]!;
    chunks.startLine[to] = old.startLine[id]!;
    chunks.endLine[to] = old.endLine[id]!;
    chunks.startOffset[to] = old.startOffset[id]!;
    chunks.ownerKind[to] = old.ownerKind[id]!;
    chunks.owner[to] = old.owner[id];
    chunks.defineFirst[to] = defines.size;
    chunks.defineCount[to] = old.defineCount[id]!;
    for (let define = old.defineFirst[id]!, end = define + old.defineCount[id]!; define < end; define++) {
      const first = oldDefines.termFirst[define]!;
      defines.push(
        oldDefines.qualifiedName[define]!,
        oldDefines.kind[define]!,
        oldDefines.startLine[define]!,
        oldDefines.endLine[define]!,
        oldDefines.name[define]!,
        oldDefines.termPool.subarray(first, first + oldDefines.termCount[define]!),
      );
    }
  }
  return { chunks, defines };
}
