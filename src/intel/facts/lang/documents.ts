/**
 * JSON (and JSONC), YAML and TOML: the keys of the top levels (LIMITS.intel.facts.documentKeyDepth
 * deep, at most documentMaxKeys of them) as `key` symbols nested by qualifiedName, each with its
 * line range and a one-line preview of the value. The tree is walked from the root down to that
 * depth only, so a large lock file costs its first levels, not every node.
 */
import type { SgNode } from "@ast-grep/napi";
import { LIMITS } from "../../../core/limits.ts";
import type { At, FactsBuilder, LanguageExtractor } from "../engine.ts";
import { collapse, unquote } from "../text.ts";
import { declare } from "./common.ts";

interface Walk {
  facts: FactsBuilder;
  count: number;
}

function full(walk: Walk): boolean {
  return walk.count >= LIMITS.intel.facts.documentMaxKeys;
}

/** `key: value` with the value shortened to one line (`{…}` / `[…]` for containers). */
function preview(facts: FactsBuilder, at: At, valueStart: number | undefined, container: "{…}" | "[…]" | undefined): string {
  if (valueStart === undefined) return collapse(facts.text.slice(at.start, at.end), 120);
  const head = facts.text.slice(at.start, valueStart);
  if (container !== undefined) return collapse(`${head}${container}`, 120);
  const value = facts.text.slice(valueStart, at.end);
  const line = value.split("\n")[0]!;
  return collapse(`${head}${line}${line.length < value.trimEnd().length ? " …" : ""}`, 120);
}

/** Adds one key; when its value is a container and depth allows, walks into it under the key. */
function key(
  walk: Walk,
  name: string,
  at: At,
  value: SgNode | undefined,
  depth: number,
  descend: (value: SgNode, depth: number) => void,
  containerOf: (value: SgNode) => "{…}" | "[…]" | undefined,
): void {
  if (full(walk)) return;
  walk.count++;
  const container = value === undefined ? undefined : containerOf(value);
  const symbol = declare(walk.facts, { name, kind: "key", visibility: "public", exported: true, at, signature: preview(walk.facts, at, value?.range().start.index, container) });
  if (value !== undefined && container === "{…}" && depth + 1 < LIMITS.intel.facts.documentKeyDepth) {
    walk.facts.withScope(walk.facts.scopeOf(symbol), () => descend(value, depth + 1));
  }
}

// JSON ---------------------------------------------------------------------------------------

function jsonContainer(value: SgNode): "{…}" | "[…]" | undefined {
  const kind = value.kind() as string;
  return kind === "object" ? "{…}" : kind === "array" ? "[…]" : undefined;
}

function jsonObject(walk: Walk, object: SgNode, depth: number): void {
  if (object.kind() !== "object") return;
  for (const pair of object.namedChildren()) {
    if (pair.kind() !== "pair" || full(walk)) continue;
    const keyNode = pair.field("key" as never) as SgNode | null;
    const value = (pair.field("value" as never) as SgNode | null) ?? undefined;
    if (keyNode === null) continue;
    key(walk, unquote(keyNode.text()), walk.facts.at(pair), value, depth, (inner, next) => jsonObject(walk, inner, next), jsonContainer);
  }
}

// YAML ---------------------------------------------------------------------------------------

const YAML_MAPPINGS = new Set(["block_mapping", "flow_mapping"]);
const YAML_SEQUENCES = new Set(["block_sequence", "flow_sequence"]);

/** The mapping or sequence inside a block_node/flow_node wrapper, or the node itself. */
function yamlContent(node: SgNode): SgNode {
  let current = node;
  for (let guard = 0; guard < 4; guard++) {
    const kind = current.kind() as string;
    if (kind !== "block_node" && kind !== "flow_node") return current;
    const inner = current.namedChildren().find((child) => !/^(?:anchor|tag|comment)$/.test(child.kind() as string));
    if (inner === undefined) return current;
    current = inner;
  }
  return current;
}

function yamlContainer(value: SgNode): "{…}" | "[…]" | undefined {
  const kind = yamlContent(value).kind() as string;
  return YAML_MAPPINGS.has(kind) ? "{…}" : YAML_SEQUENCES.has(kind) ? "[…]" : undefined;
}

function yamlMapping(walk: Walk, node: SgNode, depth: number): void {
  const mapping = yamlContent(node);
  if (!YAML_MAPPINGS.has(mapping.kind() as string)) return;
  for (const pair of mapping.namedChildren()) {
    const kind = pair.kind() as string;
    if ((kind !== "block_mapping_pair" && kind !== "flow_pair") || full(walk)) continue;
    const keyNode = pair.field("key" as never) as SgNode | null;
    const value = (pair.field("value" as never) as SgNode | null) ?? undefined;
    if (keyNode === null) continue;
    key(walk, unquote(keyNode.text()), walk.facts.at(pair), value, depth, (inner, next) => yamlMapping(walk, inner, next), yamlContainer);
  }
}

function yamlStream(walk: Walk, stream: SgNode): void {
  for (const document of stream.namedChildren()) {
    if (document.kind() !== "document") continue;
    for (const node of document.namedChildren()) if (node.kind() === "block_node" || node.kind() === "flow_node") yamlMapping(walk, node, 0);
  }
}

// TOML ---------------------------------------------------------------------------------------

function tomlKeyPath(keyNode: SgNode): string[] {
  return keyNode.kind() === "dotted_key" ? keyNode.text().split(".").map((part) => unquote(part.trim())) : [unquote(keyNode.text())];
}

function tomlContainer(value: SgNode): "{…}" | "[…]" | undefined {
  const kind = value.kind() as string;
  return kind === "inline_table" ? "{…}" : kind === "array" ? "[…]" : undefined;
}

function tomlPairs(walk: Walk, container: SgNode, depth: number): void {
  for (const pair of container.namedChildren()) {
    if (pair.kind() !== "pair" || full(walk)) continue;
    const children = pair.namedChildren();
    const keyNode = children[0];
    const value = children[children.length - 1];
    if (keyNode === undefined || value === undefined) continue;
    const path = tomlKeyPath(keyNode);
    const at = walk.facts.at(pair);
    const add = (): void => key(walk, path[path.length - 1]!, at, value, depth + path.length - 1, (inner, next) => tomlPairs(walk, inner, next), tomlContainer);
    if (path.length === 1) add();
    else walk.facts.withScope({ start: 0, end: Number.MAX_SAFE_INTEGER, role: "container", qualifiedName: qualified(walk.facts, path.slice(0, -1)), exported: true }, add);
  }
}

function qualified(facts: FactsBuilder, path: string[]): string {
  const owner = facts.owner();
  const prefix = owner?.qualifiedName ?? owner?.symbol?.qualifiedName;
  return prefix === undefined ? path.join(".") : `${prefix}.${path.join(".")}`;
}

/** `[a.b]` tables and `[[a]]` array tables: keys named by their header, their pairs below them. */
function tomlDocument(walk: Walk, document: SgNode): void {
  tomlPairs(walk, document, 0);
  for (const table of document.namedChildren()) {
    const kind = table.kind() as string;
    if ((kind !== "table" && kind !== "table_array_element") || full(walk)) continue;
    const header = table.namedChildren()[0];
    if (header === undefined) continue;
    const path = tomlKeyPath(header);
    if (path.length > LIMITS.intel.facts.documentKeyDepth) continue;
    const at = walk.facts.at(table);
    walk.count++;
    const record = (): void => {
      const headerEnd = walk.facts.text.indexOf("\n", at.start);
      const symbol = declare(walk.facts, {
        name: path[path.length - 1]!,
        kind: "key",
        visibility: "public",
        exported: true,
        at,
        signature: collapse(walk.facts.text.slice(at.start, headerEnd === -1 ? at.end : headerEnd), 120),
      });
      if (path.length < LIMITS.intel.facts.documentKeyDepth) walk.facts.withScope(walk.facts.scopeOf(symbol), () => tomlPairs(walk, table, path.length));
    };
    if (path.length === 1) record();
    else walk.facts.withScope({ start: 0, end: Number.MAX_SAFE_INTEGER, role: "container", qualifiedName: path.slice(0, -1).join("."), exported: true }, record);
  }
}

const jsonDocument = (node: SgNode, _at: At, facts: FactsBuilder): void => {
  const walk: Walk = { facts, count: 0 };
  for (const child of node.namedChildren()) jsonObject(walk, child, 0);
};

const EXTRACTORS: Readonly<Record<string, LanguageExtractor>> = {
  json: { rules: [{ kind: "document" }], handlers: { document: jsonDocument } },
  yaml: { rules: [{ kind: "stream" }], handlers: { stream: (node, _at, facts) => yamlStream({ facts, count: 0 }, node) } },
  toml: { rules: [{ kind: "document" }], handlers: { document: (node, _at, facts) => tomlDocument({ facts, count: 0 }, node) } },
};

/** The extractor for napi language "json" (JSON and JSONC), "yaml" or "toml". */
export function documentExtractor(napiLanguage: string): LanguageExtractor {
  return EXTRACTORS[napiLanguage] ?? { rules: [], handlers: {} };
}
