/**
 * The shapes of the import graph: what a file depends on, what could not be resolved and why,
 * and what the graph needs from the code index. Paths are real paths inside the roots.
 */
import type { FileFacts, ImportKind } from "../facts/types.ts";
import type { LanguageId } from "../../syntax/index.ts";

/** The part of an indexed file the graphs read (CodeIndex's IndexedFile satisfies it). */
export interface GraphFile {
  real: string;
  display: string;
  rootReal: string;
  language: LanguageId;
  sha256: string;
  facts: FileFacts;
}

/** What the graphs need from the code index (CodeIndex satisfies it). */
export interface GraphIndex {
  /** Bumps on any change, so derived graphs know when to refresh. */
  readonly generation: number;
  files(): readonly GraphFile[];
  get(real: string): GraphFile | undefined;
}

/** How a specifier found its file; tells a reader which repository setting steered it. */
export type ResolutionVia =
  | "relative"
  | "tsconfig_paths"
  | "base_url"
  | "package_imports"
  | "package_exports"
  | "workspace_package"
  | "python_relative"
  | "python_absolute"
  | "go_module"
  | "rust_mod"
  | "rust_path"
  | "jvm_package"
  | "include";

export type UnresolvedReason =
  /** Nothing in the workspace matches. */
  | "not_found"
  /** The specifier (or a repository file steering it) points outside the roots; it was not probed. */
  | "outside_roots"
  /** A policy rule forbids reading the file that would decide it. */
  | "denied"
  /** The file exists but the index skipped it (ignored, too large). */
  | "not_indexed"
  /** A form this resolver does not follow (computed specifiers, `#[path]`, unknown conditions). */
  | "unsupported"
  /** Several files match equally well. */
  | "ambiguous";

export type Resolution =
  | { kind: "file"; targets: readonly string[]; via: ResolutionVia }
  | { kind: "external"; package: string; builtin: boolean }
  | { kind: "unresolved"; reason: UnresolvedReason; detail: string; candidates?: string[] };

export interface ImportEdge {
  from: string;
  to: string;
  specifier: string;
  kind: ImportKind;
  line: number;
  via: ResolutionVia;
}

export interface UnresolvedImport {
  from: string;
  specifier: string;
  kind: ImportKind;
  line: number;
  reason: UnresolvedReason;
  detail: string;
  candidates?: string[];
}

/** A bare specifier outside the workspace, counted per package rather than listed per file. */
export interface ExternalUse {
  package: string;
  builtin: boolean;
  /** Importing files. */
  files: number;
  /** Import statements. */
  imports: number;
}

/** Everything one file's imports resolved to. */
export interface FileImports {
  sha256: string;
  edges: ImportEdge[];
  unresolved: UnresolvedImport[];
  /** Package → import statements naming it. */
  externals: Map<string, { builtin: boolean; imports: number }>;
}
