/**
 * The crash test's world: a root whose every batch moves it from version v to v+1 with each kind
 * of op (three rewrites, a rename back and forth, a create/delete with parent directories and a
 * chmod). Any state on disk must be exactly some version: wholly old or wholly new.
 */
import { chmod, lstat, readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { sha256Hex } from "../../src/helpers/hash.ts";
import type { CommitOp } from "../../src/patch/commit.ts";

const FILES = ["f0.txt", "f1.txt", "f2.txt"];
const FLAG = "flag\n";
const MODE_TEXT = "mode\n";
const EXTRA = path.join("nested", "deep", "extra.txt");

export function content(version: number, name: string): string {
  // Large enough that a write takes a moment, so kills land inside commits too.
  return `version ${version} ${name}\n${`${name} ${version} `.repeat(3000)}\n`;
}

function sha(text: string): string {
  return sha256Hex(Buffer.from(text));
}

export async function initialize(root: string): Promise<void> {
  for (const name of FILES) await writeFile(path.join(root, name), content(0, name));
  await writeFile(path.join(root, "flag-a"), FLAG);
  await writeFile(path.join(root, "mode.sh"), MODE_TEXT);
  await chmod(path.join(root, "mode.sh"), 0o644);
}

/** The ops that move the root from version `v` to `v + 1`. */
export function batchFor(root: string, v: number): CommitOp[] {
  const next = v + 1;
  const at = (relative: string) => path.join(root, relative);
  const ops: CommitOp[] = FILES.map((name) => ({ kind: "write", path: at(name), expectedBefore: sha(content(v, name)), after: Buffer.from(content(next, name)) }));
  ops.push(
    v % 2 === 0 ?
      { kind: "rename", from: at("flag-a"), to: at("flag-b"), expectedBefore: sha(FLAG) } :
      { kind: "rename", from: at("flag-b"), to: at("flag-a"), expectedBefore: sha(FLAG) },
  );
  ops.push(
    next % 2 === 1 ?
      { kind: "write", path: at(EXTRA), expectedBefore: null, after: Buffer.from(content(next, "extra")), mkdirParents: true } :
      { kind: "delete", path: at(EXTRA), expectedBefore: sha(content(v, "extra")), removeEmptyParentsUpTo: root },
  );
  ops.push({ kind: "chmod", path: at("mode.sh"), expectedBefore: sha(MODE_TEXT), mode: next % 2 === 0 ? 0o644 : 0o755 });
  return ops;
}

async function textOf(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch {
    return undefined;
  }
}

export function versionOf(text: string | undefined): number {
  const match = /^version (\d+) /.exec(text ?? "");
  if (match === null) throw new Error(`not a versioned file: ${JSON.stringify(text?.slice(0, 40))}`);
  return Number(match[1]);
}

/** The version the root is at; throws describing the first file that does not match it exactly. */
export async function verifyState(root: string): Promise<number> {
  const at = (relative: string) => path.join(root, relative);
  const v = versionOf(await textOf(at("f0.txt")));
  const problems: string[] = [];
  for (const name of FILES) if ((await textOf(at(name))) !== content(v, name)) problems.push(`${name} is not version ${v}`);
  const [here, gone] = v % 2 === 0 ? ["flag-a", "flag-b"] : ["flag-b", "flag-a"];
  if ((await textOf(at(here))) !== FLAG) problems.push(`${here} missing at version ${v}`);
  if ((await textOf(at(gone))) !== undefined) problems.push(`${gone} present at version ${v}`);
  if (v % 2 === 1) {
    if ((await textOf(at(EXTRA))) !== content(v, "extra")) problems.push(`extra is not version ${v}`);
  } else if ((await lstat(at("nested")).catch(() => undefined)) !== undefined) {
    problems.push(`nested/ present at version ${v}`);
  }
  const mode = (await lstat(at("mode.sh"))).mode & 0o777;
  if (mode !== (v % 2 === 0 ? 0o644 : 0o755)) problems.push(`mode.sh has mode ${mode.toString(8)} at version ${v}`);
  if ((await textOf(at("mode.sh"))) !== MODE_TEXT) problems.push("mode.sh content changed");
  const temps = (await readdir(root, { recursive: true })).filter((entry) => entry.includes(".ast-mcp-"));
  if (temps.length > 0) problems.push(`temp files left: ${temps.join(", ")}`);
  if (problems.length > 0) throw new Error(problems.join("; "));
  return v;
}
