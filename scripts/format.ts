/**
 * Formats the project's own TypeScript with the dprint TypeScript plugin ast-mcp formats users'
 * code with, read through the same dprint.json parser (src/patch/format.ts parseDprintConfig), so
 * an edit ast-mcp makes to this repository and `npm run format` agree.
 *
 *   npx bun scripts/format.ts           rewrite files that are not formatted
 *   npx bun scripts/format.ts --check   list them and exit 1 (nothing is written)
 *   npx bun scripts/format.ts --check src/server   only under these paths
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { createFromBuffer } from "@dprint/formatter";
import { parseDprintConfig } from "../src/patch/format.ts";

const ROOT = path.resolve(import.meta.dir, "..");
/** The project's own code: what the lint covers too. */
const DEFAULT_PATHS = ["src", "test", "scripts", "bench", "stress"];

function typeScriptFiles(entry: string, out: string[]): string[] {
  const absolute = path.resolve(ROOT, entry);
  if (/\.(ts|mts|tsx)$/.test(absolute)) {
    out.push(absolute);
    return out;
  }
  let names: string[];
  try {
    names = readdirSync(absolute);
  } catch {
    return out;
  }
  for (const name of names.sort()) {
    // Fixtures are inputs whose bytes tests pin (line numbers, spacing): never reformatted.
    if (name === "node_modules" || name === "dist" || name === "results" || name === "fixtures" || name.startsWith(".")) continue;
    typeScriptFiles(path.join(absolute, name), out);
  }
  return out;
}

/** The TypeScript files under `paths` (files or directories, relative to the project root) that are not formatted; with `write`, formats them too. */
export function formatFiles(paths: readonly string[] = DEFAULT_PATHS, write = false): string[] {
  const settings = parseDprintConfig(readFileSync(path.join(ROOT, "dprint.json"), "utf8"));
  if ("error" in settings) throw new Error(`dprint.json: ${settings.error}`);
  const plugin = createRequire(import.meta.url).resolve("@dprint/typescript/plugin.wasm");
  const formatter = createFromBuffer(readFileSync(plugin));
  formatter.setConfig(settings.global, settings.sections.typescript ?? {});
  const unformatted: string[] = [];
  for (const file of paths.flatMap((entry) => typeScriptFiles(entry, []))) {
    const text = readFileSync(file, "utf8");
    const formatted = formatter.formatText({ filePath: file, fileText: text });
    if (formatted === text) continue;
    unformatted.push(path.relative(ROOT, file));
    if (write) writeFileSync(file, formatted);
  }
  return unformatted;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const check = args.includes("--check");
  const paths = args.filter((arg) => !arg.startsWith("--"));
  const unformatted = formatFiles(paths.length > 0 ? paths : DEFAULT_PATHS, !check);
  if (check && unformatted.length > 0) {
    console.error(`${unformatted.length} file(s) not formatted (run npm run format):\n${unformatted.join("\n")}`);
    process.exit(1);
  }
  console.log(check ? "every file is formatted" : `formatted ${unformatted.length} file(s)`);
}
