import { describe, expect, test } from "bun:test";
import { isSkippedDirectory, looksMinified, MINIFIED_DEFAULTS, outputDirectoryNames } from "../../src/syntax/index.ts";

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
  const skipped = (name: string, siblings: string[], isIndexRoot = false) => isSkippedDirectory(name, outputDirectoryNames(siblings, isIndexRoot));

  test("dependency and VCS folders are skipped at any depth", () => {
    for (const name of ["node_modules", ".git", "__pycache__", ".venv"]) expect(skipped(name, [])).toBe(true);
  });

  test("every output folder name is skipped at an index root; none deeper in a tree without a manifest (the Go tree's src/go/build)", () => {
    for (const name of ["build", "dist", "target", "vendor", "coverage"]) {
      expect(skipped(name, [], true)).toBe(true);
      expect(skipped(name, ["build.go", "doc.go", "read.go"])).toBe(false);
    }
    expect(skipped("src", [], true)).toBe(false);
  });

  test("beside a manifest, the folders its build tool writes are skipped, and only those", () => {
    expect(skipped("dist", ["README.md", "package.json"])).toBe(true);
    expect(skipped("coverage", ["package.json"])).toBe(true);
    expect(skipped("target", ["Cargo.toml"])).toBe(true);
    expect(skipped("target", ["pom.xml"])).toBe(true);
    expect(skipped("build", ["build.gradle.kts"])).toBe(true);
    expect(skipped("build", ["pyproject.toml"])).toBe(true);
    expect(skipped("vendor", ["go.mod"])).toBe(true);
    // The Go tree's src/cmd holds go.mod (module cmd) beside cmd/dist, a package of the tree.
    expect(skipped("dist", ["go.mod"])).toBe(false);
    expect(skipped("vendor", ["package.json"])).toBe(false);
    expect(skipped("target", ["package.json", "go.mod"])).toBe(false);
    expect(skipped("target", ["package.json", "Cargo.toml"])).toBe(true);
  });
});
