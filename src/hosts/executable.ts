/**
 * The command host entries run. Hosts start servers long after `install` ran, so the entry must
 * name something that stays: `ast-mcp` when that name on PATH is this installation, else the
 * absolute path of the install's bin, and never a path inside an npx/bunx/dlx cache.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { PRODUCT } from "../core/version.ts";
import { findPackageRoot } from "./package-files.ts";

/** How to put ast-mcp on PATH: the package is not on the npm registry, so from a checkout (README says the same). */
export const GLOBAL_INSTALL = "`npm install -g <path to your ast-mcp checkout>`";

export interface ExecutableInfo {
  /** What entries run: "ast-mcp" (found on PATH) or an absolute path. */
  command: string;
  /** An absolute path of the same executable (for service units, which want one). */
  absolute: string;
  source: "path" | "local-bin" | "global-bin" | "package";
  packageRoot: string;
}

export class ExecutableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ExecutableError";
  }
}

/** Folders that package runners delete when they like (npx, bunx, pnpm dlx, yarn dlx). */
function isEphemeralLocation(location: string): boolean {
  const segments = location.split(/[\\/]+/);
  return segments.some((segment) => segment === "_npx" || segment.startsWith("bunx-") || segment.startsWith("dlx-") || segment === ".pnpm-dlx" || segment === "xfs-");
}

async function realOrNull(target: string): Promise<string | null> {
  try {
    return await fs.realpath(target);
  } catch {
    return null;
  }
}

async function isExecutableFile(target: string, platform: NodeJS.Platform): Promise<boolean> {
  try {
    const stats = await fs.stat(target);
    return stats.isFile() && (platform === "win32" || (stats.mode & 0o111) !== 0);
  } catch {
    return false;
  }
}

/** Every `ast-mcp` on PATH, in PATH order. */
export async function findOnPath(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): Promise<string[]> {
  const value = env.PATH ?? env.Path ?? "";
  const delimiter = platform === "win32" ? ";" : ":";
  const names = platform === "win32" ? [`${PRODUCT}.cmd`, `${PRODUCT}.exe`, `${PRODUCT}.ps1`, PRODUCT] : [PRODUCT];
  const found: string[] = [];
  for (const dir of value.split(delimiter)) {
    if (dir === "") continue;
    for (const name of names) {
      const candidate = path.join(dir, name);
      if (await isExecutableFile(candidate, platform)) found.push(candidate);
    }
  }
  return found;
}

/** The bin a package manager linked for a package installed at `root` (local or global), if any. */
async function installedBin(root: string, platform: NodeJS.Platform): Promise<{ bin: string; kind: "local-bin" | "global-bin" } | undefined> {
  const parent = path.dirname(root);
  if (path.basename(parent) !== "node_modules") return undefined;
  const candidates: Array<{ bin: string; kind: "local-bin" | "global-bin" }> = [];
  candidates.push({ bin: path.join(parent, ".bin", platform === "win32" ? `${PRODUCT}.cmd` : PRODUCT), kind: "local-bin" });
  if (platform === "win32") candidates.push({ bin: path.join(path.dirname(parent), `${PRODUCT}.cmd`), kind: "global-bin" });
  else if (path.basename(path.dirname(parent)) === "lib") candidates.push({ bin: path.join(path.dirname(path.dirname(parent)), "bin", PRODUCT), kind: "global-bin" });
  for (const candidate of candidates) if (await isExecutableFile(candidate.bin, platform)) return candidate;
  return undefined;
}

/**
 * Decides what host entries run, given the running CLI script (`process.argv[1]`).
 * Throws ExecutableError when only an ephemeral copy is available.
 */
export async function resolveExecutable(options: { cliPath: string; env: NodeJS.ProcessEnv; platform?: NodeJS.Platform }): Promise<ExecutableInfo> {
  const platform = options.platform ?? process.platform;
  const cliReal = (await realOrNull(options.cliPath)) ?? path.resolve(options.cliPath);
  const root = findPackageRoot(path.dirname(cliReal));
  if (!root) throw new ExecutableError(`cannot find the ast-mcp package above ${cliReal}`);
  const ephemeral = isEphemeralLocation(root);

  for (const candidate of await findOnPath(options.env, platform)) {
    const real = await realOrNull(candidate);
    if (real === null) continue;
    const sameInstall = real === cliReal || findPackageRoot(path.dirname(real)) === root;
    // From an npx cache, another stable install on PATH is the one to point at.
    if (sameInstall ? !ephemeral : ephemeral && !isEphemeralLocation(real)) {
      const stableRoot = findPackageRoot(path.dirname(real)) ?? root;
      return { command: PRODUCT, absolute: candidate, source: "path", packageRoot: stableRoot };
    }
  }
  if (ephemeral) {
    throw new ExecutableError(
      `ast-mcp is running from a package runner's cache (${root}), which is deleted without notice, so hosts could not start it later. ` +
        `Install it first (${GLOBAL_INSTALL}, or \`npm install --save-dev <path to the checkout>\` in the project) and run \`ast-mcp install\` from that install.`,
    );
  }
  const bin = await installedBin(root, platform);
  if (bin) return { command: bin.bin, absolute: bin.bin, source: bin.kind, packageRoot: root };
  const cli = path.join(root, "dist", "cli.js");
  return { command: cli, absolute: cli, source: "package", packageRoot: root };
}
