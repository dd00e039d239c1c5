/** The pure text helpers the installer builds on. */
import { describe, expect, test } from "bun:test";
import { JsonEditError, readJsonSlot, setJsonValue, undoJsonEdit } from "../../src/helpers/json-edit.ts";
import { clientHostFor, healthUrlFor, mcpUrlFor } from "../../src/helpers/loopback-url.ts";
import { BLOCK_BEGIN, BLOCK_END, removeManagedBlock, upsertManagedBlock } from "../../src/helpers/managed-block.ts";
import { shellQuote } from "../../src/helpers/shell-quote.ts";
import { quoteSystemdArg, renderSystemdCommand } from "../../src/helpers/systemd.ts";
import { splitSystemdCommand } from "../support/systemd-split.ts";
import { appendTomlTable, findTomlTable, parseHeaderKey, removeTomlTable, renderTomlTable, replaceTomlTable } from "../../src/helpers/toml-table.ts";

const SLOT = { container: ["mcpServers"], key: "ast-mcp" };
const VALUE = { command: "ast-mcp", args: ["mcp"] };

describe("json-edit", () => {
  const documents = [
    "",
    "{}",
    "{}\n",
    "{\n  \"a\": 1\n}\n",
    "{\r\n    \"a\": 1\r\n}",
    "{\n\t\"a\": [1, 2]\n}\n",
    "{\"mcpServers\":{\"x\":{\"command\":\"y\"}}}",
    "{\n  // comment\n  \"mcpServers\": {\n    \"x\": { \"command\": \"y\" }, // trailing\n  },\n}\n",
    "{\n  \"mcpServers\": {\n  }\n}\n",
  ];
  for (const document of documents) {
    test(`insert and undo round-trips ${JSON.stringify(document)}`, () => {
      const result = setJsonValue(document, SLOT, VALUE);
      expect(result.changed).toBe(true);
      expect(readJsonSlot(result.text, SLOT)).toEqual(VALUE);
      expect(setJsonValue(result.text, SLOT, VALUE).changed).toBe(false);
      const undone = undoJsonEdit(result.text, SLOT, result.trace);
      if (document.trim() === "") expect(undone.documentEmpty).toBe(true);
      else expect(undone.text).toBe(document);
    });
  }

  test("keeps the file's indentation and line endings", () => {
    const result = setJsonValue("{\r\n\t\"a\": 1\r\n}\r\n", SLOT, VALUE);
    expect(result.text).toContain("\r\n\t\"mcpServers\": {\r\n\t\t\"ast-mcp\": {");
    expect(result.text.replace(/\r\n/g, "")).not.toContain("\n");
  });

  test("a replaced foreign value is restored exactly", () => {
    const original = "{ \"mcpServers\": { \"ast-mcp\": {\"command\":\"old\"} } }";
    const result = setJsonValue(original, SLOT, VALUE);
    expect(result.trace.replacedText).toBe("{\"command\":\"old\"}");
    expect(undoJsonEdit(result.text, SLOT, result.trace).text).toBe(original);
  });

  test("list slots append to and remove from arrays", () => {
    const slot = { container: ["hooks", "PreToolUse"], matches: (value: unknown) => (value as { id?: string }).id === "ours" };
    const original = "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      { \"id\": \"theirs\" }\n    ]\n  }\n}\n";
    const result = setJsonValue(original, slot, { id: "ours" });
    expect(readJsonSlot(result.text, slot)).toEqual({ id: "ours" });
    expect(undoJsonEdit(result.text, slot, result.trace).text).toBe(original);
  });

  test("malformed documents and wrong shapes throw JsonEditError", () => {
    expect(() => setJsonValue("{\"a\": ", SLOT, VALUE)).toThrow(JsonEditError);
    expect(() => setJsonValue("[1]", SLOT, VALUE)).toThrow("top level");
    expect(() => setJsonValue("{\"mcpServers\": []}", SLOT, VALUE)).toThrow(JsonEditError);
  });
});

describe("toml-table", () => {
  test("renders keys, arrays and subtables", () => {
    expect(renderTomlTable(["mcp_servers", "ast-mcp"], { command: "a b", args: ["mcp", "x\"y"], env: { A: "1" } })).toBe(
      "[mcp_servers.ast-mcp]\ncommand = \"a b\"\nargs = [\"mcp\", \"x\\\"y\"]\n\n[mcp_servers.ast-mcp.env]\nA = \"1\"\n",
    );
    expect(renderTomlTable(["a", "has space"], { on: true })).toBe("[a.\"has space\"]\non = true\n");
  });

  test("parses dotted header keys with quotes", () => {
    expect(parseHeaderKey(" mcp_servers . \"ast-mcp\" ")).toEqual(["mcp_servers", "ast-mcp"]);
    expect(parseHeaderKey("a.'b.c'.d")).toEqual(["a", "b.c", "d"]);
    expect(parseHeaderKey("a..b")).toBeUndefined();
  });

  test("finds a table with its subtables, not the comments above the next one", () => {
    const text = "x = 1\n\n[t.a]\nk = 1\n\n[t.a.env]\nE = \"1\"\n\n# about the next table\n[t.b]\nk = 2\n";
    const region = findTomlTable(text, ["t", "a"])!;
    expect(text.slice(region.start, region.end)).toBe("[t.a]\nk = 1\n\n[t.a.env]\nE = \"1\"\n");
  });

  test("ignores header-looking lines inside multi-line strings", () => {
    const text = "s = \"\"\"\n[t.a]\n\"\"\"\n\n[t.a]\nk = 1\n";
    expect(text.slice(findTomlTable(text, ["t", "a"])!.start)).toBe("[t.a]\nk = 1\n");
  });

  for (const original of ["", "a = 1", "a = 1\n", "a = 1\n\n", "a = 1\r\n"]) {
    test(`append then remove round-trips ${JSON.stringify(original)}`, () => {
      const table = renderTomlTable(["m", "x"], { c: "y" });
      const appended = appendTomlTable(original, table);
      expect(findTomlTable(appended.text, ["m", "x"])).toBeDefined();
      expect(removeTomlTable(appended.text, ["m", "x"], appended.prefix).text).toBe(original);
    });
  }

  test("replace swaps only the table's text", () => {
    const text = "[a]\nk = 1\n\n[m.x]\nc = \"old\"\n\n[b]\nk = 2\n";
    expect(replaceTomlTable(text, ["m", "x"], "[m.x]\nc = \"new\"\n")).toBe("[a]\nk = 1\n\n[m.x]\nc = \"new\"\n\n[b]\nk = 2\n");
  });
});

describe("managed-block", () => {
  for (const original of [null, "", "# Notes", "# Notes\n", "# Notes\n\n", "a\r\nb\r\n"]) {
    test(`append then remove round-trips ${JSON.stringify(original)}`, () => {
      const result = upsertManagedBlock(original, "Use ast-mcp.\n");
      expect(result.text).toContain(BLOCK_BEGIN);
      expect(result.text).toContain(BLOCK_END);
      expect(upsertManagedBlock(result.text, "Use ast-mcp.\n").changed).toBe(false);
      expect(removeManagedBlock(result.text, result.prefix, result.suffix).text).toBe(original ?? "");
    });
  }

  test("an existing block is replaced in place", () => {
    const first = upsertManagedBlock("top\n", "v1");
    const second = upsertManagedBlock(`${first.text}bottom\n`, "v2");
    expect(second.text).toBe(`top\n\n${BLOCK_BEGIN}\nv2\n${BLOCK_END}\nbottom\n`);
  });
});

describe("systemd and shell quoting", () => {
  const args = ["/usr/bin/node", "/opt/my apps/ast-mcp/dist/cli.js", "mcp", "--host", "127.0.0.1", "100%", "$HOME", "say \"hi\"", "back\\slash"];
  test("renderSystemdCommand and splitSystemdCommand are inverse", () => {
    expect(splitSystemdCommand(renderSystemdCommand(args))).toEqual(args);
  });
  test("specifiers and variables are escaped", () => {
    expect(quoteSystemdArg("100%")).toBe("100%%");
    expect(quoteSystemdArg("$HOME")).toBe("\"$$HOME\"");
  });
  test("shellQuote leaves plain words alone and quotes the rest", () => {
    expect(shellQuote("/usr/local/bin/ast-mcp")).toBe("/usr/local/bin/ast-mcp");
    expect(shellQuote("/My Apps/ast-mcp")).toBe("'/My Apps/ast-mcp'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
  });
});

describe("loopback-url", () => {
  test("wildcard binds become loopback; IPv6 gets brackets", () => {
    expect(clientHostFor("0.0.0.0")).toBe("127.0.0.1");
    expect(clientHostFor("::")).toBe("127.0.0.1");
    expect(clientHostFor("::1")).toBe("[::1]");
    expect(clientHostFor("localhost")).toBe("localhost");
    expect(mcpUrlFor("0.0.0.0", 3768)).toBe("http://127.0.0.1:3768/mcp");
    expect(healthUrlFor("127.0.0.1", 1)).toBe("http://127.0.0.1:1/healthz");
  });
});
