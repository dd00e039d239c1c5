import { describe, expect, test } from "bun:test";
import { isDocumentLanguage, kindOf, languageFromPath, languageFromShebang, languageOf } from "../../src/syntax/index.ts";

describe("languageFromPath", () => {
  test("extensions, case-insensitively", () => {
    const cases: Record<string, string> = {
      "src/a.ts": "typescript",
      "a.mts": "typescript",
      "a.tsx": "tsx",
      "a.js": "javascript",
      "a.cjs": "javascript",
      "a.py": "python",
      "a.go": "go",
      "a.rs": "rust",
      "A.JAVA": "java",
      "a.kt": "kotlin",
      "a.c": "c",
      "a.h": "c",
      "a.cpp": "cpp",
      "a.hpp": "cpp",
      "a.cs": "csharp",
      "a.rb": "ruby",
      "a.php": "php",
      "a.swift": "swift",
      "a.scala": "scala",
      "a.lua": "lua",
      "a.sh": "bash",
      "a.ex": "elixir",
      "a.hs": "haskell",
      "a.dart": "dart",
      "a.sql": "sql",
      "a.json": "json",
      "a.jsonc": "jsonc",
      "a.yml": "yaml",
      "a.yaml": "yaml",
      "a.toml": "toml",
      "README.md": "markdown",
      "a.html": "html",
      "a.css": "css",
    };
    for (const [file, language] of Object.entries(cases)) expect([file, languageFromPath(file)]).toEqual([file, language]);
  });
  test("well-known names", () => {
    expect(languageFromPath("tsconfig.json")).toBe("jsonc");
    expect(languageFromPath("packages/x/tsconfig.build.json")).toBe("jsonc");
    expect(languageFromPath("Gemfile")).toBe("ruby");
    expect(languageFromPath("Cargo.lock")).toBe("toml");
    expect(languageFromPath("package.json")).toBe("json");
  });
  test("unknown", () => {
    expect(languageFromPath("Makefile")).toBeNull();
    expect(languageFromPath("notes.txt")).toBeNull();
    expect(languageFromPath(".gitignore")).toBeNull();
    expect(languageFromPath("a.toString")).toBeNull();
  });
});

describe("languageFromShebang", () => {
  test("direct interpreters and env, with options", () => {
    expect(languageFromShebang("#!/bin/bash -e")).toBe("bash");
    expect(languageFromShebang("#!/bin/sh")).toBe("bash");
    expect(languageFromShebang("#!/usr/bin/env python3")).toBe("python");
    expect(languageFromShebang("#!/usr/bin/python3.12")).toBe("python");
    expect(languageFromShebang("#!/usr/bin/env node")).toBe("javascript");
    expect(languageFromShebang("#!/usr/bin/env -S deno run --allow-read")).toBe("typescript");
    expect(languageFromShebang("#!/usr/bin/env -S NODE_OPTIONS=x bun")).toBe("typescript");
    expect(languageFromShebang("#! /usr/bin/env ruby")).toBe("ruby");
  });
  test("not a shebang or unknown interpreter", () => {
    expect(languageFromShebang("# comment")).toBeNull();
    expect(languageFromShebang("#!/usr/bin/env perl")).toBeNull();
    expect(languageFromShebang("#!")).toBeNull();
  });
});

describe("languageOf / kindOf", () => {
  test("the name wins over the shebang; the shebang serves extensionless scripts", () => {
    expect(languageOf("bin/tool", "#!/usr/bin/env python3")).toBe("python");
    expect(languageOf("x.rb", "#!/usr/bin/env python3")).toBe("ruby");
    expect(languageOf("bin/tool", undefined)).toBeUndefined();
  });
  test("overrides come first: a glob without a slash matches the name at any depth, one with a slash the path", () => {
    const overrides = { "*.tmpl": "javascript", "scripts/*.rb": "python" };
    expect(languageOf("deep/views/page.tmpl", undefined, overrides)).toBe("javascript");
    expect(languageOf("scripts/run.rb", "#!/usr/bin/env ruby", overrides)).toBe("python");
    expect(languageOf("other/run.rb", undefined, overrides)).toBe("ruby");
    // An id the schema would refuse names no language.
    expect(languageOf("a.x", undefined, { "*.x": "klingon" })).toBeUndefined();
  });
  test("kinds", () => {
    expect(kindOf("typescript", false)).toBe("source");
    expect(kindOf("yaml", false)).toBe("document");
    expect(kindOf("markdown", false)).toBe("document");
    expect(kindOf(null, false)).toBe("text");
    expect(kindOf("typescript", true)).toBe("binary");
    expect(isDocumentLanguage("toml")).toBe(true);
    expect(isDocumentLanguage("markdown")).toBe(false);
    expect(isDocumentLanguage(null)).toBe(false);
  });
});
