/**
 * Text-level edits of JSON / JSONC documents that keep every byte outside the edited value:
 * comments, key order, indentation and line endings survive, and removing what was inserted
 * gives back the original text exactly (the installer's uninstall relies on that).
 *
 * A "slot" is where one value lives: an object property (`key`) or the element of an array that
 * `matches` a predicate (appended when none does). Containers on the way are created as needed
 * and reported, so the inverse edit can remove exactly the ones it created.
 */
import { findNodeAtLocation, getNodeValue, parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser/lib/esm/main.js";
import { lineColumnAt } from "../text/index.ts";

export class JsonEditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JsonEditError";
  }
}

export type JsonSlot = { container: string[]; key: string } | { container: string[]; matches: (value: unknown) => boolean };

/** What an edit changed, so that undoJsonEdit can take back exactly that. */
export interface JsonEditTrace {
  /** Container paths this edit created (shallowest first); [] stands for the top-level object. */
  createdContainers: string[][];
  /** An empty container the edit filled, with its exact text before (e.g. "{}" or "{\n  }"). */
  filledEmpty?: { path: string[]; text: string } | undefined;
  /** The exact text of a value the edit replaced (a value not installed by us); restored on undo. */
  replacedText?: string | undefined;
}

export interface JsonEditResult {
  text: string;
  changed: boolean;
  trace: JsonEditTrace;
}

interface Style {
  indent: string;
  eol: string;
}

/** Parses JSONC (comments and trailing commas allowed); the top level must be an object or absent. */
function parseJsonDocument(text: string): { root: Node | undefined } {
  if (text.trim() === "") return { root: undefined };
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    const at = lineColumnAt(text, first.offset);
    throw new JsonEditError(`not valid JSON: ${printParseErrorCode(first.error)} at line ${at.line}, column ${at.column}`);
  }
  if (root && root.type !== "object") throw new JsonEditError("the top level is not an object");
  return { root };
}

/** The parsed value of a JSONC document (undefined for an empty one). */
export function jsonDocumentValue(text: string): unknown {
  const { root } = parseJsonDocument(text);
  return root ? getNodeValue(root) : undefined;
}

function detectStyle(text: string): Style {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const indented = /\n([ \t]+)\S/.exec(text);
  return { eol, indent: indented?.[1] ?? "  " };
}

function end(node: Node): number {
  return node.offset + node.length;
}

/** Leading whitespace of the line that holds `offset`. */
function lineIndent(text: string, offset: number): string {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? "";
}

function startsItsLine(text: string, offset: number): boolean {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  return text.slice(lineStart, offset).trim() === "";
}

/** JSON text for a value placed at `indent`; null renders it on one line (for one-line containers). */
function render(value: unknown, indent: string | null, style: Style): string {
  if (indent === null) return JSON.stringify(value);
  return JSON.stringify(value, null, style.indent).split("\n").join(style.eol + indent);
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A container node at `path` ([] = root); undefined when missing. Throws when something else is there. */
function containerAt(root: Node, path: string[]): Node | undefined {
  const node = path.length === 0 ? root : findNodeAtLocation(root, path);
  if (!node) return undefined;
  if (node.type !== "object" && node.type !== "array") throw new JsonEditError(`${path.join(".")} is neither an object nor a list`);
  return node;
}

function propertyOf(object: Node, key: string): Node | undefined {
  return object.children?.find((property) => property.children?.[0]?.value === key);
}

/** The value node in a slot, if the slot is filled. */
function slotValue(container: Node, slot: JsonSlot): Node | undefined {
  if ("key" in slot) {
    if (container.type !== "object") throw new JsonEditError(`${slot.container.join(".")} is not an object`);
    return propertyOf(container, slot.key)?.children?.[1];
  }
  if (container.type !== "array") throw new JsonEditError(`${slot.container.join(".")} is not a list`);
  return container.children?.find((element) => slot.matches(getNodeValue(element)));
}

/** Inserts `member` (a rendered `"key": value` or a bare value) as the last member of a container. */
function insertMember(text: string, container: Node, memberFor: (indent: string | null) => string, style: Style): { text: string; filledEmptyText?: string } {
  const baseIndent = lineIndent(text, container.offset);
  const members = container.children ?? [];
  const open = text[container.offset];
  const close = open === "{" ? "}" : "]";
  if (members.length === 0) {
    const childIndent = baseIndent + style.indent;
    const replacement = `${open}${style.eol}${childIndent}${memberFor(childIndent)}${style.eol}${baseIndent}${close}`;
    return {
      text: text.slice(0, container.offset) + replacement + text.slice(end(container)),
      filledEmptyText: text.slice(container.offset, end(container)),
    };
  }
  const last = members[members.length - 1] as Node;
  const multiline = text.slice(container.offset, end(container)).includes("\n");
  const childIndent = startsItsLine(text, last.offset) ? lineIndent(text, last.offset) : baseIndent + style.indent;
  // A one-line container stays on one line: the member is inserted compact.
  const insertion = multiline ? `,${style.eol}${childIndent}${memberFor(childIndent)}` : `, ${memberFor(null)}`;
  return { text: text.slice(0, end(last)) + insertion + text.slice(end(last)) };
}

/** Nests `value` inside objects named by `keys`: (["a","b"], v) → {a: {b: v}}. */
function nest(keys: string[], value: unknown): unknown {
  return keys.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
}

function slotItem(slot: JsonSlot, value: unknown): unknown {
  return "key" in slot ? { [slot.key]: value } : [value];
}

/**
 * Puts `value` into `slot`, creating the containers on the way. Unchanged text (changed: false)
 * when the slot already holds an equal value.
 */
export function setJsonValue(text: string, slot: JsonSlot, value: unknown): JsonEditResult {
  const { root } = parseJsonDocument(text);
  const style = detectStyle(text);
  const trace: JsonEditTrace = { createdContainers: [] };
  if (!root) {
    // An empty (or blank) document: everything is created.
    trace.createdContainers.push([]);
    for (let depth = 1; depth <= slot.container.length; depth++) trace.createdContainers.push(slot.container.slice(0, depth));
    const document = nest(slot.container, slotItem(slot, value));
    return { text: `${render(document, "", style)}${style.eol}`, changed: true, trace };
  }

  // Walk down to the deepest existing container.
  let container = root;
  for (let depth = 0; depth < slot.container.length; depth++) {
    const path = slot.container.slice(0, depth + 1);
    const child = containerAt(root, path);
    if (!child) {
      if (container.type !== "object") throw new JsonEditError(`${slot.container.slice(0, depth).join(".")} is not an object`);
      for (let created = depth + 1; created <= slot.container.length; created++) trace.createdContainers.push(slot.container.slice(0, created));
      const key = slot.container[depth] as string;
      const inner = nest(slot.container.slice(depth + 1), slotItem(slot, value));
      const inserted = insertMember(text, container, (indent) => `${JSON.stringify(key)}: ${render(inner, indent, style)}`, style);
      if (inserted.filledEmptyText !== undefined) trace.filledEmpty = { path: slot.container.slice(0, depth), text: inserted.filledEmptyText };
      return { text: inserted.text, changed: true, trace };
    }
    container = child;
  }

  const existing = slotValue(container, slot);
  if (existing) {
    if (deepEqual(getNodeValue(existing), value)) return { text, changed: false, trace };
    const replaced = text.slice(existing.offset, end(existing));
    const indent = lineIndent(text, existing.parent?.type === "property" ? existing.parent.offset : existing.offset);
    trace.replacedText = replaced;
    return { text: text.slice(0, existing.offset) + render(value, indent, style) + text.slice(end(existing)), changed: true, trace };
  }
  const member = (indent: string | null) => ("key" in slot ? `${JSON.stringify(slot.key)}: ${render(value, indent, style)}` : render(value, indent, style));
  const inserted = insertMember(text, container, member, style);
  if (inserted.filledEmptyText !== undefined) trace.filledEmpty = { path: slot.container, text: inserted.filledEmptyText };
  return { text: inserted.text, changed: true, trace };
}

/** Deletes one member (property or array element) with exactly the separator that joined it. */
function deleteMember(text: string, member: Node): string {
  const parent = member.parent as Node;
  const siblings = parent.children ?? [];
  const index = siblings.indexOf(member);
  if (index > 0) return text.slice(0, end(siblings[index - 1] as Node)) + text.slice(end(member));
  if (siblings.length > 1) return text.slice(0, member.offset) + text.slice((siblings[1] as Node).offset);
  const open = text[parent.offset] as string;
  return `${text.slice(0, parent.offset)}${open}${open === "{" ? "}" : "]"}${text.slice(end(parent))}`;
}

/** The member node (property, or array element) that holds the value node. */
function memberOf(valueNode: Node): Node {
  return valueNode.parent?.type === "property" ? valueNode.parent : valueNode;
}

/**
 * Takes back what setJsonValue did according to its trace: the value goes (or the replaced text
 * comes back), then each container the edit created is removed if nothing else moved in, and a
 * container it filled gets its original empty text back. Returns the text and whether the whole
 * document is now what the edit created from nothing (an empty top-level object).
 */
export function undoJsonEdit(text: string, slot: JsonSlot, trace: JsonEditTrace): { text: string; changed: boolean; documentEmpty: boolean } {
  let { root } = parseJsonDocument(text);
  if (!root) return { text, changed: false, documentEmpty: true };
  const container = containerAt(root, slot.container);
  const valueNode = container ? slotValue(container, slot) : undefined;
  if (!valueNode) return { text, changed: false, documentEmpty: isEmptyObject(root) };
  let result: string;
  if (trace.replacedText !== undefined) {
    result = text.slice(0, valueNode.offset) + trace.replacedText + text.slice(end(valueNode));
    return { text: result, changed: true, documentEmpty: false };
  }
  result = deleteMember(text, memberOf(valueNode));

  // Remove created containers that are now empty, deepest first; restore a filled empty one.
  const created = [...trace.createdContainers].sort((a, b) => b.length - a.length);
  const emptyCandidates = trace.filledEmpty ? [...created, trace.filledEmpty.path] : created;
  const seen = new Set<string>();
  for (const path of emptyCandidates.sort((a, b) => b.length - a.length)) {
    const key = JSON.stringify(path);
    if (seen.has(key)) continue;
    seen.add(key);
    ({ root } = parseJsonDocument(result));
    if (!root) break;
    const node = containerAt(root, path);
    if (!node || (node.children?.length ?? 0) > 0) continue;
    const wasCreated = created.some((candidate) => JSON.stringify(candidate) === key);
    if (wasCreated && path.length > 0) {
      result = deleteMember(result, memberOf(node));
    } else if (trace.filledEmpty && JSON.stringify(trace.filledEmpty.path) === key) {
      result = result.slice(0, node.offset) + trace.filledEmpty.text + result.slice(end(node));
    }
  }
  ({ root } = parseJsonDocument(result));
  const createdRoot = trace.createdContainers.some((path) => path.length === 0);
  return { text: result, changed: true, documentEmpty: createdRoot && (!root || isEmptyObject(root)) };
}

function isEmptyObject(node: Node): boolean {
  return node.type === "object" && (node.children?.length ?? 0) === 0;
}

/** The value in a slot, or undefined. */
export function readJsonSlot(text: string, slot: JsonSlot): unknown {
  const { root } = parseJsonDocument(text);
  if (!root) return undefined;
  const container = containerAt(root, slot.container);
  const node = container ? slotValue(container, slot) : undefined;
  return node ? getNodeValue(node) : undefined;
}

/** The exact source text of the value in a slot, or undefined when the slot is empty. */
export function readJsonSlotText(text: string, slot: JsonSlot): string | undefined {
  const { root } = parseJsonDocument(text);
  if (!root) return undefined;
  const container = containerAt(root, slot.container);
  const node = container ? slotValue(container, slot) : undefined;
  return node ? text.slice(node.offset, end(node)) : undefined;
}
