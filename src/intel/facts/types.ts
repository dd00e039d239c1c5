/**
 * The facts one file contributes to code intelligence, extracted from its syntax tree in one pass.
 * Outlines, the import graph, the call graph and search are all built from these records; every
 * line number is 1-based and every name is as written in the source.
 */

export type SymbolKind =
  | "class"
  | "interface"
  | "struct"
  | "trait"
  | "enum"
  | "enum_member"
  | "union"
  | "type"
  | "function"
  | "method"
  | "constructor"
  | "field"
  | "property"
  | "constant"
  | "variable"
  | "module"
  | "namespace"
  | "macro"
  | "heading"
  | "key";

export type Visibility = "public" | "private" | "protected" | "internal" | "package" | "file";

export interface SymbolFact {
  name: string;
  /** Dotted path through enclosing symbols, e.g. "UserService.create"; equal to name at top level. */
  qualifiedName: string;
  kind: SymbolKind;
  visibility: Visibility;
  /** Part of the file's public surface (exported, `pub`, capitalised in Go, listed in `__all__`, …). */
  exported: boolean;
  startLine: number;
  endLine: number;
  /** The declaration's head without its body, whitespace-collapsed (e.g. `async create(input: CreateUserInput): Promise<User>`). */
  signature: string;
  /** First sentence of the doc comment or docstring, when there is one. */
  doc?: string;
  /** qualifiedName of the enclosing symbol. */
  parent?: string;
  /** Names this type extends or implements, as written (for `implements`). */
  heritage?: string[];
  /** Declared inside a function or method body: reachable only from there, never part of the surface. */
  local?: boolean;
}

export type ImportKind = "import" | "import_type" | "reexport" | "require" | "dynamic" | "use" | "mod" | "include";

export interface ImportFact {
  /** The module specifier as written: "./util.js", "react", "crate::a::b", "fmt", "os.path", ".models". */
  specifier: string;
  kind: ImportKind;
  /** Imported names as [local, imported] pairs; ["*", "*"] for namespace/wildcard; empty for side-effect imports. */
  names: Array<{ local: string; imported: string }>;
  line: number;
}

export interface CallFact {
  /** The callee expression as written, bounded: "foo", "this.repo.save", "fmt.Println", "Foo::new". */
  callee: string;
  /** Its last identifier: "foo", "save", "Println", "new". */
  name: string;
  /** The receiver/qualifier part when there is one ("this.repo", "fmt", "Foo"). */
  qualifier?: string;
  line: number;
  column: number;
  /** qualifiedName of the innermost enclosing function/method symbol, if any. */
  caller?: string;
}

export interface FileFacts {
  /** The language asked for, normalised: a LanguageId, or the unknown name given (then the facts are empty). */
  language: string;
  parseErrors: number;
  symbols: SymbolFact[];
  imports: ImportFact[];
  calls: CallFact[];
  /** Names re-exported or listed as public API beyond declarations (`export { a as b } from`, `__all__`, `pub use`). */
  exportedNames: ExportedName[];
  /** What the file says of the types of its values (Go, Python), for resolving calls on them; absent when it says nothing. */
  bindings?: TypeBinding[];
}

/**
 * A value's type as the source writes it: `var b bytes.Buffer`, `x := Foo{}`, `x = Foo()`,
 * `self.f = Foo()`, `b := Form`. The call graph resolves the written name in the file.
 */
export interface TypeBinding {
  /** The value: "x", or "self.f" for an attribute set through the receiver. */
  name: string;
  /**
   * A type as written ("bytes.Buffer", "*Foo"); with `call`, a callee whose result the value is
   * ("NewFoo", "pkg.New"); with `value`, another value whose type the value has ("Form", "self.f").
   */
  type: string;
  /** The value is the result of calling `type` (a function, a constructor or a conversion). */
  call?: boolean;
  /** The value is the value `type` names. */
  value?: boolean;
  /**
   * With `call`, the call's first argument when it is a plain value (`compile(schema)` → "schema"):
   * a generic function whose result is typed by that parameter (`<T>(x: T): T`) returns its type.
   */
  argument?: string;
  line: number;
  /**
   * Where the name is bound: the qualifiedName of the enclosing function or method; for "self.f"
   * the class; absent at module level.
   */
  scope?: string;
}

export interface ExportedName {
  /** The name outside the module: "b" for `export { a as b }`, "default", "*" for `export * from`. */
  name: string;
  /** The module it comes from, for re-exports. */
  from?: string;
  /** The name inside this module (or inside `from`) when it differs from `name`: "a" for `export { a as b }`. */
  local?: string;
  line: number;
}
