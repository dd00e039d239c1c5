/** Shapes shared by the policy modules; re-exported from workspace.ts, the public facade. */

export type Operation = "read" | "write" | "delete";

/** A workspace root: the path as configured (or offered by the client) and its real path. */
export interface Root {
  path: string;
  real: string;
}

/** The rule that decided an operation; the implicit base rule is {path: "<roots>", source: "default", access: "allow"}. */
export interface RuleRef {
  path: string;
  source: string;
  access: "allow" | "deny";
}

export type PathKind = "file" | "directory" | "other" | "missing";

export const BASE_RULE: RuleRef = Object.freeze({ path: "<roots>", source: "default", access: "allow" });
