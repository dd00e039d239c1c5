/**
 * Turns artifacts (entries, hooks, guidance blocks, skill files) into file changes and back.
 * Everything is computed in memory first, per file, so a malformed file is reported and left
 * untouched, `--dry-run` can print the exact diff, and the real run writes each file once,
 * atomically.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import writeFileAtomic from "write-file-atomic";
import { LIMITS } from "../core/limits.ts";
import { sha256OfText } from "../helpers/hash.ts";
import { unifiedDiff } from "../helpers/unified-diff.ts";
import { JsonEditError, readJsonSlotText, setJsonValue, undoJsonEdit, type JsonEditTrace, type JsonSlot } from "../helpers/json-edit.ts";
import { removeManagedBlock, upsertManagedBlock } from "../helpers/managed-block.ts";
import { appendTomlTable, removeTomlTable, renderTomlTable, replaceTomlTable, tomlTableText } from "../helpers/toml-table.ts";
import type { ArtifactRecord } from "./record.ts";
import { isOurHookGroup, type ArtifactSpec, type JsonSlotSpec, type Target } from "./targets.ts";

/** A file that cannot be edited safely (malformed, not ours, too large): reported, left untouched. */
export class PlanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PlanError";
  }
}

export interface FileChange {
  file: string;
  before: string | null;
  after: string | null;
  /** Mode for a file that does not exist yet (existing files keep theirs). */
  mode?: number;
}

/** The files a plan reads and would write, held in memory until commit. */
export class FileState {
  private readonly original = new Map<string, string | null>();
  private readonly current = new Map<string, string | null>();
  private readonly modes = new Map<string, number>();

  async read(file: string): Promise<string | null> {
    if (this.current.has(file)) return this.current.get(file) ?? null;
    let text: string | null;
    try {
      const stats = await fs.stat(file);
      if (!stats.isFile()) throw new PlanError("is not a regular file");
      if (stats.size > LIMITS.hosts.maxConfigFileBytes) throw new PlanError(`is larger than ${LIMITS.hosts.maxConfigFileBytes} bytes`);
      text = await fs.readFile(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
        if (error instanceof PlanError) throw error;
        throw new PlanError(`cannot be read: ${(error as Error).message}`);
      }
      text = null;
    }
    this.original.set(file, text);
    this.current.set(file, text);
    return text;
  }

  set(file: string, text: string | null, mode?: number): void {
    if (!this.original.has(file)) throw new Error(`internal: ${file} written before it was read`);
    this.current.set(file, text);
    if (mode !== undefined) this.modes.set(file, mode);
  }

  /** Forgets every pending change to `file`. */
  revert(file: string): void {
    if (this.original.has(file)) this.current.set(file, this.original.get(file) ?? null);
  }

  changes(): FileChange[] {
    const changes: FileChange[] = [];
    for (const [file, after] of this.current) {
      const before = this.original.get(file) ?? null;
      if (before === after) continue;
      const change: FileChange = { file, before, after };
      const mode = this.modes.get(file);
      if (mode !== undefined) change.mode = mode;
      changes.push(change);
    }
    return changes;
  }
}

/** Folders between the nearest existing ancestor and `file`, outermost first. */
async function missingDirs(file: string): Promise<string[]> {
  const missing: string[] = [];
  let dir = path.dirname(file);
  for (;;) {
    try {
      await fs.stat(dir);
      return missing.reverse();
    } catch {
      missing.push(dir);
      const parent = path.dirname(dir);
      if (parent === dir) return missing.reverse();
      dir = parent;
    }
  }
}

function toSlot(spec: JsonSlotSpec): JsonSlot {
  if ("key" in spec) return { container: spec.container, key: spec.key };
  const host = spec.hookFor;
  return { container: spec.container, matches: (value) => isOurHookGroup(value, host) };
}

function hasPath(data: unknown, keys: string[]): boolean {
  let node = data;
  for (const key of keys) {
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return false;
    node = (node as Record<string, unknown>)[key];
  }
  return true;
}

/** Runs a JSON edit; a file it cannot edit is reported, not thrown through. */
function jsonEdit<T>(edit: () => T): T {
  try {
    return edit();
  } catch (error) {
    if (error instanceof JsonEditError) throw new PlanError(error.message);
    throw error;
  }
}

function parseTomlOrThrow(text: string): unknown {
  try {
    return parseToml(text);
  } catch (error) {
    throw new PlanError(`is not valid TOML: ${(error as Error).message.split("\n")[0]}`);
  }
}

type Owned = ArtifactSpec & { owners: Target[] };

/** Applies one artifact to the in-memory files; returns its new record. */
export async function applyArtifact(spec: Owned, existing: ArtifactRecord | undefined, files: FileState): Promise<ArtifactRecord> {
  const text = await files.read(spec.file);
  const created = text === null;
  const createdFile = existing && !created ? existing.createdFile : created;
  const createdDirs = created ? await missingDirs(spec.file) : (existing?.createdDirs ?? []);
  const common = { file: spec.file, owners: spec.owners, createdFile, createdDirs };

  switch (spec.kind) {
    case "json": {
      const base = text ?? "";
      const slot = toSlot(spec.slot);
      const currentValue = jsonEdit(() => readJsonSlotText(base, slot));
      const result = jsonEdit(() => setJsonValue(base, slot, spec.value));
      let trace: JsonEditTrace;
      if (existing?.kind === "json" && currentValue !== undefined) trace = existing.trace;
      else if (currentValue !== undefined) trace = { createdContainers: [], replacedText: currentValue };
      else trace = result.trace;
      if (result.changed) files.set(spec.file, result.text);
      const record: ArtifactRecord = { kind: "json", ...common, slot: spec.slot, trace };
      const originalText = existing?.kind === "json" ? existing.originalText : text !== null && text.trim() === "" ? text : undefined;
      if (originalText !== undefined) record.originalText = originalText;
      return record;
    }
    case "toml": {
      const base = text ?? "";
      const data = parseTomlOrThrow(base);
      const tableText = renderTomlTable(spec.table, spec.values);
      const currentTable = tomlTableText(base, spec.table);
      if (currentTable === undefined && hasPath(data, spec.table)) {
        throw new PlanError(
          `defines [${spec.table.join(".")}] in a form ast-mcp does not edit (an inline table or dotted keys); give it its own [${spec.table.join(".")}] table or remove it`,
        );
      }
      let next: string;
      let prefix = existing?.kind === "toml" ? existing.prefix : "";
      let replacedText = existing?.kind === "toml" ? existing.replacedText : undefined;
      if (currentTable !== undefined) {
        next = replaceTomlTable(base, spec.table, tableText) ?? base;
        if (!existing) replacedText = currentTable;
      } else {
        const appended = appendTomlTable(base, tableText);
        next = appended.text;
        prefix = appended.prefix;
        replacedText = undefined;
      }
      parseTomlOrThrow(next);
      if (next !== base) files.set(spec.file, next);
      const record: ArtifactRecord = { kind: "toml", ...common, table: spec.table, prefix };
      if (replacedText !== undefined) record.replacedText = replacedText;
      return record;
    }
    case "block": {
      const result = upsertManagedBlock(text, spec.body);
      if (result.changed) files.set(spec.file, result.text);
      const previous = existing?.kind === "block" ? existing : undefined;
      return {
        kind: "block",
        ...common,
        prefix: previous && !result.appended ? previous.prefix : result.prefix,
        suffix: previous && !result.appended ? previous.suffix : result.suffix,
      };
    }
    case "file": {
      const wanted = sha256OfText(spec.content);
      if (text === null) {
        files.set(spec.file, spec.content, spec.mode);
      } else if (existing?.kind === "file") {
        if (text !== spec.content) {
          if (sha256OfText(text) !== existing.sha256) throw new PlanError("was changed since ast-mcp installed it; left as it is (delete it and run again to refresh)");
          files.set(spec.file, spec.content);
        }
      } else if (text !== spec.content) {
        throw new PlanError("exists and was not written by ast-mcp; left untouched");
      }
      return { kind: "file", ...common, sha256: wanted };
    }
  }
}

/**
 * Takes an artifact back out of the in-memory files. Returns a note when something the user
 * changed since install is left in place.
 */
export async function undoArtifact(record: ArtifactRecord, files: FileState): Promise<string | undefined> {
  const text = await files.read(record.file);
  if (text === null) return undefined;
  switch (record.kind) {
    case "json": {
      const undone = jsonEdit(() => undoJsonEdit(text, toSlot(record.slot), record.trace));
      if (!undone.changed) return undefined;
      if (undone.documentEmpty && record.createdFile) files.set(record.file, null);
      else if (undone.documentEmpty && record.originalText !== undefined) files.set(record.file, record.originalText);
      else files.set(record.file, undone.text);
      return undefined;
    }
    case "toml": {
      parseTomlOrThrow(text);
      const next = record.replacedText !== undefined ?
        (replaceTomlTable(text, record.table, record.replacedText) ?? text) :
        removeTomlTable(text, record.table, record.prefix).text;
      files.set(record.file, record.createdFile && next.trim() === "" ? null : next);
      return undefined;
    }
    case "block": {
      const removed = removeManagedBlock(text, record.prefix, record.suffix);
      if (!removed.changed) return undefined;
      files.set(record.file, record.createdFile && removed.text === "" ? null : removed.text);
      return undefined;
    }
    case "file": {
      if (sha256OfText(text) !== record.sha256) return `${record.file} was changed since ast-mcp installed it; left in place`;
      if (record.createdFile) files.set(record.file, null);
      return undefined;
    }
  }
}

/** The exact unified diff of a change (new and deleted files against /dev/null). */
export function renderDiff(change: FileChange): string {
  // A dry run prints the whole diff: host configuration files are small.
  return unifiedDiff(change.file, change.before ?? undefined, change.after ?? undefined, Number.MAX_SAFE_INTEGER).diff;
}

/** Writes every change (atomically per file), then removes the listed folders that are now empty. */
export async function commitChanges(changes: readonly FileChange[], emptyDirsToRemove: readonly string[]): Promise<Array<{ file: string; message: string }>> {
  const failures: Array<{ file: string; message: string }> = [];
  for (const change of changes) {
    try {
      if (change.after === null) {
        await fs.rm(change.file, { force: true });
      } else {
        await fs.mkdir(path.dirname(change.file), { recursive: true });
        const options = change.before === null && change.mode !== undefined ? { mode: change.mode } : {};
        await writeFileAtomic(change.file, change.after, options);
      }
    } catch (error) {
      failures.push({ file: change.file, message: (error as Error).message });
    }
  }
  // Deepest first, so a parent is tried after its children are gone.
  for (const dir of [...new Set(emptyDirsToRemove)].sort((a, b) => b.length - a.length)) {
    try {
      await fs.rmdir(dir);
    } catch {
      // not empty (something else lives there) or already gone: keep it
    }
  }
  return failures;
}
