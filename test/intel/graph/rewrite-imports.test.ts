/** New specifiers for moved files, in the original style, and their replacement on the right line. */
import { describe, expect, test } from "bun:test";
import { replaceSpecifier, rewritePythonSpecifier, rewriteScriptSpecifier } from "../../../src/intel/graph/rewrite-imports.ts";

const R = "/repo";

describe("script specifiers", () => {
  const cases: Array<[string, string, string, string, string]> = [
    // importer, old specifier, old target, new target → new specifier
    [`${R}/src/app.ts`, "./util", `${R}/src/util.ts`, `${R}/src/lib/util.ts`, "./lib/util"],
    [`${R}/src/app.ts`, "./util.js", `${R}/src/util.ts`, `${R}/lib/helpers.ts`, "../lib/helpers.js"],
    [`${R}/src/app.ts`, "./util.ts", `${R}/src/util.ts`, `${R}/src/deep/er/util.ts`, "./deep/er/util.ts"],
    [`${R}/src/app.ts`, "./esm.mjs", `${R}/src/esm.mts`, `${R}/src/x/esm.mts`, "./x/esm.mjs"],
    [`${R}/src/app.ts`, "./lib", `${R}/src/lib/index.ts`, `${R}/src/core/index.ts`, "./core"],
    [`${R}/src/app.ts`, "./lib", `${R}/src/lib/index.ts`, `${R}/src/core/main.ts`, "./core/main"],
    [`${R}/src/deep/app.ts`, "../util", `${R}/src/util.ts`, `${R}/src/deep/util.ts`, "./util"],
    [`${R}/src/app.ts`, "./icon.svg?raw", `${R}/src/icon.svg`, `${R}/assets/icon.svg`, "../assets/icon.svg?raw"],
    [`${R}/src/app.ts`, "./util", `${R}/src/util.ts`, `${R}/src/util.tsx`, "./util"],
  ];
  for (const [importer, specifier, oldTarget, newTarget, expected] of cases) {
    test(`${specifier} → ${expected}`, () => {
      expect(rewriteScriptSpecifier(importer, specifier, oldTarget, newTarget)).toEqual({ ok: true, specifier: expected });
    });
  }

  test("a moving importer: the specifier is read from its old place and written from its new one", () => {
    expect(rewriteScriptSpecifier(`${R}/src/app.ts`, "./util.js", `${R}/src/util.ts`, `${R}/src/util.ts`, `${R}/lib/app.ts`)).toEqual({ ok: true, specifier: "../src/util.js" });
    expect(rewritePythonSpecifier(`${R}/pkg/a.py`, ".b", `${R}/pkg/b.py`, `${R}/pkg/b.py`, `${R}/pkg/sub/a.py`)).toEqual({ ok: true, specifier: "..b" });
  });

  test("non-relative specifiers are reported, not guessed", () => {
    const result = rewriteScriptSpecifier(`${R}/src/app.ts`, "@lib/util", `${R}/lib/util.ts`, `${R}/lib2/util.ts`);
    expect(result.ok).toBe(false);
  });
});

describe("python specifiers", () => {
  test("absolute dotted paths stay absolute from the same import root", () => {
    expect(rewritePythonSpecifier(`${R}/main.py`, "pkg.mod", `${R}/pkg/mod.py`, `${R}/pkg/sub/mod2.py`)).toEqual({ ok: true, specifier: "pkg.sub.mod2" });
    expect(rewritePythonSpecifier(`${R}/main.py`, "pkg", `${R}/pkg/__init__.py`, `${R}/newpkg/__init__.py`)).toEqual({ ok: true, specifier: "newpkg" });
    expect(rewritePythonSpecifier(`${R}/src/main.py`, "spkg.m", `${R}/src/spkg/m.py`, `${R}/other/m.py`).ok).toBe(false);
  });

  test("relative imports keep dots, counted from the importer's package", () => {
    expect(rewritePythonSpecifier(`${R}/pkg/sub/deep.py`, "..mod", `${R}/pkg/mod.py`, `${R}/pkg/sub/mod.py`)).toEqual({ ok: true, specifier: ".mod" });
    expect(rewritePythonSpecifier(`${R}/pkg/a.py`, ".b", `${R}/pkg/b.py`, `${R}/pkg/inner/b.py`)).toEqual({ ok: true, specifier: ".inner.b" });
    expect(rewritePythonSpecifier(`${R}/pkg/sub/deep.py`, ".x", `${R}/pkg/sub/x.py`, `${R}/pkg/x.py`)).toEqual({ ok: true, specifier: "..x" });
  });
});

describe("replacing on a line", () => {
  test("keeps the quotes and touches only the named line", () => {
    const text = "import a from './util';\nimport b from \"./util\";\nconst c = require(`./util`);\n";
    expect(replaceSpecifier(text, 2, "script", "./util", "./lib/util")).toBe("import a from './util';\nimport b from \"./lib/util\";\nconst c = require(`./util`);\n");
    expect(replaceSpecifier(text, 3, "script", "./util", "./x")).toBe("import a from './util';\nimport b from \"./util\";\nconst c = require(`./x`);\n");
    expect(replaceSpecifier(text, 1, "script", "./other", "./x")).toBeUndefined();
  });

  test("keeps CRLF line endings", () => {
    expect(replaceSpecifier("import a from './a';\r\nimport b from './b';\r\n", 2, "script", "./b", "./c")).toBe("import a from './a';\r\nimport b from './c';\r\n");
  });

  test("python: from-imports and aliased imports; a bare `import a.b` is not rewritten", () => {
    expect(replaceSpecifier("from ..mod import thing\n", 1, "python", "..mod", ".mod")).toBe("from .mod import thing\n");
    expect(replaceSpecifier("import os, pkg.mod as m\n", 1, "python", "pkg.mod", "pkg.sub.mod")).toBe("import os, pkg.sub.mod as m\n");
    expect(replaceSpecifier("import pkg.mod\n", 1, "python", "pkg.mod", "pkg.x")).toBeUndefined();
  });
});
