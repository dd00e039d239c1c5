/** The bench's corpus preparation drops what the index skips, and nothing it would index. */
import { expect, test } from "bun:test";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { dropSkippedDirs } from "../../bench/corpora.ts";
import { makeTempDir } from "../support/context.ts";

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name))).sort();
}

test("a corpus copy keeps output-named folders deep in a tree (src/go/build, src/cmd/dist) and drops those at a project root", async () => {
  const temp = await makeTempDir("ast-mcp-corpus-");
  try {
    await temp.write("go-1.19/src/go.mod", "module std\n");
    await temp.write("go-1.19/src/go/build/build.go", "package build\n");
    await temp.write("go-1.19/src/vendor/golang.org/x/net/idna/idna.go", "package idna\n");
    await temp.write("go-1.19/src/cmd/go.mod", "module cmd\n");
    await temp.write("go-1.19/src/cmd/dist/main.go", "package main\n");
    await temp.write("pkg/package.json", "{}\n");
    await temp.write("pkg/dist/out.js", "x\n");
    await temp.write("pkg/node_modules/dep/index.js", "x\n");
    await temp.write("build/root.txt", "x\n");
    await dropSkippedDirs(temp.dir);
    expect(await filesUnder(temp.dir)).toEqual([
      "go-1.19/src/cmd/dist/main.go",
      "go-1.19/src/cmd/go.mod",
      "go-1.19/src/go.mod",
      "go-1.19/src/go/build/build.go",
      "pkg/package.json",
    ]);
  } finally {
    await temp.cleanup();
  }
});
