/**
 * The search index's state as persist.ts writes it, and back: its arrays by name and a small JSON
 * part (file entries, kinds, sizes). Symbol names are not written as strings but as references to
 * the symbols of their file's facts (the position in `facts.symbols`), resolved against the code
 * index when read: the strings stay shared with it, and references that do not fit the file's
 * facts mean the file is chunked again. A name no symbol of its file has (facts that moved on
 * before the write) goes into a string table instead, referenced as -2 - index; -1 is "none".
 */
import type { SymbolKind } from "../facts/types.ts";
import { type PersistedField, persistedFieldProblem } from "./bm25.ts";
import { ChunkColumns, DefineColumns } from "./columns.ts";
import { type PersistedDictionary, persistedDictionaryProblem } from "./dictionary.ts";
import type { PersistedArray, PersistedIndex } from "./persist.ts";
import { type ChunkFile, FIELDS, type SearchFile } from "./types.ts";

/** A file of the index: where its chunks are and what they were cut from. */
export interface PersistedFileEntry extends ChunkFile {
  slot: number;
  sha256: string;
  /** Its chunks are the ids [first, first + count), in line order. */
  first: number;
  count: number;
  /** Whether its source text is in the body field (not over the size limit). */
  body: boolean;
}

/**
 * A restored file's names waiting for its facts (the code index has not listed it yet): references
 * in chunk order, and their symbols in order (ids change at merges, the order does not), with the
 * string table they may point to.
 */
export interface UnnamedChunks {
  owners: Int32Array;
  names: Int32Array;
  strings: readonly string[];
}

/** The index's state to write: fields merged (no tail, no dead chunk). */
export interface IndexState {
  dictionary: PersistedDictionary;
  fields: PersistedField[];
  chunks: ChunkColumns;
  defines: DefineColumns;
  nextId: number;
  slots: number;
  kinds: readonly SymbolKind[];
  files: readonly PersistedFileEntry[];
  unnamed: ReadonlyMap<number, UnnamedChunks>;
}

/** What reading gives back: the state, and the names still waiting for their files. */
export interface DecodedIndex {
  dictionary: PersistedDictionary;
  fields: PersistedField[];
  chunks: ChunkColumns;
  defines: DefineColumns;
  nextId: number;
  slots: number;
  kinds: SymbolKind[];
  files: PersistedFileEntry[];
  unnamed: Map<number, UnnamedChunks>;
}

/** The JSON part beside the arrays. */
interface PersistedMeta {
  nextId: number;
  slots: number;
  kinds: SymbolKind[];
  /** Sum of chunk lengths per field. */
  totalLengths: number[];
  /** Symbols chunks define (the define columns' size). */
  defineCount: number;
  /** Names no symbol of their file's facts has. */
  strings: string[];
  files: PersistedFileEntry[];
}

const CHUNK_COLUMNS = ["file", "startLine", "endLine", "startOffset", "ownerKind", "defineFirst", "defineCount"] as const;
const DEFINE_COLUMNS = ["kind", "startLine", "endLine", "name", "termFirst", "termCount"] as const;

/** The facts of a file as it is now, when they are the ones its entry was chunked from. */
function factsOf(entry: PersistedFileEntry, current: ReadonlyMap<string, SearchFile>): SearchFile["facts"]["symbols"] | undefined {
  const file = current.get(entry.real);
  return file !== undefined && file.sha256 === entry.sha256 && file.language === entry.language ? file.facts.symbols : undefined;
}

/** The state as named arrays (views of the index's own, written before it changes) and the JSON part. */
export function encodeIndex(state: IndexState, current: ReadonlyMap<string, SearchFile>): PersistedIndex {
  const { chunks, defines, nextId: next } = state;
  const arrays = new Map<string, PersistedArray>();
  arrays.set("dictionary.chars", state.dictionary.chars);
  arrays.set("dictionary.start", state.dictionary.start);
  arrays.set("dictionary.length", state.dictionary.length);
  arrays.set("dictionary.hash", state.dictionary.hash);
  state.fields.forEach((field, index) => {
    arrays.set(`field${index}.offsets`, field.offsets);
    arrays.set(`field${index}.ids`, field.ids);
    arrays.set(`field${index}.frequencies`, field.frequencies);
    arrays.set(`field${index}.entries`, field.entries);
    arrays.set(`field${index}.lengths`, field.lengths);
    arrays.set(`field${index}.overflow`, field.overflow);
  });
  chunks.ensure(next - 1);
  for (const name of CHUNK_COLUMNS) arrays.set(`chunks.${name}`, chunks[name].subarray(0, next));
  for (const name of DEFINE_COLUMNS) arrays.set(`defines.${name}`, defines[name].subarray(0, defines.size));
  arrays.set("defines.termPool", defines.termPool.subarray(0, defines.termPoolSize));
  const ownerRefs = new Int32Array(next).fill(-1);
  const nameRefs = new Int32Array(defines.size).fill(-1);
  const strings: string[] = [];
  for (const entry of state.files) {
    const positions = new Map<string, number>();
    factsOf(entry, current)?.forEach((symbol, index) => {
      if (!positions.has(symbol.qualifiedName)) positions.set(symbol.qualifiedName, index);
    });
    const refOf = (name: string): number => {
      const position = positions.get(name);
      if (position !== undefined) return position;
      strings.push(name);
      return -1 - strings.length;
    };
    const pending = state.unnamed.get(entry.slot);
    // Names still waiting for the facts are written as they were read (their strings move to this table).
    const carried = (ref: number): number => (ref <= -2 ? refOf(pending!.strings[-2 - ref] ?? "") : ref);
    let at = 0;
    for (let index = 0; index < entry.count; index++) {
      const id = entry.first + index;
      const owner = chunks.owner[id];
      if (pending !== undefined) ownerRefs[id] = carried(pending.owners[index]!);
      else if (owner !== undefined) ownerRefs[id] = refOf(owner);
      for (let define = chunks.defineFirst[id]!, end = define + chunks.defineCount[id]!; define < end; define++) {
        nameRefs[define] = pending !== undefined ? carried(pending.names[at++] ?? -1) : refOf(defines.qualifiedName[define]!);
      }
    }
  }
  arrays.set("chunks.ownerRef", ownerRefs);
  arrays.set("defines.nameRef", nameRefs);
  const meta: PersistedMeta = {
    nextId: next,
    slots: state.slots,
    kinds: [...state.kinds],
    totalLengths: state.fields.map((field) => field.totalLength),
    defineCount: defines.size,
    strings,
    files: state.files.map(({ slot, real, display, language, sha256, first, count, body }) => ({ slot, real, display, language, sha256, first, count, body })),
  };
  return { meta, arrays };
}

/**
 * The state of a persisted index, names resolved against the files as they are now (`current`),
 * or why it does not fit. Checked whole before anything is returned: the file's hash only shows it
 * was not damaged, so every offset, count and reference must also point inside its arrays (a file
 * made by hand is refused like a damaged one, never read out of bounds). An entry whose references
 * do not fit its file's facts gets an empty hash (its file is chunked again).
 */
export function decodeIndex(loaded: PersistedIndex, current: ReadonlyMap<string, SearchFile>): DecodedIndex | { problem: string } {
  const meta = loaded.meta as Partial<PersistedMeta> | null;
  if (
    meta === null || typeof meta !== "object" || typeof meta.nextId !== "number" || !Array.isArray(meta.files) || !Array.isArray(meta.kinds) ||
    !Array.isArray(meta.strings) || typeof meta.defineCount !== "number" || !Array.isArray(meta.totalLengths) || typeof meta.slots !== "number" ||
    !Number.isSafeInteger(meta.nextId) || meta.nextId < 1
  ) return { problem: "corrupt: its index part is missing" };
  const take = <T extends PersistedArray>(name: string, type: new(length: number) => T): T | undefined => {
    const array = loaded.arrays.get(name);
    return array instanceof type ? (array as T) : undefined;
  };
  const { nextId, defineCount } = meta;
  const chunkColumns = {
    file: take("chunks.file", Int32Array),
    startLine: take("chunks.startLine", Int32Array),
    endLine: take("chunks.endLine", Int32Array),
    startOffset: take("chunks.startOffset", Int32Array),
    ownerKind: take("chunks.ownerKind", Uint8Array),
    defineFirst: take("chunks.defineFirst", Int32Array),
    defineCount: take("chunks.defineCount", Int32Array),
  };
  const defineColumns = {
    kind: take("defines.kind", Uint8Array),
    startLine: take("defines.startLine", Int32Array),
    endLine: take("defines.endLine", Int32Array),
    name: take("defines.name", Int32Array),
    termFirst: take("defines.termFirst", Int32Array),
    termCount: take("defines.termCount", Int32Array),
  };
  const termPool = take("defines.termPool", Int32Array);
  const ownerRefs = take("chunks.ownerRef", Int32Array);
  const nameRefs = take("defines.nameRef", Int32Array);
  const dictionary = {
    chars: take("dictionary.chars", Uint16Array),
    start: take("dictionary.start", Int32Array),
    length: take("dictionary.length", Int32Array),
    hash: take("dictionary.hash", Int32Array),
  };
  const fields = FIELDS.map((_, index) => ({
    offsets: take(`field${index}.offsets`, Int32Array),
    ids: take(`field${index}.ids`, Int32Array),
    frequencies: take(`field${index}.frequencies`, Uint8Array),
    entries: take(`field${index}.entries`, Int32Array),
    lengths: take(`field${index}.lengths`, Uint32Array),
    overflow: take(`field${index}.overflow`, Float64Array),
    totalLength: meta.totalLengths![index],
  }));
  const all = [termPool, ownerRefs, nameRefs, ...Object.values(chunkColumns), ...Object.values(defineColumns), ...Object.values(dictionary), ...fields.flatMap(Object.values)];
  if (all.some((value) => value === undefined)) return { problem: "corrupt: an array is missing" };
  if (Object.values(chunkColumns).some((column) => column!.length !== nextId) || ownerRefs!.length !== nextId) return { problem: "corrupt: the chunk columns disagree" };
  if (nameRefs!.length !== defineCount || Object.values(defineColumns).some((column) => column!.length !== defineCount)) return { problem: "corrupt: the symbol columns disagree" };
  // Slots index arrays the index allocates: a whole number no larger than the files and chunks could have used
  // (a value beyond that is a damaged file, rebuilt rather than trusted).
  const slots = meta.slots;
  if (!Number.isSafeInteger(slots) || slots < 0 || slots > meta.files.length + nextId) return { problem: "corrupt: its slot count" };
  const files: PersistedFileEntry[] = [];
  const seenSlots = new Set<number>();
  const seenFiles = new Set<string>();
  const whole = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
  for (const file of meta.files as Array<Partial<PersistedFileEntry>>) {
    if (
      typeof file?.real !== "string" || typeof file.display !== "string" || typeof file.language !== "string" || typeof file.sha256 !== "string" ||
      !whole(file.slot) || file.slot >= slots || !whole(file.first) || !whole(file.count) || file.first + file.count > nextId ||
      seenSlots.has(file.slot) || seenFiles.has(file.real)
    ) return { problem: "corrupt: a file entry" };
    seenSlots.add(file.slot);
    seenFiles.add(file.real);
    files.push(file as PersistedFileEntry);
  }
  // Every chunk belongs to one file: the entries' ranges (disjoint, as each chunk names one slot below) cover the ids 1 to nextId - 1.
  let covered = 0;
  for (const file of files) {
    if (file.count > 0 && file.first < 1) return { problem: "corrupt: a file entry" };
    covered += file.count;
  }
  if (covered !== nextId - 1) return { problem: "corrupt: a chunk names no file" };
  const strings = meta.strings as unknown[];
  const kinds = meta.kinds as unknown[];
  if (!strings.every((name) => typeof name === "string")) return { problem: "corrupt: its names" };
  if (!kinds.every((kind) => typeof kind === "string") || new Set(kinds).size !== kinds.length) return { problem: "corrupt: its kinds" };
  const structure = persistedDictionaryProblem(dictionary as PersistedDictionary) ??
    fields.map((field) => persistedFieldProblem(field as PersistedField, nextId)).find((problem) => problem !== undefined) ??
    columnsProblem(chunkColumns as ChunkArrays, defineColumns as DefineArrays, termPool!, kinds.length, files);
  if (structure !== undefined) return { problem: `corrupt: ${structure}` };
  // A reference names a symbol of its file's facts (checked against them below), none (-1), or a string of the table.
  const lowestRef = -1 - strings.length;
  if (ownerRefs!.some((ref) => ref < lowestRef) || nameRefs!.some((ref) => ref < lowestRef)) return { problem: "corrupt: a name reference" };
  const { file: chunkFiles, defineFirst, defineCount: chunkDefines } = chunkColumns as ChunkArrays;
  const owners: Array<string | undefined> = new Array(nextId);
  const qualifiedNames: string[] = new Array(defineCount).fill("");
  const unnamed = new Map<number, UnnamedChunks>();
  const resolve = (ref: number, symbols: readonly { qualifiedName: string }[] | undefined): string | undefined => {
    if (ref <= -2) return strings[-2 - ref] as string;
    if (ref < 0) return undefined;
    return symbols?.[ref]?.qualifiedName;
  };
  for (const entry of files) {
    const symbols = factsOf(entry, current);
    let fits = true;
    for (let id = entry.first; id < entry.first + entry.count; id++) {
      if (chunkFiles[id] !== entry.slot) return { problem: "corrupt: a chunk of another file" };
      const ownerRef = ownerRefs![id]!;
      if (symbols !== undefined && ownerRef >= symbols.length) fits = false;
      owners[id] = resolve(ownerRef, symbols);
      for (let define = defineFirst[id]!, end = define + chunkDefines[id]!; define < end; define++) {
        const nameRef = nameRefs![define]!;
        if (symbols !== undefined && nameRef >= symbols.length) fits = false;
        qualifiedNames[define] = resolve(nameRef, symbols) ?? "";
      }
    }
    // References past the facts: they are not the facts the chunks were cut from; chunked again.
    if (!fits) entry.sha256 = "";
    // Not listed yet (the code index still builds): its names wait for its facts.
    if (!current.has(entry.real) && entry.count > 0) {
      const first = defineFirst[entry.first]!;
      const last = entry.first + entry.count - 1;
      const end = defineFirst[last]! + chunkDefines[last]!;
      unnamed.set(entry.slot, { owners: ownerRefs!.slice(entry.first, entry.first + entry.count), names: nameRefs!.slice(first, end), strings: strings as string[] });
    }
  }
  const chunks = new ChunkColumns();
  Object.assign(chunks, chunkColumns);
  chunks.owner = owners;
  const defines = new DefineColumns();
  Object.assign(defines, defineColumns);
  defines.size = defineCount;
  defines.qualifiedName = qualifiedNames;
  defines.termPool = termPool!;
  defines.termPoolSize = termPool!.length;
  return {
    dictionary: dictionary as PersistedDictionary,
    fields: fields as PersistedField[],
    chunks,
    defines,
    nextId,
    slots: meta.slots,
    kinds: kinds as SymbolKind[],
    files,
    unnamed,
  };
}

type ChunkArrays = { [Name in (typeof CHUNK_COLUMNS)[number]]: Name extends "ownerKind" ? Uint8Array : Int32Array };
type DefineArrays = { [Name in (typeof DEFINE_COLUMNS)[number]]: Name extends "kind" ? Uint8Array : Int32Array };

/**
 * Why the chunk and symbol columns cannot be read as they are, or undefined: each file's chunks are
 * in line order, their defined symbols follow one another inside the symbol columns, and every
 * kind and term range points inside what is there. The lengths of the columns are checked before.
 */
function columnsProblem(chunks: ChunkArrays, defines: DefineArrays, termPool: Int32Array, kindCount: number, files: readonly PersistedFileEntry[]): string | undefined {
  const symbols = defines.kind.length;
  for (const entry of files) {
    let nextLine = 1;
    let nextDefine = entry.count > 0 ? chunks.defineFirst[entry.first]! : 0;
    for (let id = entry.first; id < entry.first + entry.count; id++) {
      const startLine = chunks.startLine[id]!;
      if (startLine < nextLine || chunks.endLine[id]! < startLine || chunks.startOffset[id]! < -1) return "a chunk's lines";
      if (chunks.ownerKind[id]! > kindCount) return "a chunk's kind";
      if (chunks.defineFirst[id] !== nextDefine || nextDefine < 0 || chunks.defineCount[id]! < 0 || nextDefine + chunks.defineCount[id]! > symbols) return "a chunk's symbols";
      nextLine = chunks.endLine[id]! + 1;
      nextDefine += chunks.defineCount[id]!;
    }
  }
  for (let define = 0; define < symbols; define++) {
    const first = defines.termFirst[define]!;
    const count = defines.termCount[define]!;
    if (defines.kind[define]! >= kindCount || first < 0 || count < 0 || first + count > termPool.length) return "a symbol's kind or terms";
  }
  return undefined;
}

/** Gives a restored file's chunks their names from its facts, now listed; false when the references do not fit them. */
export function nameChunks(
  entry: PersistedFileEntry,
  pending: UnnamedChunks,
  symbols: readonly { qualifiedName: string }[],
  chunks: ChunkColumns,
  defines: DefineColumns,
): boolean {
  const resolve = (ref: number): string | undefined | false => {
    if (ref <= -2) return pending.strings[-2 - ref] ?? false;
    if (ref < 0) return undefined;
    return symbols[ref]?.qualifiedName ?? false;
  };
  let at = 0;
  for (let index = 0; index < entry.count; index++) {
    const id = entry.first + index;
    const owner = resolve(pending.owners[index]!);
    if (owner === false) return false;
    chunks.owner[id] = owner;
    for (let define = chunks.defineFirst[id]!, end = define + chunks.defineCount[id]!; define < end; define++) {
      const name = resolve(pending.names[at++] ?? -1);
      if (name === false || name === undefined) return false;
      defines.qualifiedName[define] = name;
    }
  }
  return true;
}
