// Bundles the CLI for Node with Bun (a devDependency) into dist/:
//   cli.js           the bin: a CommonJS launcher (dist/package.json says "commonjs") that hands
//                    `hook` to hook.cjs and everything else to cli.mjs
//   cli.mjs + *.mjs  the CLI as ES modules, split into chunks that load per command
//   hook.cjs         `ast-mcp hook` in one CommonJS file: hosts start it before every tool call,
//                    and one script compiles faster than the ESM loader walks ~15 chunks
//   hook-config.cjs  the configuration loader for the hook, read only when its settings cache misses
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { HOOK_EXTERNALS, RUNTIME_EXTERNALS } from "./externals.mjs";

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

function fail(message) {
  console.error(`build: ${message}`);
  process.exit(1);
}

function bun(args) {
  const result = spawnSync(bunBinary(), ["build", ...args], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) fail(`bun build failed (${result.error?.message ?? `exit ${result.status}`})`);
}

// Native parsers and formatter plugins load from the installed packages, never from the build machine;
// the TypeScript compiler (for typed answers) loads lazily from its package.
const EXTERNAL = RUNTIME_EXTERNALS.flatMap((pattern) => ["--external", pattern]);

// Bun's CommonJS output would inline import.meta.url as the build machine's source path; this makes
// it the running file's URL, as in the ES module build.
const HOOK_URL = "__astMcpFileUrl";
const CJS = ["--target=node", "--format=cjs", "--sourcemap=linked", "--define", `import.meta.url=${HOOK_URL}`, "--banner", `var ${HOOK_URL} = require("node:url").pathToFileURL(__filename).href;`];

const dist = join(root, "dist");
rmSync(dist, { recursive: true, force: true });
bun([
  "src/cli.ts",
  "--target=node",
  "--format=esm",
  "--outdir",
  "dist",
  "--sourcemap=linked",
  // Commands load lazily (dynamic import in src/cli.ts); splitting keeps `ast-mcp mcp` out of the others.
  "--splitting",
  "--entry-naming",
  "[name].mjs",
  "--chunk-naming",
  "[name]-[hash].mjs",
  ...EXTERNAL,
]);
bun([
  "src/cli/hook-entry.ts",
  // (--outfile with a linked source map writes beside the source instead.)
  "--outdir",
  "dist",
  "--entry-naming",
  "hook.cjs",
  ...CJS,
  ...EXTERNAL,
  // Loaded only for allow-lists, from its package.
  ...HOOK_EXTERNALS.flatMap((pattern) => ["--external", pattern]),
  // Comes from hook-config.cjs instead (hook-entry.ts passes that loader); the default import stays unused.
  "--external",
  "*/config/load.ts",
]);
bun(["src/config/load.ts", "--outdir", "dist", "--entry-naming", "hook-config.cjs", ...CJS, ...EXTERNAL]);

writeFileSync(join(dist, "package.json"), `${JSON.stringify({ type: "commonjs" }, null, 2)}\n`);
const cli = join(dist, "cli.js");
writeFileSync(
  cli,
  `#!/usr/bin/env node
// ast-mcp's bin (written by scripts/build.mjs). Hosts run \`ast-mcp hook\` before every tool call: it
// runs from one CommonJS file without starting the ES module loader. Everything else is cli.mjs.
"use strict";
if (process.argv[2] === "hook") {
  // Node >= 22.1 keeps the compiled bundle between runs; older Node has no such cache.
  require("node:module").enableCompileCache?.();
  require("./hook.cjs");
} else {
  import("./cli.mjs");
}
`,
);
chmodSync(cli, 0o755);

// The package must run anywhere: no path of this machine may survive in the output, and the
// CommonJS files must not keep an import.meta (a syntax error outside ES modules).
const buildPaths = [pathToFileURL(root).href, `${root}/src/`];
for (const name of readdirSync(dist)) {
  if (!/\.(m|c)?js$/.test(name)) continue;
  const text = readFileSync(join(dist, name), "utf8");
  for (const path of buildPaths) if (text.includes(path)) fail(`dist/${name} contains the build path ${path}`);
  if (name.endsWith(".cjs") && text.includes("import.meta")) fail(`dist/${name} still uses import.meta`);
}
// The hook bundle may name no module of ours but its own configuration loader.
const hookText = readFileSync(join(dist, "hook.cjs"), "utf8");
const relative = [...hookText.matchAll(/\b(?:require|import)\(\s*"(\.[^"]*)"\s*\)/g)].map((match) => match[1]);
const unexpected = relative.filter((specifier) => specifier !== "../../config/load.ts");
if (unexpected.length > 0) fail(`dist/hook.cjs loads ${unexpected.join(", ")} at run time; bundle it or load it like hook-config.cjs`);
