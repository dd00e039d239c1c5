// Bundles the CLI for Node with Bun (a devDependency) into dist/.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);

function bunBinary() {
  try {
    const pkgDir = dirname(require.resolve("bun/package.json"));
    for (const candidate of ["bin/bun.exe", "bin/bun"]) {
      const path = join(pkgDir, candidate);
      if (existsSync(path)) return path;
    }
  } catch {
    // fall through to PATH
  }
  return "bun";
}

const dist = join(root, "dist");
rmSync(dist, { recursive: true, force: true });
const result = spawnSync(
  bunBinary(),
  [
    "build",
    "src/cli.ts",
    "--target=node",
    "--format=esm",
    "--outdir",
    "dist",
    "--sourcemap=linked",
    // Commands load lazily (dynamic import in src/cli.ts); splitting keeps `ast-mcp hook` from loading the server.
    "--splitting",
    // Native parsers and formatter plugins load from the installed packages, never from the build machine.
    "--external",
    "@ast-grep/*",
    "--external",
    "@dprint/*",
    // The TypeScript compiler (for typed answers) loads lazily from its package.
    "--external",
    "typescript",
  ],
  { cwd: root, stdio: "inherit" },
);
if (result.status !== 0) {
  console.error(`bun build failed (${result.error?.message ?? `exit ${result.status}`})`);
  process.exit(1);
}
const cli = join(dist, "cli.js");
const text = readFileSync(cli, "utf8");
if (!text.startsWith("#!")) writeFileSync(cli, `#!/usr/bin/env node\n${text}`);
chmodSync(cli, 0o755);
