/**
 * Reads the repository files that steer module resolution (tsconfig.json, package.json, go.mod,
 * Cargo.toml, pnpm-workspace.yaml). They are untrusted: a path they name is checked against the
 * roots on its text first (outside → reported, never touched), then resolved by the workspace
 * policy, and only the real path the policy returned is read.
 */
import type { Stats } from "node:fs";
import { lstat } from "node:fs/promises";
import path from "node:path";
import { parse as parseJsonc, type ParseError } from "jsonc-parser/lib/esm/main.js";
import { isToolError } from "../../core/errors.ts";
import { LIMITS } from "../../core/limits.ts";
import { log } from "../../core/log.ts";
import type { EntryIdentity } from "../../policy/beneath.ts";
import { readBounded, realTarget } from "../../policy/open.ts";
import { locateLexically } from "../../policy/roots.ts";
import type { Workspace } from "../../policy/workspace.ts";

/**
 * The file-system calls the resolver makes on paths the policy already resolved. One object so
 * tests can watch every call (no path outside the roots may ever reach it).
 */
export const graphFs = {
  /** Through the policy's one reader: beneath the file system root, no link followed, and the entry the policy resolved. */
  readFile: (real: string, maxBytes: number, identity?: EntryIdentity) => readBounded({ ...realTarget(real, real), ...(identity ? { identity } : {}) }, maxBytes),
  lstat: (real: string): Promise<Stats> => lstat(real),
};

export type ConfigRead =
  | { status: "ok"; real: string; display: string; text: string }
  | { status: "missing" }
  | { status: "outside_roots" }
  | { status: "denied"; detail: string }
  | { status: "unreadable"; detail: string };

interface Stamp {
  size: number;
  mtimeMs: number;
}

/** Text containment against the roots (given and real spellings); no file-system call. */
function insideRoots(workspace: Workspace, absolute: string): boolean {
  return locateLexically(workspace.roots, path.normalize(absolute)) !== undefined;
}

function isInside(parent: string, child: string): boolean {
  return child === parent || (child.startsWith(parent) && (parent.endsWith(path.sep) || child.charCodeAt(parent.length) === SEPARATOR));
}

const SEPARATOR = path.sep.charCodeAt(0);

/** JSON with comments and trailing commas, as tsconfig files are written; undefined when it is not an object. */
export function parseJsoncObject(text: string): Record<string, unknown> | undefined {
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export class ConfigFiles {
  #workspace: Workspace;
  readonly #reads = new Map<string, Promise<ConfigRead>>();
  readonly #denials = new Map<string, Promise<boolean>>();
  /** Files found, with what they looked like when read: a changed stamp invalidates the cache. */
  readonly #stamps = new Map<string, Stamp>();

  constructor(workspace: Workspace) {
    this.#workspace = workspace;
  }

  get workspace(): Workspace {
    return this.#workspace;
  }

  /** A new session's workspace over the same roots; the cached reads stay valid only if the roots are the same. */
  useWorkspace(workspace: Workspace): void {
    const same = workspace.roots.length === this.#workspace.roots.length &&
      workspace.roots.every((root, index) => root.real === this.#workspace.roots[index]?.real && root.path === this.#workspace.roots[index]?.path);
    this.#workspace = workspace;
    if (!same) this.invalidate();
  }

  /** insideRoots for a path already made absolute and normalized (path.resolve output), on the hot path of every specifier. */
  inside(absolute: string): boolean {
    for (const root of this.#workspace.roots) if (isInside(root.real, absolute) || isInside(root.path, absolute)) return true;
    return false;
  }

  /** Reads one steering file by absolute path, once per cache lifetime. */
  read(absolute: string): Promise<ConfigRead> {
    const key = path.normalize(absolute);
    let pending = this.#reads.get(key);
    if (!pending) {
      pending = this.#load(key);
      this.#reads.set(key, pending);
    }
    return pending;
  }

  async #load(absolute: string): Promise<ConfigRead> {
    if (!insideRoots(this.#workspace, absolute)) return { status: "outside_roots" };
    let resolved;
    try {
      resolved = await this.#workspace.resolve(absolute, "read");
    } catch (error) {
      if (!isToolError(error)) throw error;
      if (error.code === "path_outside_roots") return { status: "outside_roots" };
      if (error.code === "path_denied") return { status: "denied", detail: error.message };
      return { status: "unreadable", detail: error.message };
    }
    if (!resolved.exists) return { status: "missing" };
    if (resolved.kind !== "file") return resolved.kind === "directory" ? { status: "missing" } : { status: "unreadable", detail: `${resolved.display} is not a regular file` };
    try {
      const loaded = await graphFs.readFile(resolved.real, LIMITS.intel.graph.maxConfigBytes, resolved.identity);
      if (loaded === "gone") return { status: "unreadable", detail: `${resolved.display} is not a regular file (or changed while being read)` };
      if (loaded === "too_large" || "skipped" in loaded) {
        return { status: "unreadable", detail: `${resolved.display} is larger than ${LIMITS.intel.graph.maxConfigBytes} bytes` };
      }
      this.#stamps.set(resolved.real, { size: loaded.stats.size, mtimeMs: loaded.stats.mtimeMs });
      return { status: "ok", real: resolved.real, display: resolved.display, text: loaded.bytes.toString("utf8") };
    } catch (error) {
      log.debug("a resolution config file could not be read", { path: resolved.display, error });
      return { status: "unreadable", detail: `${resolved.display} could not be read` };
    }
  }

  /**
   * Whether a policy rule forbids reading a path inside the roots (a module candidate that is not
   * indexed may be hidden by a rule rather than missing). The policy decides on the path's text
   * and its links; the answer does not depend on whether the file exists.
   */
  denied(absolute: string): Promise<boolean> {
    const key = path.normalize(absolute);
    let pending = this.#denials.get(key);
    if (!pending) {
      pending = insideRoots(this.#workspace, key) ?
        this.#workspace.check(key, "read").then((decision) => decision.code === "path_denied", () => false) :
        Promise.resolve(false);
      this.#denials.set(key, pending);
    }
    return pending;
  }

  /** Whether every file read so far still has the size and mtime it had (missing files are not re-probed here). */
  async unchanged(): Promise<boolean> {
    for (const [real, stamp] of this.#stamps) {
      try {
        const stats = await graphFs.lstat(real);
        if (!stats.isFile() || stats.size !== stamp.size || stats.mtimeMs !== stamp.mtimeMs) return false;
      } catch {
        return false;
      }
    }
    return true;
  }

  invalidate(): void {
    this.#reads.clear();
    this.#denials.clear();
    this.#stamps.clear();
  }
}
