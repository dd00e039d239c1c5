/**
 * The configuration's key space, derived from the zod schema so that a key added to the schema
 * is automatically known to the environment mapping, the source table and `config show`.
 */
import { z } from "zod";
import { ConfigFileSchema } from "./schema.ts";
import { editDistance } from "../helpers/edit-distance.ts";

export type LeafKind = "string" | "number" | "boolean" | "enum" | "string_list" | "string_map";

/** One settable scalar (or list of strings) inside a section, e.g. http.port. */
export interface ConfigLeaf {
  /** The table holding the key, dotted when nested ("http.auth" for [http.auth]). */
  section: string;
  key: string;
  /** "section.key" as used in sources, problems and warnings. */
  dotted: string;
  kind: LeafKind;
  /** The leaf's own schema without the optional wrapper; validates one value. */
  schema: z.ZodType;
}

/**
 * Keys whose values name file-system paths: relative values resolve against the directory of the
 * file that set them (or the working directory for the environment and CLI), and lists of them
 * are separated by the platform's path delimiter in the environment.
 */
export const PATH_KEYS: ReadonlySet<string> = new Set(["workspace.roots", "http.token_file"]);

function unwrapOptional(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (current instanceof z.ZodOptional) current = current.unwrap() as z.ZodType;
  return current;
}

function isStringLike(schema: z.ZodType): boolean {
  const inner = unwrapOptional(schema);
  return inner instanceof z.ZodString || inner instanceof z.ZodEnum;
}

function leafKind(schema: z.ZodType, dotted: string): LeafKind {
  if (schema instanceof z.ZodString) return "string";
  if (schema instanceof z.ZodNumber) return "number";
  if (schema instanceof z.ZodBoolean) return "boolean";
  if (schema instanceof z.ZodEnum) return "enum";
  if (schema instanceof z.ZodArray && isStringLike(schema.element as z.ZodType)) return "string_list";
  // A table of string keys to string values, e.g. [languages].overrides = { "*.tmpl.js" = "javascript" }.
  if (schema instanceof z.ZodRecord && isStringLike(schema.valueType as z.ZodType)) return "string_map";
  // Fails at import (and in every test) so a new kind of key cannot silently escape the env mapping.
  throw new Error(`config key ${dotted} has a schema kind the configuration loader does not support`);
}

function deriveLeaves(): ConfigLeaf[] {
  const leaves: ConfigLeaf[] = [];
  const addTable = (section: string, table: z.ZodObject) => {
    for (const [key, keySchema] of Object.entries(table.shape)) {
      const dotted = `${section}.${key}`;
      const schema = unwrapOptional(keySchema as z.ZodType);
      // A nested table ([http.auth]) contributes its own keys.
      if (schema instanceof z.ZodObject) addTable(dotted, schema);
      else leaves.push({ section, key, dotted, kind: leafKind(schema, dotted), schema });
    }
  };
  for (const [section, sectionSchema] of Object.entries(ConfigFileSchema.shape)) {
    const inner = unwrapOptional(sectionSchema as z.ZodType);
    // Lists of tables (the [[paths]] rules) are not scalar settings.
    if (inner instanceof z.ZodObject) addTable(section, inner);
  }
  return leaves;
}

type Table = Record<string, unknown>;

/** The table holding a leaf inside a configuration object; with `create`, missing tables are made on the way. */
function tableOf(root: unknown, leaf: ConfigLeaf, create: boolean): Table | undefined {
  let table = root as Table | undefined;
  for (const name of leaf.section.split(".")) {
    if (table === undefined) return undefined;
    let next = table[name] as Table | undefined;
    if (next === undefined && create) table[name] = next = {};
    table = next;
  }
  return table;
}

/** A leaf's value in a configuration file or effective configuration (undefined when absent). */
export function leafValue(root: unknown, leaf: ConfigLeaf): unknown {
  return tableOf(root, leaf, false)?.[leaf.key];
}

export function setLeafValue(root: unknown, leaf: ConfigLeaf, value: unknown): void {
  (tableOf(root, leaf, true) as Table)[leaf.key] = value;
}

/** Every scalar setting, in schema order. */
export const CONFIG_LEAVES: readonly ConfigLeaf[] = deriveLeaves();

/** "paths[2].read" style rendering of a zod issue path. */
export function formatKeyPath(path: ReadonlyArray<PropertyKey>): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else text += text === "" ? String(segment) : `.${String(segment)}`;
  }
  return text;
}

/** The keys the schema allows at a path of the file (for "did you mean" hints). */
export function knownKeysAt(path: ReadonlyArray<PropertyKey>): string[] {
  let schema: z.ZodType = ConfigFileSchema;
  for (const segment of path) {
    schema = unwrapOptional(schema);
    if (typeof segment === "number") {
      if (!(schema instanceof z.ZodArray)) return [];
      schema = schema.element as z.ZodType;
    } else {
      if (!(schema instanceof z.ZodObject)) return [];
      const next = (schema.shape as Record<string, z.ZodType>)[String(segment)];
      if (!next) return [];
      schema = next;
    }
  }
  schema = unwrapOptional(schema);
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/** The closest known key when a typo is likely (distance at most 2), else undefined. */
export function closestKey(unknown: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const distance = editDistance(unknown.toLowerCase(), candidate.toLowerCase(), 2);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
