/** What pyproject.toml and setup.cfg declare about where packages live, parsed alone. */
import { expect, test } from "bun:test";
import { pyprojectLayout, setupCfgLayout } from "../../../src/intel/graph/python-layout.ts";

const PROJECT = "/p";

function shown(layout: ReturnType<typeof pyprojectLayout>) {
  return {
    bases: layout.bases.map((base) => `${base.directory}${base.names ? ` [${[...base.names].join(",")}]` : ""}`),
    anchors: layout.anchors.map((anchor) => `${anchor.name.join(".")} → ${anchor.directory}`),
  };
}

test("setuptools in pyproject.toml: a package list sits beside the manifest; find without where searches it too; an inline find table counts", () => {
  expect(shown(pyprojectLayout(PROJECT, "[tool.setuptools]\npackages = [\"acme\", \"acme.sub\"]\n"))).toEqual({ bases: ["/p [acme]"], anchors: [] });
  expect(shown(pyprojectLayout(PROJECT, "[tool.setuptools.packages.find]\ninclude = [\"acme*\"]\n"))).toEqual({ bases: ["/p"], anchors: [] });
  expect(shown(pyprojectLayout(PROJECT, "[tool.setuptools]\npackages = { find = { where = [\"lib\"] } }\n"))).toEqual({ bases: ["/p/lib"], anchors: [] });
  expect(shown(pyprojectLayout(PROJECT, "[tool.setuptools.package-dir]\n\"\" = \"src\"\n\"acme.plugins\" = \"plugins\"\n"))).toEqual({
    bases: ["/p/src"],
    anchors: ["acme.plugins → /p/plugins"],
  });
});

test("poetry includes name a package or module and its folder; hatch's paths name the package by their last segment", () => {
  expect(
    shown(pyprojectLayout(PROJECT, "[tool.poetry]\npackages = [{ include = \"a\" }, { include = \"b/**/*.py\", from = \"src\" }, { include = \"c.py\" }, { include = \"*\" }]\n")),
  ).toEqual({
    bases: ["/p [a]", "/p/src [b]", "/p [c]"],
    anchors: [],
  });
  expect(shown(pyprojectLayout(PROJECT, "[tool.hatch.build.targets.wheel]\npackages = [\"src/foo\", \"bar/\"]\n"))).toEqual({ bases: ["/p/src [foo]", "/p [bar]"], anchors: [] });
});

test("a pyproject.toml that does not parse declares nothing", () => {
  expect(shown(pyprojectLayout(PROJECT, "[tool.setuptools\npackages = ["))).toEqual({ bases: [], anchors: [] });
});

test("setup.cfg: package_dir on one line or many, find: without where searches the \"\" folder, comments and other sections are ignored", () => {
  expect(shown(setupCfgLayout(PROJECT, "[options]\npackage_dir = =src\npackages = find:\n"))).toEqual({ bases: ["/p/src"], anchors: [] });
  expect(shown(setupCfgLayout(PROJECT, "[options]\n# where the code is\npackages = find_namespace:\n[options.packages.find]\nwhere =\n    lib\n    more\n"))).toEqual({
    bases: ["/p/lib", "/p/more"],
    anchors: [],
  });
  expect(shown(setupCfgLayout(PROJECT, "[metadata]\npackages = nope\n[options]\npackages =\n    one\n    two.sub\npackage_dir =\n    two = lib/two\n"))).toEqual({
    bases: ["/p [one,two]"],
    anchors: ["two → /p/lib/two"],
  });
});
