/**
 * The workspace: the only authority on paths. Every path argument goes through resolve() (or
 * check()) before any other file system call. Answers about paths outside the roots depend on
 * the input text alone, so the policy is never an oracle for what exists outside.
 */
import { type Dirent, readdirSync } from "node:fs";
import path from "node:path";
import type { EffectiveConfig } from "../config/schema.ts";
import { isToolError, ToolError, type ErrorCode } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { assertWellFormedPath, findControlCharacter, relativeInside, toPosix } from "../helpers/path-text.ts";
import { ChangedBeneath, changedError, type EntryIdentity, holdBeneath, sameEntry } from "./beneath.ts";
import * as messages from "./messages.ts";
import { resolvedTarget } from "./open.ts";
import { type WalkOptions, type WalkResult, walkRealPath } from "./resolve.ts";
import { loadRoots, locateLexically, locateReal, realForm, type RootLocation } from "./roots.ts";
import { RuleSet, type Aspect, type PolicyLocation, type Verdict } from "./rules.ts";
import { BASE_RULE, type Operation, type PathKind, type Root, type RuleRef } from "./types.ts";

export type { Operation, PathKind, Root, RuleRef } from "./types.ts";

export interface ResolvedPath {
  input: string;
  /** The input made absolute and normalized, before any link was followed. */
  absolute: string;
  /** Real path: no symlinks up to the last existing segment. Open this, never the input. */
  real: string;
  root: Root;
  /** Relative to root.real, POSIX separators, "" for the root itself. */
  relative: string;
  /** Relative to the first root when inside it, else absolute; always valid as input again. */
  display: string;
  exists: boolean;
  kind: PathKind;
  /** The rule that decided this operation. */
  rule: RuleRef;
  /** What the path named when the policy resolved it (absent when it does not exist); the reader opens only this entry. */
  identity?: EntryIdentity;
}

export type PolicyCode = "path_outside_roots" | "path_denied" | "invalid_path" | "no_roots";

export interface Decision {
  path: string;
  operation: Operation;
  allowed: boolean;
  code?: PolicyCode;
  rule?: RuleRef;
  reason: string;
  display?: string;
}

export interface DirectoryEntry {
  name: string;
  display: string;
  real: string;
  root: Root;
  /** Relative to root.real, POSIX separators. */
  relative: string;
  /** What the entry is, after following it when it is a link. */
  kind: PathKind;
  symlink: boolean;
}

export interface DirectoryListing {
  directory: ResolvedPath;
  /** Entries allowed for read, sorted by name. */
  entries: DirectoryEntry[];
  /** Entries left out: denied for read, links leading out of the roots, or names no tool could pass back. */
  hidden: number;
}

const POLICY_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["path_outside_roots", "path_denied", "invalid_path", "no_roots"]);

function isPolicyError(error: unknown): error is ToolError & { code: PolicyCode } {
  return isToolError(error) && POLICY_CODES.has(error.code);
}

function ruleFromDenial(error: ToolError): RuleRef | undefined {
  const rule = error.details?.rule as { path?: unknown; source?: unknown } | undefined;
  if (typeof rule?.path !== "string" || typeof rule.source !== "string") return undefined;
  return { path: rule.path, source: rule.source, access: "deny" };
}

/**
 * Reads a resolved directory through a descriptor held from its root, confirming it is the
 * directory the policy resolved: a swap of it or a parent for a link is path_changed, never a listing of elsewhere.
 */
function readHeldDirectory(directory: ResolvedPath): Dirent[] {
  let held;
  try {
    held = holdBeneath(directory.root.real, resolvedTarget(directory).segments);
  } catch (error) {
    if (error instanceof ChangedBeneath) throw changedError(directory.display, error);
    throw messages.ioError(directory.display, error);
  }
  try {
    if (directory.identity && !sameEntry(directory.identity, held.identity)) {
      throw changedError(directory.display, new ChangedBeneath(directory.real, "replaced"));
    }
    return readdirSync(held.self(), { withFileTypes: true });
  } catch (error) {
    if (isToolError(error)) throw error;
    throw messages.ioError(directory.display, error);
  } finally {
    held.close();
  }
}

export class Workspace {
  /** The roots paths must lie in (configured, or narrowed by the client). */
  readonly roots: readonly Root[];
  /** The configured roots rules are relative to; narrowing never changes what a rule matches. */
  readonly #ruleRoots: readonly Root[];
  readonly #rules: RuleSet;
  /** Configured roots left out because they do not exist or are not directories. */
  readonly unusableRoots: readonly string[];
  readonly #noRootsReason: messages.NoRootsReason;

  private constructor(
    roots: readonly Root[],
    ruleRoots: readonly Root[],
    rules: RuleSet,
    unusableRoots: readonly string[],
    noRootsReason: messages.NoRootsReason,
  ) {
    this.roots = Object.freeze([...roots]);
    this.#ruleRoots = ruleRoots;
    this.#rules = rules;
    this.unusableRoots = Object.freeze([...unusableRoots]);
    this.#noRootsReason = noRootsReason;
  }

  /** Roots that do not exist or are not directories are left out (see unusableRoots), never fatal. */
  static async create(config: Pick<EffectiveConfig, "workspace" | "paths">): Promise<Workspace> {
    const { roots, unusable } = await loadRoots(config.workspace.roots);
    const reason: messages.NoRootsReason = unusable.length > 0 ? { kind: "unusable", roots: unusable } : { kind: "none" };
    return new Workspace(roots, roots, new RuleSet(config.paths, roots), unusable, reason);
  }

  /**
   * An opaque token for caches of policy answers: the same for every narrowing of one configuration,
   * different once the rules change. Combine it with the roots; never inspect it.
   */
  get policyIdentity(): object {
    return this.#rules;
  }

  /** Throws ToolError(invalid_path | no_roots | path_outside_roots | path_denied), or io_error when an in-root lstat fails. */
  async resolve(input: string, operation: Operation): Promise<ResolvedPath> {
    return this.#evaluate(input, operation).resolved;
  }

  /** The same decision as resolve(), reported instead of thrown. */
  async check(input: string, operation: Operation): Promise<Decision> {
    try {
      const { resolved } = this.#evaluate(input, operation);
      const reason = resolved.rule === BASE_RULE ?
        `${operation} is allowed: inside root ${resolved.root.path} and no rule restricts it.` :
        `${operation} is allowed by rule ${JSON.stringify(resolved.rule.path)} from ${resolved.rule.source}.`;
      return { path: input, operation, allowed: true, rule: resolved.rule, reason, display: resolved.display };
    } catch (error) {
      if (!isPolicyError(error)) throw error;
      const decision: Decision = { path: input, operation, allowed: false, code: error.code, reason: error.message };
      if (error.code === "path_denied") {
        const rule = ruleFromDenial(error);
        if (rule) decision.rule = rule;
        decision.display = this.display(realForm(this.#locateInput(input).location));
      }
      return decision;
    }
  }

  /**
   * The workspace seen through the client's roots (absolute paths): client roots inside a
   * configured root narrow it, configured roots inside a client root are selected. Never wider;
   * with no overlap the result has no roots.
   */
  async narrow(clientRootPaths: string[]): Promise<Workspace> {
    const narrowed: Root[] = [];
    const add = (root: Root) => {
      if (!narrowed.some((existing) => existing.real === root.real)) narrowed.push(Object.freeze({ ...root }));
    };
    for (const given of clientRootPaths) {
      if (typeof given !== "string" || !path.isAbsolute(given)) continue;
      if (given.length > LIMITS.pathChars || findControlCharacter(given) >= 0) continue;
      const client = path.resolve(given);
      const inside = locateLexically(this.roots, client);
      if (inside) {
        try {
          const walked = walkRealPath(inside, this.#walkOptions(given, "read"));
          if (walked.kind === "directory") add({ path: client, real: walked.real });
        } catch (error) {
          if (!isToolError(error)) throw error;
          // A client root that leads out, is refused, or cannot be inspected is simply not a root.
        }
      }
      for (const root of this.roots) {
        const selected = relativeInside(client, root.path, path.sep) !== undefined || relativeInside(client, root.real, path.sep) !== undefined;
        if (selected) add(root);
      }
    }
    return new Workspace(narrowed, this.#ruleRoots, this.#rules, this.unusableRoots, { kind: "narrowed" });
  }

  /** How a real path is shown: relative to the first root when inside it ("." for the root), else absolute. */
  display(realPath: string): string {
    const first = this.roots[0];
    if (first) {
      const rest = relativeInside(first.real, realPath, path.sep);
      if (rest !== undefined) return rest === "" ? "." : toPosix(rest, path.sep);
    }
    return realPath;
  }

  /**
   * Lists the entries of an in-root directory that are allowed for read (used by directory
   * walks). Links are resolved like any input; those leading out or denied are left out and
   * counted. Synchronous like the walk (see resolve.ts): the code index lists thousands of directories.
   */
  listDirectory(input: string): DirectoryListing {
    const { resolved: directory, lexical } = this.#evaluate(input, "read");
    this.#checkListable(directory);
    const dirents = readHeldDirectory(directory);
    const listing = this.#plainEntries(directory, lexical, dirents);
    for (const name of listing.links) {
      try {
        this.#addLink(listing, name, this.#evaluate(path.join(directory.real, name), "read").resolved);
      } catch (error) {
        if (!isPolicyError(error)) throw error;
        listing.hidden += 1;
      }
    }
    return this.#sorted(listing);
  }

  #checkListable(directory: ResolvedPath): void {
    if (!directory.exists) throw new ToolError("file_not_found", `Directory ${JSON.stringify(directory.display)} does not exist.`);
    if (directory.kind !== "directory") {
      throw new ToolError("invalid_input", `${JSON.stringify(directory.display)} is not a directory.`, { hint: "Pass a directory path." });
    }
  }

  /** The entries that are not links, decided by name alone; links are left for the caller to resolve. */
  #plainEntries(
    directory: ResolvedPath,
    directoryLexical: string,
    dirents: ReadonlyArray<{ name: string; isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }>,
  ): DirectoryListing & { links: string[] } {
    const entries: DirectoryEntry[] = [];
    const links: string[] = [];
    let hidden = 0;
    for (const dirent of dirents) {
      const name = dirent.name;
      const lexical = path.join(directoryLexical, name);
      if (findControlCharacter(name) >= 0 || !this.#verdict("read", lexical).allowed) {
        hidden += 1;
        continue;
      }
      if (dirent.isSymbolicLink()) {
        links.push(name);
        continue;
      }
      const real = path.join(directory.real, name);
      const display = this.display(real);
      // Reached through no link, the real path is the path as given: its verdict is the one above.
      if ((real !== lexical && !this.#verdict("read", real).allowed) || display.length > LIMITS.pathChars) {
        hidden += 1;
        continue;
      }
      const kind: PathKind = dirent.isFile() ? "file" : dirent.isDirectory() ? "directory" : "other";
      const relative = directory.relative === "" ? name : `${directory.relative}/${name}`;
      entries.push({ name, display, real, root: directory.root, relative, kind, symlink: false });
    }
    return { directory, entries, hidden, links };
  }

  /** A link, resolved like any input, joins the listing (as what it leads to). */
  #addLink(listing: DirectoryListing, name: string, resolved: ResolvedPath): void {
    if (resolved.display.length > LIMITS.pathChars) {
      listing.hidden += 1;
      return;
    }
    const { root, relative, display, kind } = resolved;
    listing.entries.push({ name, display, real: resolved.real, root, relative, kind, symlink: true });
  }

  #sorted(listing: DirectoryListing & { links?: string[] }): DirectoryListing {
    listing.entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { directory: listing.directory, entries: listing.entries, hidden: listing.hidden };
  }

  /** Validation and lexical placement; no file system call. */
  #locateInput(input: string): { location: RootLocation; absolute: string } {
    const first = this.roots[0];
    if (!first) throw messages.noRoots(this.#noRootsReason);
    if (typeof input !== "string") throw messages.notAString();
    if (input.length === 0) throw messages.emptyPath();
    if (input.length > LIMITS.pathChars) throw messages.tooLong(input);
    const control = findControlCharacter(input);
    if (control >= 0) throw messages.controlCharacter(input, control);
    assertWellFormedPath(input);
    const absolute = path.isAbsolute(input) ? path.resolve(input) : path.resolve(first.path, input);
    const location = locateLexically(this.roots, absolute);
    if (!location) throw messages.outsideRoots(input);
    return { location, absolute };
  }

  #evaluate(input: string, operation: Operation): { resolved: ResolvedPath; lexical: string } {
    const { location, absolute } = this.#locateInput(input);
    const walked = walkRealPath(location, this.#walkOptions(input, operation));
    return this.#decide(input, operation, location, absolute, walked);
  }

  #walkOptions(input: string, operation: Operation): WalkOptions {
    return { roots: this.roots, input, beforeFollow: (link, target) => this.#checkLink(input, operation, link, target) };
  }

  #decide(input: string, operation: Operation, location: RootLocation, absolute: string, walked: WalkResult): { resolved: ResolvedPath; lexical: string } {
    const lexical = realForm(location);
    const home = locateReal(this.roots, walked.real);
    // The walk cannot end outside the roots; refuse rather than trust a broken invariant.
    if (!home) throw messages.outsideRoots(input);
    const verdict = this.#verdict(operation, walked.real);
    if (!verdict.allowed) throw messages.denied(input, operation, this.display(walked.real), verdict.rule);
    if (lexical !== walked.real) {
      // The path as given must pass too, so a link cannot dodge a rule that names it.
      const asGiven = this.#verdict(operation, lexical);
      if (!asGiven.allowed) throw messages.denied(input, operation, this.display(lexical), asGiven.rule);
    }
    const resolved: ResolvedPath = {
      input,
      absolute,
      real: walked.real,
      root: home.root,
      relative: home.segments.join("/"),
      display: this.display(walked.real),
      exists: walked.exists,
      kind: walked.kind,
      rule: verdict.rule,
    };
    if (walked.identity) resolved.identity = walked.identity;
    return { resolved, lexical };
  }

  /** A link is followed only when following is allowed there and both it and its target are allowed for the operation. */
  #checkLink(input: string, operation: Operation, link: string, target: string): void {
    const follow = this.#verdict("follow", link);
    if (!follow.allowed) throw messages.followDenied(input, operation, this.display(link), follow.rule);
    const atLink = this.#verdict(operation, link);
    if (!atLink.allowed) throw messages.denied(input, operation, this.display(link), atLink.rule);
    const atTarget = this.#verdict(operation, target);
    if (!atTarget.allowed) throw messages.denied(input, operation, this.display(target), atTarget.rule);
  }

  #verdict(aspect: Aspect, realFormPath: string): Verdict {
    return this.#rules.decide(aspect, this.#ruleLocation(realFormPath));
  }

  #ruleLocation(realFormPath: string): PolicyLocation {
    const location = locateReal(this.#ruleRoots, realFormPath);
    // Every root in use lies inside a configured root; anything else is a bug, never an allowance.
    if (!location) throw new Error(`policy invariant broken: ${realFormPath} is in no configured root`);
    return { rootIndex: location.index, relative: location.segments.join("/") };
  }
}
