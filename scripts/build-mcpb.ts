/**
 * Builds the Claude Desktop bundle (an MCP Bundle, `.mcpb`: a zip holding a manifest.json and the
 * server) with the @anthropic-ai/mcpb CLI. `npm run mcpb` builds dist/ first, then runs this:
 *
 *   npx bun scripts/build-mcpb.ts [--out DIR] [--cache DIR]
 *
 * DIR defaults to build/mcpb (ignored by git); the fetched tarballs are kept in DIR/cache unless
 * --cache names another folder (the bundle test shares build/mcpb/cache across runs).
 *
 * The bundle holds manifest.json (written here: the tools from the tool list, the version and the
 * Node range from package.json), dist/, templates/, a package.json naming the package, and
 * node_modules with what dist/ loads at run time — the packages scripts/externals.mjs keeps out of
 * dist/ and what they depend on, taken from package-lock.json. Packages npm did not install here
 * because they are for another platform (the prebuilt @ast-grep/napi binaries) are fetched with
 * `npm pack` into DIR/cache and checked against the lock file's integrity. The @ast-grep/lang-*
 * packages carry every platform's prebuilt parser already; their parser sources stay out.
 *
 * Exit status: 0 built; 1 failed; 75 a package had to be fetched and the npm registry is unreachable.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import pkg from "../package.json" with { type: "json" };
import type { AnyTool } from "../src/tools/contract.ts";
import { HOOK_EXTERNALS, RUNTIME_EXTERNALS } from "./externals.mjs";

const ROOT = path.resolve(import.meta.dir, "..");
/** What the exit status says when the registry could not be reached (sysexits' EX_TEMPFAIL). */
export const REGISTRY_UNREACHABLE_EXIT = 75;

interface LockEntry {
  version?: string;
  integrity?: string;
  dev?: boolean;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}
type Lock = Record<string, LockEntry>;

class RegistryUnreachable extends Error {}

/** The manifest Claude Desktop reads (MCPB manifest 0.3): how to start the server and what it offers. */
function mcpbManifest(tools: readonly AnyTool[]): Record<string, unknown> {
  return {
    manifest_version: "0.3",
    name: pkg.name,
    display_name: pkg.name,
    version: pkg.version,
    description: pkg.description,
    long_description:
      "Reads files by line range and hash, answers code questions from a syntax-tree index of over twenty languages, and changes code only through guarded writes: hash-checked, syntax-checked, journaled and undoable. Every path stays inside the folders you choose.",
    author: { name: "The ast-mcp authors" },
    license: pkg.license,
    keywords: ["code", "syntax tree", "refactoring", "search", "ast-grep"],
    server: {
      type: "node",
      entry_point: "dist/cli.js",
      mcp_config: {
        command: "node",
        // Each chosen folder becomes one ROOT argument (a list expands to separate arguments).
        args: ["${__dirname}/dist/cli.js", "mcp", "${user_config.roots}"],
        env: {},
      },
    },
    tools: tools.map((tool) => ({ name: tool.name, description: tool.title })),
    tools_generated: false,
    compatibility: {
      platforms: ["darwin", "win32", "linux"],
      runtimes: { node: pkg.engines.node },
    },
    user_config: {
      roots: {
        type: "directory",
        title: "Project folders",
        description: "The folders ast-mcp may read and change. Nothing outside them is ever touched.",
        multiple: true,
        required: true,
      },
    },
  };
}

/** Does a package name match one of the `--external` patterns ("@scope/*" or an exact name)? */
function matchesExternal(name: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => (pattern.endsWith("/*") ? name.startsWith(pattern.slice(0, -1)) : name === pattern));
}

/** Where Node would find `name` from the package at lock path `from`: its own node_modules, then each one above. */
function locate(lock: Lock, name: string, from: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = base === "" ? `node_modules/${name}` : `${base}/node_modules/${name}`;
    if (lock[candidate]) return candidate;
    if (base === "") return undefined;
    const cut = base.lastIndexOf("/node_modules/");
    base = cut === -1 ? "" : base.slice(0, cut);
  }
}

/** Lock paths of the run-time packages: the externals package.json depends on, and their dependencies, optional ones included. */
function runtimePackages(lock: Lock, dependencies: Readonly<Record<string, string>>): string[] {
  const patterns = [...RUNTIME_EXTERNALS, ...HOOK_EXTERNALS];
  const pending = Object.keys(dependencies).filter((name) => matchesExternal(name, patterns)).map((name) => `node_modules/${name}`);
  const found = new Set<string>();
  while (pending.length > 0) {
    const at = pending.pop()!;
    if (found.has(at)) continue;
    const entry = lock[at];
    if (!entry) throw new Error(`package-lock.json has no ${at}: run npm install`);
    if (entry.dev) throw new Error(`${at} is a dev dependency in package-lock.json, yet dist/ loads it at run time`);
    found.add(at);
    for (
      const [name, optional] of [
        ...Object.keys(entry.dependencies ?? {}).map((name) => [name, false] as const),
        ...Object.keys(entry.optionalDependencies ?? {}).map((name) => [name, true] as const),
      ]
    ) {
      const next = locate(lock, name, at);
      if (next === undefined) {
        if (optional) continue;
        throw new Error(`package-lock.json cannot resolve ${name}, a dependency of ${at}`);
      }
      pending.push(next);
    }
  }
  return [...found].sort();
}

/** The lock path's package name: the part after its last node_modules/. */
function packageName(lockPath: string): string {
  return lockPath.slice(lockPath.lastIndexOf("node_modules/") + "node_modules/".length);
}

function integrityOf(file: string): string {
  return `sha512-${createHash("sha512").update(readFileSync(file)).digest("base64")}`;
}

function run(command: string, args: string[], cwd = ROOT): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, npm_config_update_notifier: "false" } });
  return { status: result.status, stdout: result.stdout ?? "", stderr: `${result.stderr ?? ""}${result.error ? String(result.error) : ""}` };
}

/** npm's own words for a failure: its "npm error" lines, without the pointer to its log file. */
function npmError(stderr: string): string {
  const lines = stderr.split("\n").filter((line) => line.startsWith("npm error") && !line.includes("complete log"));
  return (lines.length > 0 ? lines.slice(0, 2).join("; ") : stderr.trim()) || "no output";
}

/** Asked once per build, and only when a package must be fetched: an unreachable registry fails fast instead of after npm's retries. */
let registryAnswered = false;
function requireRegistry(): void {
  if (registryAnswered) return;
  const ping = run("npm", ["ping", "--fetch-retries=0", "--fetch-timeout=30000"]);
  if (ping.status !== 0) throw new RegistryUnreachable(`the npm registry is unreachable (npm ping: ${npmError(ping.stderr)})`);
  registryAnswered = true;
}

/** The package's tarball from the npm registry (cached in `cache`), checked against the lock file's integrity. */
function fetchTarball(name: string, entry: LockEntry, cache: string): string {
  const file = path.join(cache, `${name.replace("@", "").replace("/", "-")}-${entry.version}.tgz`);
  if (existsSync(file) && integrityOf(file) === entry.integrity) return file;
  requireRegistry();
  mkdirSync(cache, { recursive: true });
  const packed = run("npm", ["pack", `${name}@${entry.version}`, "--pack-destination", cache, "--json"]);
  if (packed.status !== 0) throw new Error(`npm pack ${name}@${entry.version} failed: ${npmError(packed.stderr)}`);
  if (!existsSync(file)) throw new Error(`npm pack ${name}@${entry.version} did not write ${path.basename(file)}`);
  const integrity = integrityOf(file);
  if (integrity !== entry.integrity) throw new Error(`${name}@${entry.version} from the registry is not the one package-lock.json pins (${integrity} ≠ ${entry.integrity})`);
  return file;
}

/** Copies one installed package without its nested node_modules (those are packages of their own here), and, for a grammar, without its parser sources. */
function copyInstalled(lockPath: string, stage: string): void {
  const from = path.join(ROOT, lockPath);
  const grammar = packageName(lockPath).startsWith("@ast-grep/lang-");
  cpSync(from, path.join(stage, lockPath), {
    recursive: true,
    filter: (source) => {
      const relative = path.relative(from, source);
      if (relative === "node_modules" || relative.startsWith(`node_modules${path.sep}`)) return false;
      // The tree-sitter sources (tens of MB) only matter to a build from source; a root parser.so is a
      // copy of this machine's prebuild made on install, wrong on any other platform.
      if (grammar && (relative === "src" || relative.startsWith(`src${path.sep}`) || relative === "parser.so")) return false;
      return true;
    },
  });
}

function unpackTarball(tarball: string, destination: string): void {
  mkdirSync(destination, { recursive: true });
  // npm tarballs hold everything under package/.
  const result = run("tar", ["-xzf", tarball, "-C", destination, "--strip-components=1"]);
  if (result.status !== 0) throw new Error(`tar could not unpack ${tarball}: ${result.stderr.trim()}`);
}

function copyDist(stage: string): void {
  const dist = path.join(ROOT, "dist");
  if (!existsSync(path.join(dist, "cli.js"))) throw new Error("dist/ is not built: run node scripts/build.mjs (npm run mcpb does)");
  cpSync(dist, path.join(stage, "dist"), { recursive: true, filter: (source) => !source.endsWith(".map") });
}

/** The package.json the bundle carries: the package root the server looks for (its templates sit beside it). */
function stagedPackageJson(): string {
  const { name, version, description, license, type, bin, engines } = pkg;
  return `${JSON.stringify({ name, version, description, license, type, bin, engines, private: true }, null, 2)}\n`;
}

/** Builds the bundle into `out`; returns its path. */
async function build(out: string, cacheDir?: string): Promise<string> {
  const stage = path.join(out, "stage");
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  const { TOOLS } = await import("../src/tools/index.ts");
  writeFileSync(path.join(stage, "manifest.json"), `${JSON.stringify(mcpbManifest(TOOLS), null, 2)}\n`);
  writeFileSync(path.join(stage, "package.json"), stagedPackageJson());
  // mcpb pack leaves out every *.d.ts; the TypeScript service needs the compiler's lib files.
  writeFileSync(path.join(stage, ".mcpbignore"), "!node_modules/typescript/lib/*.d.ts\n");
  copyDist(stage);
  cpSync(path.join(ROOT, "templates"), path.join(stage, "templates"), { recursive: true });

  const lock = (JSON.parse(readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as { packages: Lock }).packages;
  const cache = cacheDir ?? path.join(out, "cache");
  let fetched = 0;
  for (const lockPath of runtimePackages(lock, pkg.dependencies)) {
    if (existsSync(path.join(ROOT, lockPath, "package.json"))) {
      copyInstalled(lockPath, stage);
      continue;
    }
    const entry = lock[lockPath]!;
    // Only another platform's optional package may be missing here; anything else means a broken install.
    if (!entry.optional || (entry.os === undefined && entry.cpu === undefined)) throw new Error(`${lockPath} is not installed: run npm ci`);
    unpackTarball(fetchTarball(packageName(lockPath), entry, cache), path.join(stage, lockPath));
    fetched++;
  }

  const bundle = path.join(out, `${pkg.name}-${pkg.version}.mcpb`);
  rmSync(bundle, { force: true });
  const cli = path.join(path.dirname(createRequire(import.meta.url).resolve("@anthropic-ai/mcpb/package.json")), "dist", "cli", "cli.js");
  const packed = run(process.execPath.includes("bun") ? "node" : process.execPath, [cli, "pack", stage, bundle]);
  if (packed.status !== 0 || !existsSync(bundle)) throw new Error(`mcpb pack failed:\n${packed.stdout}\n${packed.stderr}`);
  const bytes = readFileSync(bundle);
  console.error(
    `built ${path.relative(process.cwd(), bundle)}: ${(statSync(bundle).size / 1024 / 1024).toFixed(1)} MiB, ${
      readdirSync(path.join(stage, "node_modules", "@ast-grep")).length
    } @ast-grep packages (${fetched} fetched for other platforms), sha256 ${createHash("sha256").update(bytes).digest("hex")}`,
  );
  return bundle;
}

if (import.meta.main) {
  const option = (name: string): string | undefined => {
    const at = process.argv.indexOf(name);
    return at === -1 ? undefined : path.resolve(process.argv[at + 1] ?? "");
  };
  try {
    console.log(await build(option("--out") ?? path.join(ROOT, "build", "mcpb"), option("--cache")));
  } catch (error) {
    console.error(`build-mcpb: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(error instanceof RegistryUnreachable ? REGISTRY_UNREACHABLE_EXIT : 1);
  }
}
