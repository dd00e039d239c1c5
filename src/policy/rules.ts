/**
 * Rule matching. The implicit base allows everything inside the roots; a rule decides only the
 * operations it names; the most specific matching rule wins (longest literal prefix); on a tie
 * deny beats allow. A user rule whose path text equals a default rule's replaces that default
 * for the operations it names.
 */
import path from "node:path";
import picomatch from "picomatch";
import type { PathRule } from "../config/schema.ts";
import { log } from "../core/log.ts";
import { globSpecificity } from "../helpers/glob-specificity.ts";
import { normalizeRulePath, relativeInside } from "../helpers/path-text.ts";
import { BASE_RULE, type Operation, type Root, type RuleRef } from "./types.ts";

/** What a rule can decide: the three operations, and whether links are followed. */
export type Aspect = Operation | "follow";

/** A path inside a configured root: the root's index and the POSIX path relative to its real path. */
export interface PolicyLocation {
  rootIndex: number;
  relative: string;
}

export interface Verdict {
  allowed: boolean;
  rule: RuleRef;
}

interface Pattern {
  /** Only paths in this configured root (absolute rule paths); undefined: any root. */
  rootIndex: number | undefined;
  text: string;
  glob: picomatch.Matcher | undefined;
}

interface CompiledRule {
  rule: PathRule;
  patterns: Pattern[];
  include: Pattern[] | undefined;
  exclude: Pattern[] | undefined;
  decides: Partial<Record<Aspect, "allow" | "deny">>;
}

const GLOB_OPTIONS: picomatch.PicomatchOptions = { dot: true };

function isUserSource(source: string): boolean {
  // Project files are untrusted: only rules from the user's own configuration may replace a default.
  return source !== "default" && !source.startsWith("project:");
}

function aspectsOf(rule: PathRule): Partial<Record<Aspect, "allow" | "deny">> {
  const decides: Partial<Record<Aspect, "allow" | "deny">> = {};
  if (rule.read) decides.read = rule.read;
  if (rule.write) decides.write = rule.write;
  if (rule.delete) decides.delete = rule.delete;
  if (rule.follow_symlinks !== undefined) decides.follow = rule.follow_symlinks ? "allow" : "deny";
  return decides;
}

export class RuleSet {
  private readonly compiled: CompiledRule[];
  private readonly tailMatchers = new Map<string, picomatch.Matcher>();

  /** `roots` are the configured roots: relative rule paths apply in each of them, absolute ones in the root they name. */
  constructor(rules: readonly PathRule[], roots: readonly Root[]) {
    const replaced = new Map<string, Set<Aspect>>();
    for (const rule of rules) {
      if (!isUserSource(rule.source)) continue;
      const aspects = replaced.get(rule.path) ?? new Set<Aspect>();
      for (const aspect of Object.keys(aspectsOf(rule)) as Aspect[]) aspects.add(aspect);
      replaced.set(rule.path, aspects);
    }
    this.compiled = rules.map((rule) => {
      const decides = aspectsOf(rule);
      if (rule.source === "default") {
        for (const aspect of replaced.get(rule.path) ?? []) delete decides[aspect];
      }
      const patterns = compilePatterns(rule.path, roots);
      if (patterns.length === 0) log.warn("path rule names an absolute path outside every root; it never applies", { rule: rule.path, source: rule.source });
      return {
        rule,
        patterns,
        include: rule.include?.flatMap((text) => compilePatterns(text, roots)),
        exclude: rule.exclude?.flatMap((text) => compilePatterns(text, roots)),
        decides,
      };
    });
  }

  /** The verdict for one aspect at one location; the base rule when no rule names the aspect there. */
  decide(aspect: Aspect, location: PolicyLocation): Verdict {
    let best: { specificity: number; access: "allow" | "deny"; rule: PathRule } | undefined;
    for (const entry of this.compiled) {
      const access = entry.decides[aspect];
      if (!access) continue;
      const specificity = this.bestSpecificity(entry.patterns, location);
      if (specificity < 0) continue;
      if (entry.include && this.bestSpecificity(entry.include, location) < 0) continue;
      if (entry.exclude && this.bestSpecificity(entry.exclude, location) >= 0) continue;
      const wins = !best ||
        specificity > best.specificity ||
        // Equal specificity: deny beats allow; between equals, the later layer (user after default) is named.
        (specificity === best.specificity && (access === "deny" || best.access === "allow"));
      if (wins) best = { specificity, access, rule: entry.rule };
    }
    if (!best) return { allowed: true, rule: BASE_RULE };
    return { allowed: best.access === "allow", rule: { path: best.rule.path, source: best.rule.source, access: best.access } };
  }

  private bestSpecificity(patterns: readonly Pattern[], location: PolicyLocation): number {
    let best = -1;
    for (const pattern of patterns) {
      if (pattern.rootIndex !== undefined && pattern.rootIndex !== location.rootIndex) continue;
      best = Math.max(best, this.specificity(pattern, location.relative));
    }
    return best;
  }

  /** -1 when the pattern does not match. */
  private specificity(pattern: Pattern, relative: string): number {
    const { text } = pattern;
    // The root itself as a rule path covers everything in it.
    if (text === "") return 0;
    if (relative === text) return text.length;
    if (!pattern.glob) {
      // A plain path covers what lies beneath it, as specific as "that/path/**".
      return relative.startsWith(`${text}/`) ? text.length + 1 : -1;
    }
    if (!pattern.glob(relative)) return -1;
    return globSpecificity(text, relative, (tailPattern, tail) => this.tailMatcher(tailPattern)(tail));
  }

  private tailMatcher(pattern: string): picomatch.Matcher {
    let matcher = this.tailMatchers.get(pattern);
    if (!matcher) {
      matcher = picomatch(pattern, GLOB_OPTIONS);
      this.tailMatchers.set(pattern, matcher);
    }
    return matcher;
  }
}

function compilePattern(text: string, rootIndex: number | undefined): Pattern {
  const normalized = normalizeRulePath(text);
  const glob = normalized !== "" && picomatch.scan(normalized).isGlob ? picomatch(normalized, GLOB_OPTIONS) : undefined;
  return { rootIndex, text: normalized, glob };
}

/** A relative rule path applies in every root; an absolute one only in the root(s) it lies in, as a root-relative pattern. */
function compilePatterns(text: string, roots: readonly Root[]): Pattern[] {
  if (!path.isAbsolute(text)) return [compilePattern(text, undefined)];
  const absolute = text.length > 1 && text.endsWith("/") ? text.slice(0, -1) : text;
  const patterns: Pattern[] = [];
  for (const [index, root] of roots.entries()) {
    const rest = relativeInside(root.real, absolute, "/") ?? relativeInside(root.path, absolute, "/");
    if (rest !== undefined) patterns.push(compilePattern(rest, index));
  }
  return patterns;
}
