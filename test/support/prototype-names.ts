/** Names that a plain object already answers to: every own property of Object.prototype. */
export const PROTOTYPE_NAMES: readonly string[] = Object.getOwnPropertyNames(Object.prototype).sort();

/** An identifier spelling of a prototype name (they all are identifiers already, `__proto__` included). */
export function identifierFor(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : name.replace(/[^\w$]/g, "_");
}

/**
 * Every tool's arguments built around one prototype name, as a file name, symbol name and key.
 * `file` is a file in the root that is named after `name`.
 */
export function prototypeArguments(name: string): Record<string, unknown> {
  const file = `src/${name}.ts`;
  const bare = name;
  return {
    file_read: { files: [{ filePath: bare }, { filePath: file, mode: "ast" }, { filePath: file, mode: "ast", symbols: [name] }] },
    file_hash: { filePaths: [bare, file, `dirs/${name}/index.ts`] },
    file_capabilities: { filePaths: [bare, file, `py/${name}.py`] },
    document_query: { filePath: `json/${name}.json`, selectors: [`/${name}`, `$.${name}`, name] },
    policy_check: { checks: [{ path: bare, operation: "read" }, { path: file, operation: "write" }] },
    config_status: {},
    map: { paths: [".", file], detail: "full", private: true },
    digest: { paths: ["."] },
    show: { path: file, symbols: [name] },
    surface: { path: file },
    index: { stats: true },
    deps: { path: file },
    reverse_deps: { path: file },
    graph: { paths: ["."] },
    cycles: {},
    callers: { symbol: name },
    callees: { symbol: name, path: file },
    trace: { from: name, to: name },
    implements: { symbol: name },
    impact: { symbol: name },
    context: { target: name },
    search: { query: name, languages: [name, "typescript"] },
    find_related: { path: file, line: 1 },
    squeeze: { path: file },
    run: { pattern: `${identifierFor(name)}($$$A)`, paths: ["."], constraints: { [name]: { regex: "x" } } },
    file_write: { files: { [`new/${name}.txt`]: { content: `${name}\n` } } },
    file_patch: { files: { [file]: { aiderBlocks: [{ search: "return 1;", replace: "return 2;" }] } } },
    file_rename: { files: { [`rename/${name}`]: { destination: `renamed/${name}` } } },
    file_delete: { files: { [`delete/${name}`]: {} } },
    file_chattr: { files: { [bare]: { chmod: "644" } } },
    file_undo: { batchId: name },
    journal_list: { path: bare },
  };
}
