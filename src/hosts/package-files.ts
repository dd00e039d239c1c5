/**
 * The installed package's own files: its root (found from this module, in the bundle or in the
 * source tree) and the templates the installer copies into hosts.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PRODUCT } from "../core/version.ts";

/** The nearest folder upwards holding ast-mcp's package.json. */
export function findPackageRoot(start: string): string | undefined {
  let dir = path.resolve(start);
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: unknown };
      if (pkg.name === PRODUCT) return dir;
    } catch {
      // not here; keep walking up
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

let cachedRoot: string | undefined;

/** This package's root: dist/cli.js and src/hosts/*.ts both live below it. */
function packageRoot(): string {
  cachedRoot ??= findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));
  if (!cachedRoot) throw new Error("cannot find the ast-mcp package root (package.json) above the running code");
  return cachedRoot;
}

function templatesDir(root = packageRoot()): string {
  return path.join(root, "templates");
}

/** The managed guidance block's body (templates/AGENTS.md). */
export function guidanceTemplate(root = packageRoot()): string {
  return readFileSync(path.join(templatesDir(root), "AGENTS.md"), "utf8");
}

/** Every file of the skill template as (relative POSIX path, content), sorted. */
export function skillTemplateFiles(root = packageRoot()): Array<{ relative: string; content: string }> {
  const base = path.join(templatesDir(root), "skills", PRODUCT);
  const files: Array<{ relative: string; content: string }> = [];
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      const relative = prefix === "" ? name : `${prefix}/${name}`;
      if (statSync(full).isDirectory()) walk(full, relative);
      else files.push({ relative, content: readFileSync(full, "utf8") });
    }
  };
  walk(base, "");
  return files;
}
