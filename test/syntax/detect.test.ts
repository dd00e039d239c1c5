import { describe, expect, test } from "bun:test";
import { holdsProjectManifest, isSkippedDirectory, looksMinified, MINIFIED_DEFAULTS } from "../../src/syntax/index.ts";

describe("looksMinified", () => {
  const bundle = `${"x".repeat(MINIFIED_DEFAULTS.lineChars)}\nshort\n`;

  test("a head mostly made of very long lines is a bundle; one long line among many short ones is not", () => {
    expect(looksMinified(bundle)).toBe(true);
    expect(looksMinified(`${"const a = 1;\n".repeat(200)}${"x".repeat(MINIFIED_DEFAULTS.lineChars)}\n`)).toBe(false);
  });

  test("its tuning can be varied: a longer line threshold no longer counts the same head as minified", () => {
    expect(looksMinified(bundle, { ...MINIFIED_DEFAULTS, lineChars: MINIFIED_DEFAULTS.lineChars * 2 })).toBe(false);
  });
});

describe("isSkippedDirectory", () => {
  test("dependency and VCS folders are skipped at any depth; output folders only at a project root", () => {
    for (const name of ["node_modules", ".git", "__pycache__", ".venv"]) {
      expect(isSkippedDirectory(name, false)).toBe(true);
      expect(isSkippedDirectory(name, true)).toBe(true);
    }
    for (const name of ["build", "dist", "target", "vendor", "coverage"]) {
      expect(isSkippedDirectory(name, true)).toBe(true);
      expect(isSkippedDirectory(name, false)).toBe(false);
    }
    expect(isSkippedDirectory("src", true)).toBe(false);
  });

  test("a folder holding a manifest of a build tool is a project root; one holding only sources is not", () => {
    expect(holdsProjectManifest(["README.md", "package.json"])).toBe(true);
    expect(holdsProjectManifest(["go.mod", "net"])).toBe(true);
    expect(holdsProjectManifest(["Cargo.toml"])).toBe(true);
    expect(holdsProjectManifest(["build.gradle.kts"])).toBe(true);
    expect(holdsProjectManifest(["pyproject.toml"])).toBe(true);
    expect(holdsProjectManifest(["build.go", "doc.go", "read.go"])).toBe(false);
    expect(holdsProjectManifest([])).toBe(false);
  });
});
