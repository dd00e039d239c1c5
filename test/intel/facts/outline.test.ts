import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { languageOf as detect } from "../../../src/syntax/index.ts";
import { extractFacts } from "../../../src/intel/facts/extract.ts";
import type { CallFact, FileFacts, ImportFact, SymbolFact, SymbolKind, Visibility } from "../../../src/intel/facts/types.ts";

const FIXTURES = path.join(import.meta.dir, "..", "fixtures", "outline");
const cache = new Map<string, FileFacts>();

function textOf(file: string): string {
  return readFileSync(path.join(FIXTURES, file), "utf8");
}

function languageOf(file: string): string {
  const language = detect(file, textOf(file).split("\n")[0]);
  if (language === undefined) throw new Error(`no language for ${file}`);
  return language;
}

function factsOf(file: string): FileFacts {
  let facts = cache.get(file);
  if (!facts) cache.set(file, facts = extractFacts(languageOf(file), textOf(file)));
  return facts;
}

/** [qualifiedName, kind, "start-end", visibility, exported, signature, doc?] */
type Row = [string, SymbolKind, string, Visibility, boolean, string, string?];

function find(facts: FileFacts, qualifiedName: string, kind?: SymbolKind): SymbolFact {
  const found = facts.symbols.find((symbol) => symbol.qualifiedName === qualifiedName && (kind === undefined || symbol.kind === kind));
  if (!found) throw new Error(`no symbol ${qualifiedName}${kind ? ` (${kind})` : ""} in ${facts.symbols.map((symbol) => `${symbol.qualifiedName}:${symbol.kind}`).join(", ")}`);
  return found;
}

function expectSymbols(file: string, rows: Row[]): void {
  const facts = factsOf(file);
  for (const [qualifiedName, kind, lines, visibility, exported, signature, doc] of rows) {
    const symbol = find(facts, qualifiedName, kind);
    const [start, end] = lines.split("-").map(Number);
    expect({
      qualifiedName,
      lines: `${symbol.startLine}-${symbol.endLine}`,
      visibility: symbol.visibility,
      exported: symbol.exported,
      signature: symbol.signature,
      doc: symbol.doc,
    }).toEqual({
      qualifiedName,
      lines: `${start}-${end}`,
      visibility,
      exported,
      signature,
      doc,
    });
  }
}

function expectImports(file: string, expected: Array<Partial<ImportFact>>): void {
  const imports = factsOf(file).imports;
  for (const fact of expected) expect(imports).toContainEqual(expect.objectContaining(fact));
}

/** [line, callee, name, qualifier, caller] */
function expectCalls(file: string, expected: Array<[number, string, string, string | undefined, string | undefined]>): void {
  const calls = factsOf(file).calls;
  for (const [line, callee, name, qualifier, caller] of expected) {
    const match = calls.find((call) => call.line === line && call.callee === callee);
    if (!match) throw new Error(`no call ${callee} on line ${line} in ${file}: ${calls.map((call) => `${call.line}:${call.callee}`).join(", ")}`);
    const shape: Partial<CallFact> = { name };
    if (qualifier !== undefined) shape.qualifier = qualifier;
    if (caller !== undefined) shape.caller = caller;
    expect(match).toMatchObject(shape);
    if (qualifier === undefined) expect(match.qualifier).toBeUndefined();
    if (caller === undefined) expect(match.caller).toBeUndefined();
  }
}

function noSymbol(file: string, qualifiedName: string): void {
  expect(factsOf(file).symbols.map((symbol) => symbol.qualifiedName)).not.toContain(qualifiedName);
}

const ALL_FIXTURES = readdirSync(FIXTURES).sort();

describe("every outline fixture", () => {
  test("covers every language with a fixture", () => {
    const languages = new Set(ALL_FIXTURES.map(languageOf));
    for (
      const id of [
        "typescript",
        "tsx",
        "javascript",
        "python",
        "go",
        "rust",
        "java",
        "kotlin",
        "c",
        "cpp",
        "csharp",
        "ruby",
        "php",
        "swift",
        "scala",
        "lua",
        "bash",
        "elixir",
        "haskell",
        "dart",
        "sql",
        "json",
        "yaml",
        "toml",
        "markdown",
        "html",
        "css",
      ]
    ) {
      expect(languages.has(id)).toBe(true);
    }
  });

  for (const file of ALL_FIXTURES) {
    test(`${file}: parses cleanly and its symbols are consistent`, () => {
      const facts = factsOf(file);
      const lineCount = textOf(file).split("\n").length;
      expect(facts.language).toBe(languageOf(file));
      expect(facts.parseErrors).toBe(0);
      expect(facts.symbols.length).toBeGreaterThan(4);
      const names = new Set(facts.symbols.map((symbol) => symbol.qualifiedName));
      for (const symbol of facts.symbols) {
        expect(symbol.startLine).toBeGreaterThanOrEqual(1);
        expect(symbol.endLine).toBeGreaterThanOrEqual(symbol.startLine);
        expect(symbol.endLine).toBeLessThanOrEqual(lineCount);
        expect(symbol.signature.length).toBeGreaterThan(0);
        expect(symbol.signature.length).toBeLessThanOrEqual(200);
        expect(symbol.signature).not.toMatch(/\s{2}|\n/);
        expect(symbol.qualifiedName).toBe(symbol.parent === undefined ? symbol.name : `${symbol.parent}.${symbol.name}`);
        if (symbol.parent !== undefined) expect(names.has(symbol.parent)).toBe(true);
        if (symbol.local) expect(symbol.exported).toBe(false);
      }
      for (const call of facts.calls) {
        expect(call.line).toBeGreaterThanOrEqual(1);
        expect(call.column).toBeGreaterThanOrEqual(1);
        expect(call.callee.includes(call.name)).toBe(true);
        if (call.caller !== undefined) expect(names.has(call.caller)).toBe(true);
      }
    });
  }
});

describe("TypeScript", () => {
  const file = "sample.ts";
  test("a type parameter's constraint is not heritage: only what the declaration itself extends is", () => {
    const facts = extractFacts(
      "typescript",
      [
        "export interface Wrapped<out I extends Internals = Internals> extends Base<any, I> {}",
        "export class Box<T extends Shape, F extends (value: T) => Shape> extends Container<T> implements Sized {}",
        "export interface Plain<T extends Shape> {}",
      ].join("\n"),
    );
    expect(find(facts, "Wrapped").heritage).toEqual(["Base"]);
    expect(find(facts, "Box").heritage).toEqual(["Container", "Sized"]);
    expect(find(facts, "Plain").heritage ?? []).toEqual([]);
  });

  test("declarations, members, visibility, exports, docs and heritage", () => {
    expectSymbols(file, [
      ["MAX_RETRIES", "constant", "13-13", "public", true, "const MAX_RETRIES = 3", "Maximum number of retries."],
      ["counter", "variable", "14-14", "public", true, "let counter = 0"],
      ["internalFlag", "constant", "15-15", "file", false, "const internalFlag = true"],
      ["secondFlag", "constant", "15-15", "file", false, "const secondFlag = false"],
      ["Repository", "interface", "21-24", "public", true, "interface Repository<T> extends Base, Disposable", "A repository of users."],
      ["Repository.name", "property", "22-22", "public", true, "readonly name: string"],
      ["Repository.find", "method", "23-23", "public", true, "find(id: string): Promise<T | undefined>"],
      // A plain `//` comment is not documentation; JSDoc is.
      ["UserId", "type", "27-27", "public", true, "type UserId = string"],
      ["Handler", "type", "29-29", "file", false, "type Handler = (event: Event) => void"],
      ["Color", "enum", "31-34", "public", true, "enum Color"],
      ["Color.Green", "enum_member", "33-33", "public", true, "Green = \"green\""],
      ["Flags.All", "enum_member", "36-36", "public", false, "All = 1"],
      ["UserService", "class", "39-70", "public", true, "class UserService extends BaseService implements Service, Disposable", "Creates users."],
      ["UserService.cache", "field", "41-41", "private", false, "private readonly cache = new Map<string, User>()"],
      ["UserService.#secret", "field", "42-42", "private", false, "#secret = 1"],
      ["UserService.instances", "field", "43-43", "protected", true, "protected static instances = 0"],
      ["UserService.onChange", "method", "45-47", "public", true, "onChange = (value: string): void =>"],
      ["UserService.constructor", "constructor", "49-52", "public", true, "constructor(private readonly repo: Repository<User>)"],
      ["UserService.repo", "field", "49-49", "private", false, "private readonly repo: Repository<User>"],
      ["UserService.create", "method", "55-59", "public", true, "async create(input: CreateUserInput): Promise<User>", "Creates a user."],
      ["UserService.size", "property", "61-63", "public", true, "get size(): number"],
      ["UserService.validate", "method", "65-67", "private", false, "private validate(input: unknown): boolean"],
      ["UserService.#hidden", "method", "69-69", "private", false, "#hidden(): void"],
      ["Shape.area", "method", "73-73", "public", true, "abstract area(): number"],
      ["greet", "function", "76-78", "public", true, "function greet(name: string): string"],
      ["stream", "function", "80-82", "public", true, "async function* stream<T>(items: T[]): AsyncGenerator<T>"],
      ["add", "function", "90-90", "public", true, "const add = (a: number, b: number): number =>"],
      ["Memoized", "function", "91-93", "public", true, "const Memoized = memo(() =>"],
      ["Forwarded", "function", "94-96", "file", false, "const Forwarded = forwardRef(function Forwarded(props: Props, ref: Ref)"],
      ["Geometry", "namespace", "98-103", "public", true, "namespace Geometry"],
      ["Geometry.distance", "function", "99-101", "public", true, "function distance(a: Point, b: Point): number"],
      ["Geometry.local", "constant", "102-102", "private", false, "const local = 1"],
      ["external-lib", "module", "105-107", "file", false, "module \"external-lib\""],
      ["external-lib.patched", "function", "106-106", "public", false, "function patched(): void"],
      ["declared", "function", "109-109", "file", false, "function declared(x: number): void"],
      ["default", "constant", "117-123", "public", true, "export default defineComponent({…})"],
      ["default.setup", "method", "119-121", "public", true, "setup(props)"],
      ["default.computed", "method", "122-122", "public", true, "computed: () =>"],
      ["outer", "function", "131-136", "file", false, "function outer()"],
    ]);
    const facts = factsOf(file);
    expect(find(facts, "UserService").heritage).toEqual(["BaseService", "Service", "Disposable"]);
    expect(find(facts, "Repository").heritage).toEqual(["Base", "Disposable"]);
    expect(facts.symbols.filter((symbol) => symbol.name === "overloaded")).toHaveLength(3);
    // Functions declared in bodies (named or anonymous) are local; local variables are no symbols at all.
    expect(find(facts, "outer.inner")).toMatchObject({ kind: "function", local: true, exported: false, parent: "outer", startLine: 132, endLine: 134 });
    expect(find(facts, "insideCallback")).toMatchObject({ local: true, exported: false });
    noSymbol(file, "lazy.mod");
    noSymbol(file, "UserService.create.user");
  });

  test("imports, re-exports and exported names", () => {
    expectImports(file, [
      { line: 1, kind: "import", specifier: "node:fs", names: [{ local: "fs", imported: "default" }] },
      { line: 2, kind: "import", specifier: "node:fs/promises", names: [{ local: "read", imported: "readFile" }, { local: "writeFile", imported: "writeFile" }] },
      { line: 3, kind: "import", specifier: "node:path", names: [{ local: "path", imported: "*" }] },
      { line: 4, kind: "import_type", specifier: "./config.js", names: [{ local: "Config", imported: "Config" }] },
      { line: 5, kind: "import", specifier: "./side-effect.js", names: [] },
      { line: 6, kind: "require", specifier: "./legacy", names: [{ local: "legacy", imported: "*" }] },
      { line: 7, kind: "reexport", specifier: "./reexported.js", names: [{ local: "*", imported: "*" }] },
      { line: 8, kind: "reexport", specifier: "./helpers.js", names: [{ local: "publicHelper", imported: "helper" }, { local: "other", imported: "other" }] },
      { line: 9, kind: "reexport", specifier: "./utils.js", names: [{ local: "utils", imported: "*" }] },
      { line: 112, kind: "dynamic", specifier: "./lazy.js", names: [] },
      { line: 113, kind: "require", specifier: "./required", names: [] },
    ]);
    expect(factsOf(file).exportedNames).toEqual([
      { name: "*", line: 7, from: "./reexported.js" },
      { name: "publicHelper", line: 8, from: "./helpers.js", local: "helper" },
      { name: "other", line: 8, from: "./helpers.js" },
      { name: "utils", line: 9, from: "./utils.js", local: "*" },
      { name: "Shape", line: 10, from: "./shapes.js" },
      { name: "default", line: 117 },
      { name: "hello", line: 125, local: "greet" },
      { name: "counter", line: 125 },
    ]);
  });

  test("calls with callee, qualifier, position and caller", () => {
    expectCalls(file, [
      [39, "injectable", "injectable", undefined, undefined],
      [41, "Map", "Map", undefined, "UserService.cache"],
      [46, "this.emit", "emit", "this", "UserService.onChange"],
      [50, "super", "super", undefined, "UserService.constructor"],
      [56, "User", "User", undefined, "UserService.create"],
      [57, "this.repo.save", "save", "this.repo", "UserService.create"],
      [92, "render", "render", undefined, "Memoized"],
      [100, "Math.hypot", "hypot", "Math", "Geometry.distance"],
      [114, "mod.default.run", "run", "mod.default", "lazy"],
      [120, "useThing", "useThing", undefined, "default.setup"],
      [133, "helper", "helper", undefined, "outer.inner"],
      [135, "inner", "inner", undefined, "outer"],
    ]);
    const save = factsOf(file).calls.find((call) => call.name === "save")!;
    expect({ line: save.line, column: save.column }).toEqual({ line: 57, column: 11 });
    // import("…") is an import, not a call.
    expect(factsOf(file).calls.some((call) => call.name === "import")).toBe(false);
  });
});

describe("TSX", () => {
  const file = "sample.tsx";
  test("components (plain, memo, forwardRef, default export) and JSX uses as calls", () => {
    expectSymbols(file, [
      ["CardProps", "interface", "6-10", "public", true, "interface CardProps", "Props of the card."],
      ["CardProps.onClose", "method", "9-9", "public", true, "onClose(): void"],
      ["Card", "function", "15-24", "public", true, "function Card({ title, children, onClose }: CardProps)", "A card with a title."],
      ["Header", "function", "26-26", "file", false, "const Header = ({ title }: { title: string }) =>"],
      ["MemoCard", "function", "28-30", "public", true, "const MemoCard = memo(function MemoCard(props: CardProps)"],
      ["FancyInput", "function", "32-34", "public", true, "const FancyInput = forwardRef<HTMLInputElement, { variant: Variant }>((props, ref) =>"],
      ["App", "function", "36-38", "public", true, "function App(): JSX.Element"],
    ]);
    expectImports(file, [{ line: 2, kind: "import_type", specifier: "react", names: [{ local: "ReactNode", imported: "ReactNode" }] }]);
    expectCalls(file, [
      [19, "Header", "Header", undefined, "Card"],
      [20, "Button", "Button", undefined, "Card"],
      [29, "Card", "Card", undefined, "MemoCard"],
      [33, "classNames", "classNames", undefined, "FancyInput"],
      [37, "Layout.Main", "Main", "Layout", "App"],
    ]);
    // Intrinsic elements are not calls.
    expect(factsOf(file).calls.some((call) => call.name === "div" || call.name === "input")).toBe(false);
    expect(factsOf(file).exportedNames).toEqual([{ name: "default", line: 36, local: "App" }]);
  });
});

describe("JavaScript", () => {
  const file = "sample.js";
  test("CommonJS requires and exports, classes with #private members, object-literal methods", () => {
    expectSymbols(file, [
      ["path", "constant", "2-2", "file", false, "const path = require(\"node:path\")"],
      ["DEFAULT_PORT", "constant", "7-7", "file", false, "const DEFAULT_PORT = 8080", "Default port of the server."],
      ["legacyCounter", "variable", "8-8", "file", false, "var legacyCounter = 0"],
      ["ConnectionPool", "class", "13-35", "public", true, "class ConnectionPool extends EventEmitter", "Keeps track of connections."],
      ["ConnectionPool.#connections", "field", "14-14", "private", false, "#connections = new Set()"],
      ["ConnectionPool.instances", "field", "15-15", "public", true, "static instances = 0"],
      ["ConnectionPool.add", "method", "23-26", "public", true, "add(connection)", "Adds a connection."],
      ["ConnectionPool.#evict", "method", "32-34", "private", false, "#evict()"],
      ["createServer", "function", "37-40", "public", true, "function createServer(options)"],
      ["ids", "function", "42-44", "file", false, "function* ids()"],
      ["handler", "function", "46-48", "file", false, "const handler = async (request, response) =>"],
      ["api", "constant", "50-56", "public", true, "const api = {…}"],
      ["api.get", "method", "51-53", "public", true, "get(url)"],
      ["api.post", "method", "54-54", "public", true, "post: async (url, body) =>"],
      ["helper", "function", "64-66", "public", true, "exports.helper = function helper(value)"],
    ]);
    noSymbol(file, "api.retries");
    expectImports(file, [
      { line: 2, kind: "require", specifier: "node:path", names: [{ local: "path", imported: "*" }] },
      { line: 3, kind: "require", specifier: "node:fs/promises", names: [{ local: "readFile", imported: "readFile" }, { local: "write", imported: "writeFile" }] },
      { line: 4, kind: "require", specifier: "./polyfill", names: [] },
      { line: 60, kind: "dynamic", specifier: "./plugins/fixed.js", names: [] },
    ]);
    // A template literal with substitutions names no module.
    expect(factsOf(file).imports.filter((fact) => fact.kind === "dynamic")).toHaveLength(1);
    expect(factsOf(file).imports.filter((fact) => fact.specifier === "node:path")).toHaveLength(1);
    expect(factsOf(file).exportedNames.map((entry) => entry.name)).toEqual(["helper", "createServer", "ConnectionPool", "api", "load"]);
    expectCalls(file, [
      [38, "ConnectionPool", "ConnectionPool", undefined, "createServer"],
      [39, "http.createServer(…).listen", "listen", "http.createServer(…)", "createServer"],
      [39, "http.createServer", "createServer", "http", "createServer"],
      [52, "fetch(…).then", "then", "fetch(…)", "api.get"],
      [65, "path.join", "join", "path", "helper"],
    ]);
  });
});

describe("Python", () => {
  const file = "sample.py";
  test("classes, methods, decorators, docstrings, nested functions, module assignments and __all__", () => {
    expectSymbols(file, [
      ["MAX_USERS", "constant", "11-11", "public", true, "MAX_USERS: int = 100"],
      // __all__ decides the surface: public names left out of it are not exported.
      ["default_name", "variable", "12-12", "public", false, "default_name = \"anonymous\""],
      ["_cache", "variable", "13-13", "private", false, "_cache = {}"],
      ["UserId", "type", "14-14", "public", false, "type UserId = int"],
      ["Repository", "class", "17-46", "public", true, "class Repository(BaseRepository, metaclass=ABCMeta)", "Stores users."],
      ["Repository.table", "field", "20-20", "public", true, "table = \"users\""],
      ["Repository._secret", "field", "21-21", "private", false, "_secret: str = \"x\""],
      ["Repository.__init__", "constructor", "23-25", "public", true, "def __init__(self, db)"],
      ["Repository.size", "property", "27-30", "public", true, "def size(self) -> int", "Number of stored users."],
      ["Repository.build", "method", "32-34", "public", true, "def build(config: dict) -> \"Repository\""],
      ["Repository.save", "method", "36-37", "public", true, "async def save(self, user: User) -> None"],
      ["Repository._validate", "method", "39-40", "private", false, "def _validate(self, user)"],
      ["Repository.__private", "method", "42-43", "private", false, "def __private(self)"],
      ["Repository.Meta", "class", "45-46", "public", true, "class Meta"],
      ["create_user", "function", "49-58", "public", true, "def create_user(name: str, *, admin: bool = False) -> User", "Create a user."],
      ["create_user.normalize", "function", "55-56", "private", false, "def normalize(value)"],
      ["list_users", "function", "61-63", "public", false, "async def list_users(request)"],
      ["_helper", "function", "66-68", "private", false, "def _helper()"],
      ["handler", "function", "71-71", "public", false, "handler = lambda event:"],
    ]);
    expect(find(factsOf(file), "Repository").heritage).toEqual(["BaseRepository"]);
    expect(find(factsOf(file), "create_user.normalize").local).toBe(true);
    expect(factsOf(file).exportedNames.map((entry) => entry.name)).toEqual(["Repository", "create_user", "MAX_USERS"]);
    expectImports(file, [
      { line: 2, specifier: "os", names: [{ local: "os", imported: "os" }] },
      { line: 3, specifier: "os.path", names: [{ local: "osp", imported: "os.path" }] },
      { line: 4, specifier: "collections", names: [{ local: "OrderedDict", imported: "OrderedDict" }, { local: "dd", imported: "defaultdict" }] },
      { line: 5, specifier: ".", names: [{ local: "siblings", imported: "siblings" }] },
      { line: 6, specifier: "..models", names: [{ local: "User", imported: "User" }, { local: "G", imported: "Group" }] },
      { line: 7, specifier: ".helpers", names: [{ local: "*", imported: "*" }] },
      { line: 67, specifier: "json", names: [{ local: "json", imported: "json" }] },
    ]);
    expectCalls(file, [
      [25, "super(…).__init__", "__init__", "super(…)", "Repository.__init__"],
      [30, "self.db.rows", "rows", "self.db", "Repository.size"],
      [56, "value.strip(…).lower", "lower", "value.strip(…)", "create_user.normalize"],
      [58, "normalize", "normalize", undefined, "create_user"],
      [61, "app.route", "route", "app", undefined],
      [71, "process", "process", undefined, "handler"],
    ]);
  });
});

describe("Go", () => {
  const file = "sample.go";
  test("functions, methods under their receiver, structs, interfaces, consts, vars and capitalised exports", () => {
    expectSymbols(file, [
      ["MaxUsers", "constant", "14-14", "public", true, "const MaxUsers = 100", "MaxUsers is the largest number of users."],
      ["defaultName", "constant", "17-17", "package", false, "const defaultName = \"anonymous\""],
      ["Version", "constant", "19-19", "public", true, "const Version = \"1.0\"", "Version of the store."],
      ["ErrNotFound", "variable", "22-22", "public", true, "var ErrNotFound = fmt.Errorf(\"not found\")"],
      ["UserID", "type", "25-25", "public", true, "type UserID = string", "UserID identifies a user."],
      ["Repository", "struct", "28-33", "public", true, "type Repository struct", "Repository stores users in a database."],
      ["Repository.DB", "field", "30-30", "public", true, "DB *db.Conn", "DB is the connection."],
      ["Repository.cache", "field", "31-31", "package", false, "cache map[UserID]*User"],
      ["Store", "interface", "36-40", "public", true, "type Store interface", "Store is implemented by every store."],
      ["Store.Find", "method", "38-38", "public", true, "Find(ctx context.Context, id UserID) (*User, error)", "Find looks a user up."],
      ["state", "type", "42-42", "package", false, "type state int"],
      ["NewRepository", "function", "45-47", "public", true, "func NewRepository(conn *db.Conn) *Repository", "NewRepository creates a repository."],
      ["Repository.Find", "method", "50-56", "public", true, "func (r *Repository) Find(ctx context.Context, id UserID) (*User, error)", "Find looks a user up."],
      ["Repository.count", "method", "58-60", "package", false, "func (r Repository) count() int"],
      ["scanUser", "function", "62-64", "package", false, "func scanUser[T any](row T) (*User, error)"],
    ]);
    expect(find(factsOf(file), "Repository", "struct").heritage).toEqual(["Logger"]);
    expect(find(factsOf(file), "Store").heritage).toEqual(["io.Closer"]);
    expectImports(file, [
      { line: 5, specifier: "context", names: [{ local: "context", imported: "*" }] },
      { line: 7, specifier: "example.com/app/database", names: [{ local: "db", imported: "*" }] },
      { line: 8, specifier: "example.com/app/drivers", names: [{ local: "_", imported: "*" }] },
      { line: 11, specifier: "strings", names: [{ local: "strings", imported: "*" }] },
    ]);
    expectCalls(file, [
      [22, "fmt.Errorf", "Errorf", "fmt", "ErrNotFound"],
      [54, "r.DB.QueryRow", "QueryRow", "r.DB", "Repository.Find"],
      [55, "scanUser", "scanUser", undefined, "Repository.Find"],
    ]);
  });
});

describe("Rust", () => {
  const file = "sample.rs";
  test("items, pub visibility, impl blocks, trait impls and derives, modules and use trees", () => {
    expectSymbols(file, [
      ["helpers", "module", "7-7", "private", false, "mod helpers"],
      ["api", "module", "8-12", "public", true, "pub mod api"],
      ["api.version", "function", "9-11", "public", true, "pub fn version() -> &'static str"],
      ["MAX_USERS", "constant", "15-15", "public", true, "pub const MAX_USERS: usize = 100", "Largest number of users."],
      ["GREETING", "variable", "16-16", "private", false, "static GREETING: &str = \"hello\""],
      ["UserId", "type", "19-19", "public", true, "pub type UserId = u64", "Identifies a user."],
      ["Repository", "struct", "23-28", "public", true, "pub struct Repository<T>", "Stores users."],
      ["Repository.rows", "field", "25-25", "public", true, "pub rows: Vec<T>", "The rows."],
      ["Repository.cache", "field", "26-26", "private", false, "cache: HashMap<UserId, T>"],
      ["Repository.name", "field", "27-27", "internal", false, "pub(crate) name: String"],
      ["Status.Suspended", "enum_member", "32-32", "public", true, "Suspended { reason: String }"],
      ["Bits", "union", "35-38", "public", true, "pub union Bits"],
      ["Storable", "trait", "41-47", "public", true, "pub trait Storable: Clone + Send", "Something that can be stored."],
      ["Storable.key", "method", "43-43", "public", true, "fn key(&self) -> UserId", "The key of the value."],
      ["Repository.new", "method", "51-53", "public", true, "pub fn new(name: &str) -> Self", "Creates an empty repository."],
      ["Repository.insert", "method", "55-58", "private", false, "fn insert(&mut self, value: T)"],
      // Methods of a trait impl need no `pub`.
      ["Status.fmt", "method", "62-64", "public", true, "fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result"],
      ["log_user", "macro", "67-71", "private", false, "macro_rules! log_user"],
      ["load", "function", "73-76", "internal", false, "pub(crate) async fn load(path: &str) -> io::Result<String>"],
    ]);
    expect(find(factsOf(file), "Repository", "struct").heritage).toEqual(["Debug", "Clone"]);
    expect(find(factsOf(file), "Status", "enum").heritage).toEqual(["std::fmt::Display"]);
    expect(find(factsOf(file), "Storable").heritage).toEqual(["Clone", "Send"]);
    expectImports(file, [
      { line: 2, kind: "use", specifier: "std::collections::HashMap", names: [{ local: "HashMap", imported: "HashMap" }] },
      { line: 3, kind: "use", specifier: "std::io", names: [{ local: "io", imported: "io" }] },
      { line: 3, kind: "use", specifier: "std::io::Read", names: [{ local: "Read", imported: "Read" }] },
      { line: 3, kind: "use", specifier: "std::io::Write", names: [{ local: "W", imported: "Write" }] },
      { line: 4, kind: "use", specifier: "crate::models", names: [{ local: "*", imported: "*" }] },
      { line: 7, kind: "mod", specifier: "helpers", names: [] },
    ]);
    expect(factsOf(file).exportedNames).toEqual([
      { name: "Error", line: 5, from: "crate::errors" },
      { name: "Result", line: 5, from: "crate::errors" },
    ]);
    expectCalls(file, [
      [45, "format!", "format", undefined, "Storable.describe"],
      [52, "Vec::new", "new", "Vec", "Repository.new"],
      [56, "self.cache.insert", "insert", "self.cache", "Repository.insert"],
      [74, "std::fs::read_to_string", "read_to_string", "std::fs", "load"],
    ]);
  });
});

describe("Java", () => {
  const file = "Sample.java";
  test("types, members with modifiers, records, enums, annotation types, imports and calls", () => {
    expectSymbols(file, [
      ["UserRepository", "class", "10-41", "public", true, "public class UserRepository extends BaseRepository<User> implements Repository, AutoCloseable", "Stores users."],
      ["UserRepository.MAX_USERS", "constant", "13-13", "public", true, "public static final int MAX_USERS = 100", "Largest number of users."],
      ["UserRepository.users", "field", "14-14", "private", false, "private final List<User> users"],
      ["UserRepository.name", "field", "15-15", "protected", true, "protected String name"],
      ["UserRepository.count", "field", "16-16", "package", false, "int count"],
      ["UserRepository.UserRepository", "constructor", "18-21", "public", true, "public UserRepository(List<User> users)"],
      ["UserRepository.find", "method", "24-27", "public", true, "public User find(long id)", "Finds a user by id."],
      ["UserRepository.log", "method", "29-31", "private", false, "private static void log(String message)"],
      ["UserRepository.Cache", "class", "38-40", "package", false, "static class Cache"],
      ["Repository", "interface", "43-49", "package", false, "interface Repository"],
      ["Repository.size", "method", "46-48", "public", false, "default int size()"],
      ["Status.SUSPENDED", "enum_member", "53-53", "public", false, "SUSPENDED(\"s\")"],
      ["Point", "class", "64-68", "package", false, "record Point(int x, int y)"],
      ["Point.x", "field", "64-64", "public", false, "int x"],
      ["Audited", "interface", "70-72", "package", false, "@interface Audited"],
      ["Audited.value", "method", "71-71", "public", false, "String value() default \"\""],
    ]);
    expect(find(factsOf(file), "UserRepository", "class").heritage).toEqual(["BaseRepository", "Repository", "AutoCloseable"]);
    expectImports(file, [
      { line: 3, specifier: "java.util.List", names: [{ local: "List", imported: "List" }] },
      { line: 4, specifier: "java.util.concurrent", names: [{ local: "*", imported: "*" }] },
      { line: 5, specifier: "java.util.Objects", names: [{ local: "requireNonNull", imported: "requireNonNull" }] },
    ]);
    expectCalls(file, [
      [19, "super", "super", undefined, "UserRepository.UserRepository"],
      [26, "users.stream(…).filter(…).findFirst(…).orElse", "orElse", "users.stream(…).filter(…).findFirst(…)", "UserRepository.find"],
      [30, "System.out.println", "println", "System.out", "UserRepository.log"],
      [66, "IllegalArgumentException", "IllegalArgumentException", undefined, "Point.Point"],
    ]);
  });
});

describe("Kotlin", () => {
  const file = "sample.kt";
  test("classes, objects, companions, properties, extension functions and visibility", () => {
    expectSymbols(file, [
      ["MAX_USERS", "constant", "8-8", "public", true, "const val MAX_USERS = 100", "Largest number of users."],
      ["counter", "property", "9-9", "private", false, "private var counter = 0"],
      ["UserId", "type", "11-11", "public", true, "typealias UserId = Long"],
      [
        "UserRepository",
        "class",
        "16-36",
        "public",
        true,
        "open class UserRepository(private val db: Database, val name: String) : BaseRepository<User>(), Repository",
        "Stores users.",
      ],
      ["UserRepository.db", "property", "16-16", "private", false, "private val db: Database"],
      ["UserRepository.cache", "property", "17-17", "internal", false, "internal val cache = mutableMapOf<UserId, User>()"],
      ["UserRepository.hits", "property", "18-18", "protected", true, "protected var hits: Int = 0"],
      ["UserRepository.constructor", "constructor", "24-24", "public", true, "constructor(db: Database) : this(db, \"users\")"],
      ["UserRepository.find", "method", "27-29", "public", true, "override suspend fun find(id: UserId): User?", "Finds a user."],
      ["UserRepository.log", "method", "31-31", "private", false, "private fun log(message: String)"],
      ["UserRepository.Companion.create", "method", "34-34", "public", true, "fun create(): UserRepository"],
      ["Repository", "interface", "38-41", "public", true, "interface Repository"],
      ["Status", "enum", "45-50", "public", true, "enum class Status(val code: String)"],
      ["Status.ACTIVE", "enum_member", "46-46", "public", true, "ACTIVE(\"a\")"],
      ["Result.Empty", "class", "53-53", "public", true, "object Empty : Result()"],
      ["shout", "function", "62-62", "public", true, "fun String.shout(): String"],
      ["load", "function", "64-67", "internal", false, "internal fun load(path: String): List<User>"],
    ]);
    expect(find(factsOf(file), "UserRepository", "class").heritage).toEqual(["BaseRepository", "Repository"]);
    expectImports(file, [
      { line: 4, specifier: "java.util", names: [{ local: "*", imported: "*" }] },
      { line: 5, specifier: "com.example.models.User", names: [{ local: "Member", imported: "User" }] },
    ]);
    expectCalls(file, [
      [28, "db.query(…).firstOrNull(…)?.also", "also", "db.query(…).firstOrNull(…)", "UserRepository.find"],
      [34, "Database.open", "open", "Database", "UserRepository.Companion.create"],
      [66, "parse(…).map", "map", "parse(…)", "load"],
    ]);
  });
});

describe("Scala", () => {
  const file = "sample.scala";
  test("classes, traits, objects, case classes, enums, members and selector imports", () => {
    expectSymbols(file, [
      ["UserId", "type", "8-8", "public", true, "type UserId = Long", "Identifies a user."],
      ["UserRepository", "class", "11-23", "public", true, "class UserRepository(db: Database, val name: String) extends BaseRepository[User] with Repository", "Stores users."],
      ["UserRepository.name", "field", "11-11", "public", true, "val name: String"],
      ["UserRepository.cache", "field", "12-12", "private", false, "private val cache = mutable.Map.empty[UserId, User]"],
      ["UserRepository.find", "method", "17-20", "public", true, "override def find(id: UserId): Option[User]", "Finds a user."],
      ["UserRepository.log", "method", "22-22", "private", false, "private def log(message: String): Unit"],
      ["Repository", "trait", "25-28", "public", true, "trait Repository"],
      ["Repository.find", "method", "26-26", "public", true, "def find(id: UserId): Option[User]"],
      ["Point.x", "field", "30-30", "public", true, "x: Int"],
      ["UserRepository.apply", "method", "33-33", "public", true, "def apply(db: Database): UserRepository"],
      ["Status.Active", "enum_member", "40-40", "public", true, "Active"],
      ["load", "function", "43-44", "public", true, "def load(path: String)(implicit ec: EC): Future[String]"],
    ]);
    expect(find(factsOf(file), "UserRepository", "class").heritage).toEqual(["BaseRepository", "Repository"]);
    expectImports(file, [
      { line: 3, specifier: "scala.collection.mutable", names: [{ local: "mutable", imported: "mutable" }] },
      { line: 4, specifier: "scala.concurrent.Future", names: [{ local: "Future", imported: "Future" }] },
      { line: 4, specifier: "scala.concurrent.ExecutionContext", names: [{ local: "EC", imported: "ExecutionContext" }] },
      { line: 5, specifier: "java.util", names: [{ local: "*", imported: "*" }] },
    ]);
    expectCalls(file, [
      [19, "cache.get(…).orElse", "orElse", "cache.get(…)", "UserRepository.find"],
      [33, "UserRepository", "UserRepository", undefined, "UserRepository.apply"],
      [44, "scala.io.Source.fromFile", "fromFile", "scala.io.Source", "load"],
    ]);
  });
});

describe("C", () => {
  const file = "sample.c";
  test("macros, structs, unions, enums, typedefs, prototypes, static functions and includes", () => {
    expectSymbols(file, [
      ["MAX_USERS", "constant", "5-5", "public", true, "#define MAX_USERS 100", "Largest number of users."],
      ["SQUARE", "macro", "6-6", "public", true, "#define SQUARE(x) ((x) * (x))"],
      ["user", "struct", "9-12", "public", true, "struct user", "A user record."],
      ["user.name", "field", "11-11", "public", true, "char name[32]"],
      ["user_t", "type", "14-14", "public", true, "typedef struct user user_t"],
      ["value", "union", "16-19", "public", true, "union value"],
      ["status.STATUS_SUSPENDED", "enum_member", "21-21", "public", true, "STATUS_SUSPENDED = 2"],
      ["compare_fn", "type", "23-23", "public", true, "typedef int (*compare_fn)(const void *, const void *)"],
      ["user_count", "variable", "25-25", "public", true, "int user_count = 0"],
      ["greeting", "constant", "26-26", "file", false, "static const char *greeting = \"hello\""],
      ["log_message", "function", "41-45", "file", false, "static void log_message(const char *message)"],
    ]);
    const findUser = factsOf(file).symbols.filter((symbol) => symbol.name === "find_user");
    expect(findUser.map((symbol) => `${symbol.startLine}-${symbol.endLine}`)).toEqual(["28-28", "31-39"]);
    expect(findUser[1]!.doc).toBe("Finds a user by id.");
    expectImports(file, [
      { line: 1, kind: "include", specifier: "stdio.h" },
      { line: 2, kind: "include", specifier: "store.h" },
    ]);
    expectCalls(file, [
      [37, "log_message", "log_message", undefined, "find_user"],
      [43, "printf", "printf", undefined, "log_message"],
    ]);
  });
});

describe("C++", () => {
  const file = "sample.cpp";
  test("namespaces, access sections, out-of-class definitions, templates and enum classes", () => {
    expectSymbols(file, [
      ["store", "namespace", "5-54", "public", true, "namespace store"],
      ["store.kMaxUsers", "constant", "8-8", "public", true, "constexpr int kMaxUsers = 100", "Largest number of users."],
      ["store.UserId", "type", "10-10", "public", true, "using UserId = long"],
      ["store.UserRepository", "class", "13-29", "public", true, "class UserRepository : public BaseRepository, private NonCopyable", "Stores users."],
      ["store.UserRepository.~UserRepository", "constructor", "16-16", "public", true, "~UserRepository() override"],
      ["store.UserRepository.create", "method", "21-21", "public", true, "static UserRepository create()"],
      ["store.UserRepository.hits_", "field", "24-24", "protected", false, "int hits_ = 0"],
      ["store.UserRepository.log", "method", "27-27", "private", false, "void log(const std::string& message)"],
      ["store.Point.x", "field", "32-32", "public", true, "int x"],
      ["store.Status.Active", "enum_member", "37-37", "public", true, "Active"],
      ["store.clamp", "function", "40-42", "public", true, "T clamp(T value, T low, T high)"],
      ["helper", "function", "56-58", "file", false, "static int helper(int value)"],
    ]);
    const finds = factsOf(file).symbols.filter((symbol) => symbol.qualifiedName === "store.UserRepository.find");
    expect(finds.map((symbol) => `${symbol.startLine}-${symbol.endLine}`)).toEqual(["19-19", "48-52"]);
    expect(find(factsOf(file), "store.UserRepository", "class").heritage).toEqual(["BaseRepository", "NonCopyable"]);
    expectImports(file, [{ line: 3, kind: "include", specifier: "repository.hpp" }]);
    expectCalls(file, [
      [41, "std::max", "max", "std", "store.clamp"],
      [49, "User", "User", undefined, "store.UserRepository.find"],
      [51, "db_.query(…)->first", "first", "db_.query(…)", "store.UserRepository.find"],
      [57, "store::clamp", "clamp", "store", "helper"],
    ]);
  });
});

describe("C#", () => {
  const file = "sample.cs";
  test("namespaces, types, members with default visibility, XML docs and usings", () => {
    expectSymbols(file, [
      ["Example.Store.UserChanged", "type", "9-9", "public", true, "public delegate void UserChanged(User user)", "Identifies a user."],
      ["Example.Store.UserRepository", "class", "14-37", "public", true, "public class UserRepository : BaseRepository<User>, IRepository, IDisposable", "Stores users."],
      ["Example.Store.UserRepository.MaxUsers", "constant", "17-17", "public", true, "public const int MaxUsers = 100"],
      ["Example.Store.UserRepository._cache", "field", "18-18", "private", false, "private readonly Dictionary<long, User> _cache = new()"],
      ["Example.Store.UserRepository.Name", "property", "20-20", "internal", false, "internal string Name { get; set; } = \"users\""],
      ["Example.Store.UserRepository.Changed", "field", "21-21", "public", true, "public event UserChanged Changed"],
      ["Example.Store.UserRepository.FindAsync", "method", "29-32", "public", true, "public async Task<User?> FindAsync(long id)", "Finds a user."],
      ["Example.Store.UserRepository.Log", "method", "34-34", "private", false, "private static void Log(string message)"],
      ["Example.Store.UserRepository.Dispose", "method", "36-36", "public", true, "void IDisposable.Dispose()"],
      ["Example.Store.IRepository.Count", "property", "42-42", "public", true, "int Count { get; }"],
      ["Example.Store.Point", "struct", "45-49", "internal", false, "internal struct Point"],
      ["Example.Store.Status.Suspended", "enum_member", "51-51", "public", true, "Suspended = 2"],
      ["Example.Store.Person", "class", "53-53", "public", true, "public record Person(string Name, int Age)"],
    ]);
    expectImports(file, [
      { line: 1, specifier: "System", names: [{ local: "*", imported: "*" }] },
      { line: 3, specifier: "Example.Store.Models", names: [{ local: "Models", imported: "*" }] },
      { line: 4, specifier: "System.Math" },
    ]);
    expectCalls(file, [
      [25, "db.Connect", "Connect", "db", "Example.Store.UserRepository.UserRepository"],
      [31, "Db.QueryAsync(…).ConfigureAwait", "ConfigureAwait", "Db.QueryAsync(…)", "Example.Store.UserRepository.FindAsync"],
    ]);
  });
});

describe("Ruby", () => {
  const file = "sample.rb";
  test("modules, classes, mixins, private sections, singleton methods, attributes and requires", () => {
    expectSymbols(file, [
      ["Store", "module", "5-53", "public", true, "module Store", "Storage of users."],
      ["Store.MAX_USERS", "constant", "7-7", "public", true, "MAX_USERS = 100", "Largest number of users."],
      ["Store.UserRepository", "class", "10-46", "public", true, "class UserRepository < BaseRepository", "Stores users in a database."],
      ["Store.UserRepository.db", "property", "14-14", "public", true, "attr_reader :db"],
      ["Store.UserRepository.initialize", "constructor", "17-21", "public", true, "def initialize(db, name = \"users\")", "Creates a repository."],
      ["Store.UserRepository.build", "method", "28-30", "public", true, "def self.build(config)"],
      ["Store.UserRepository.cache", "method", "34-36", "protected", false, "def cache"],
      ["Store.UserRepository.log", "method", "40-43", "private", false, "def log(message)"],
      ["Store.UserRepository.save!", "method", "45-45", "private", false, "def save!(user)"],
      ["Store.configure", "method", "49-51", "public", true, "def configure"],
      ["helper", "function", "55-57", "public", true, "def helper(value)"],
    ]);
    expect(find(factsOf(file), "Store.UserRepository").heritage).toEqual(["BaseRepository", "Enumerable", "Forwardable"]);
    expectImports(file, [
      { line: 1, kind: "require", specifier: "json" },
      { line: 2, kind: "require", specifier: "./models/user" },
    ]);
    expectCalls(file, [
      [25, "db.query(…).first", "first", "db.query(…)", "Store.UserRepository.find"],
      [41, "puts", "puts", undefined, "Store.UserRepository.log"],
      [45, "db.insert", "insert", "db", "Store.UserRepository.save!"],
      [56, "value.to_s.strip", "strip", "value.to_s", "helper"],
    ]);
  });
});

describe("PHP", () => {
  const file = "sample.php";
  test("namespaces, classes with traits, promoted properties, enums, use groups and requires", () => {
    expectSymbols(file, [
      ["App.Store", "namespace", "4-4", "public", true, "namespace App\\Store"],
      ["App.Store.MAX_USERS", "constant", "13-13", "public", true, "const MAX_USERS = 100", "Largest number of users."],
      ["App.Store.UserRepository", "class", "18-47", "public", true, "class UserRepository extends BaseRepository implements Repository, Counts", "Stores users."],
      ["App.Store.UserRepository.TABLE", "constant", "22-22", "public", true, "public const TABLE = 'users'"],
      ["App.Store.UserRepository.cache", "property", "23-23", "private", false, "private array $cache = []"],
      ["App.Store.UserRepository.__construct", "constructor", "27-30", "public", true, "public function __construct(private Database $db, public string $name = 'users')"],
      ["App.Store.UserRepository.db", "property", "27-27", "private", false, "private Database $db"],
      ["App.Store.UserRepository.find", "method", "33-36", "public", true, "public function find(int $id): ?User", "Finds a user by id."],
      ["App.Store.UserRepository.count", "method", "43-46", "public", true, "function count(): int"],
      ["App.Store.LogsQueries", "trait", "54-57", "public", true, "trait LogsQueries"],
      ["App.Store.Status.Active", "enum_member", "61-61", "public", true, "case Active = 'active'"],
      ["App.Store.create_repository", "function", "65-68", "public", true, "function create_repository(Database $db): UserRepository"],
    ]);
    expect(factsOf(file).symbols.filter((symbol) => symbol.name === "TABLE")).toHaveLength(1);
    expect(find(factsOf(file), "App.Store.UserRepository").heritage).toEqual(["BaseRepository", "Repository", "Counts", "LogsQueries"]);
    expectImports(file, [
      { line: 6, kind: "use", specifier: "App\\Models\\User", names: [{ local: "User", imported: "User" }] },
      { line: 7, kind: "use", specifier: "App\\Contracts\\Countable", names: [{ local: "Counts", imported: "Countable" }] },
      { line: 9, kind: "require", specifier: "./helpers.php" },
      { line: 10, kind: "include", specifier: "config.php" },
    ]);
    expectCalls(file, [
      [29, "parent::__construct", "__construct", "parent", "App.Store.UserRepository.__construct"],
      [35, "$this->db->query(…)?->first", "first", "$this->db->query(…)", "App.Store.UserRepository.find"],
      [40, "Logger::info", "info", "Logger", "App.Store.UserRepository.log"],
      [67, "UserRepository", "UserRepository", undefined, "App.Store.create_repository"],
    ]);
  });
});

describe("Swift", () => {
  const file = "sample.swift";
  test("classes, protocols, structs, enums, extensions and access levels", () => {
    expectSymbols(file, [
      ["maxUsers", "constant", "5-5", "public", true, "public let maxUsers = 100", "Largest number of users."],
      ["counter", "variable", "6-6", "file", false, "fileprivate var counter = 0"],
      ["UserID", "type", "8-8", "public", true, "public typealias UserID = Int"],
      ["UserRepository", "class", "11-37", "public", true, "open class UserRepository: BaseRepository, Repository", "Stores users."],
      ["UserRepository.cache", "property", "12-12", "private", false, "private var cache: [UserID: User] = [:]"],
      ["UserRepository.name", "property", "14-14", "internal", false, "let name: String"],
      ["UserRepository.init", "constructor", "16-19", "public", true, "public init(database: Database, name: String = \"users\")"],
      ["UserRepository.deinit", "method", "21-23", "internal", false, "deinit"],
      ["UserRepository.find", "method", "26-28", "public", true, "public func find(id: UserID) async throws -> User?", "Finds a user by id."],
      ["Repository", "interface", "39-42", "public", true, "public protocol Repository"],
      ["Repository.count", "property", "41-41", "public", true, "var count: Int"],
      ["Point", "struct", "44-51", "internal", false, "struct Point"],
      ["Status.suspended", "enum_member", "55-55", "public", false, "case suspended = \"s\""],
      // Members of an extension are named under the extended type.
      ["UserRepository.description", "property", "61-61", "public", true, "public var description: String"],
      ["makeRepository", "function", "64-66", "internal", false, "func makeRepository() -> UserRepository"],
    ]);
    expect(find(factsOf(file), "UserRepository", "class").heritage).toEqual(["BaseRepository", "Repository", "CustomStringConvertible"]);
    expectImports(file, [
      { line: 1, specifier: "Foundation" },
      { line: 2, specifier: "Models.User", names: [{ local: "User", imported: "User" }] },
    ]);
    expectCalls(file, [
      [18, "super.init", "init", "super", "UserRepository.init"],
      [27, "database.query", "query", "database", "UserRepository.find"],
      [65, "Database.open", "open", "Database", "makeRepository"],
    ]);
    // A subscript parses like a call but calls nothing.
    expect(factsOf(file).calls.some((call) => call.callee === "cache")).toBe(false);
  });
});

describe("Lua", () => {
  const file = "sample.lua";
  test("local and global functions, table methods, the returned module and requires", () => {
    expectSymbols(file, [
      ["json", "variable", "1-1", "file", false, "local json = require(\"cjson\")"],
      ["MAX_USERS", "constant", "5-5", "file", false, "local MAX_USERS = 100", "Largest number of users."],
      ["DEFAULT_NAME", "constant", "6-6", "public", true, "DEFAULT_NAME = \"anonymous\""],
      ["M", "module", "8-8", "public", true, "local M = {}"],
      ["M.new", "method", "11-15", "public", true, "function M.new(db)", "Creates a repository."],
      ["M.find", "method", "18-20", "public", true, "function M:find(id)", "Finds a user by id."],
      ["log", "function", "22-24", "file", false, "local function log(message)"],
      ["configure", "function", "26-28", "public", true, "function configure(options)"],
      ["M.count", "method", "30-32", "public", true, "M.count = function(self)"],
    ]);
    expectImports(file, [
      { line: 1, kind: "require", specifier: "cjson", names: [{ local: "json", imported: "*" }] },
      { line: 2, kind: "require", specifier: "store.util", names: [{ local: "util", imported: "*" }] },
    ]);
    expect(factsOf(file).exportedNames).toEqual([{ name: "default", line: 34, local: "M" }]);
    expectCalls(file, [
      [19, "self.db:query", "query", "self.db", "M.find"],
      [27, "json.encode", "encode", "json", "configure"],
    ]);
  });
});

describe("Bash", () => {
  const file = "sample.sh";
  test("functions in both forms, readonly/exported variables, sourced files and commands", () => {
    expectSymbols(file, [
      ["MAX_USERS", "constant", "8-8", "file", false, "readonly MAX_USERS=100", "Largest number of users."],
      ["STORE_DIR", "variable", "9-9", "public", true, "export STORE_DIR=\"/var/lib/store\""],
      ["counter", "variable", "10-10", "file", false, "counter=0"],
      ["log", "function", "13-16", "public", true, "log()", "Prints a message with a timestamp."],
      ["find_user", "function", "19-23", "public", true, "function find_user", "Finds a user by id."],
      ["main", "function", "25-28", "public", true, "main()"],
    ]);
    noSymbol(file, "message");
    expectImports(file, [
      { line: 4, kind: "include", specifier: "./lib/common.sh" },
      { line: 5, kind: "include", specifier: "$HOME/.config/store.sh" },
    ]);
    expectCalls(file, [
      [15, "date", "date", undefined, "log"],
      [22, "log", "log", undefined, "find_user"],
      [30, "main", "main", undefined, undefined],
    ]);
  });
});

describe("Elixir", () => {
  const file = "sample.ex";
  test("modules, public and private functions, macros, structs, types, @doc and directives", () => {
    expectSymbols(file, [
      ["Store.UserRepository", "module", "1-39", "public", true, "defmodule Store.UserRepository", "Stores users."],
      ["Store.UserRepository.max_users", "constant", "10-10", "public", false, "@max_users 100"],
      ["Store.UserRepository.user_id", "type", "11-11", "public", true, "@type user_id :: integer()"],
      ["Store.UserRepository.db", "field", "13-13", "public", true, ":db"],
      ["Store.UserRepository.find", "method", "17-21", "public", true, "def find(id)", "Finds a user by id."],
      ["Store.UserRepository.start_link", "method", "26-26", "public", true, "def start_link(opts \\\\ [])", "Starts the repository."],
      ["Store.UserRepository.log", "method", "28-30", "private", false, "defp log(message)"],
      ["Store.UserRepository.with_user", "macro", "32-34", "public", true, "defmacro with_user(id, do: block)"],
      ["Store.Describable", "interface", "41-43", "public", true, "defprotocol Store.Describable"],
    ]);
    expectImports(file, [
      { line: 5, specifier: "GenServer" },
      { line: 6, specifier: "Store.User", names: [{ local: "User", imported: "User" }] },
      { line: 6, specifier: "Store.Database", names: [{ local: "Database", imported: "Database" }] },
      { line: 7, specifier: "Ecto.Query" },
      { line: 8, specifier: "Logger" },
    ]);
    expectCalls(file, [
      [19, "Database.query", "query", "Database", "Store.UserRepository.find"],
      [29, "Logger.info", "info", "Logger", "Store.UserRepository.log"],
      [29, "format", "format", undefined, "Store.UserRepository.log"],
    ]);
    // Definition heads, special forms and @spec contents are not calls.
    const names = factsOf(file).calls.map((call) => call.name);
    for (const name of ["def", "find", "quote", "user_id", "integer", "use", "alias"]) expect(names).not.toContain(name);
  });
});

describe("Haskell", () => {
  const file = "sample.hs";
  test("signatures with equations, data types, classes, instances, export list and applications", () => {
    expectSymbols(file, [
      ["maxUsers", "constant", "13-14", "public", true, "maxUsers :: Int", "Largest number of users."],
      ["User", "struct", "17-20", "public", true, "data User", "A stored user."],
      ["User.userId", "field", "17-20", "public", true, "userId :: Int"],
      ["Status", "enum", "22-22", "private", false, "data Status"],
      ["Status.Active", "enum_member", "22-22", "private", false, "Active"],
      ["Repository", "type", "24-24", "public", true, "newtype Repository"],
      ["UserId", "type", "26-26", "private", false, "type UserId = Int"],
      ["Storable", "trait", "29-31", "private", false, "class Storable a", "Things that can be stored."],
      ["Storable.key", "method", "30-30", "private", false, "key :: a -> Int"],
      ["User.describe", "method", "35-35", "public", true, "describe u"],
      ["findUser", "function", "38-39", "public", true, "findUser :: UserId -> Repository -> Maybe User", "Finds a user by id."],
      ["countActive", "function", "41-43", "private", false, "countActive :: [User] -> Int"],
    ]);
    expect(find(factsOf(file), "User", "struct").heritage).toEqual(["Show", "Eq", "Storable"]);
    expectImports(file, [
      { line: 8, specifier: "Data.Map", names: [{ local: "Map", imported: "Map" }] },
      { line: 9, specifier: "Data.Map", names: [{ local: "Map", imported: "*" }] },
      { line: 10, specifier: "Control.Monad", names: [{ local: "forM_", imported: "forM_" }, { local: "when", imported: "when" }] },
    ]);
    expect(factsOf(file).exportedNames.map((entry) => entry.name)).toEqual(["User", "Repository", "findUser", "maxUsers"]);
    expectCalls(file, [
      [39, "Map.lookup", "lookup", "Map", "findUser"],
      [43, "countActive", "countActive", undefined, "countActive"],
      [46, "putStrLn", "putStrLn", undefined, "logUsers"],
    ]);
    // Type applications in signatures are not calls.
    expect(factsOf(file).calls.some((call) => call.name === "Maybe" || call.name === "IO")).toBe(false);
  });
});

describe("Dart", () => {
  const file = "sample.dart";
  test("classes, mixins, extensions, enums, constructors, getters, library privacy and directives", () => {
    expectSymbols(file, [
      ["maxUsers", "constant", "8-8", "public", true, "const int maxUsers = 100"],
      ["_cache", "variable", "9-9", "private", false, "final _cache = <int, String>{}"],
      ["Compare", "type", "11-11", "public", true, "typedef int Compare(Object a, Object b)"],
      ["UserRepository", "class", "14-34", "public", true, "class UserRepository extends BaseRepository with Logging implements Repository", "Stores users."],
      ["UserRepository.db", "field", "15-15", "public", true, "final Database db"],
      ["UserRepository._hits", "field", "16-16", "private", false, "int _hits = 0"],
      ["UserRepository.table", "constant", "17-17", "public", true, "static const String table = 'users'"],
      ["UserRepository.named", "constructor", "21-21", "public", true, "UserRepository.named(this.db, String name) : super(name)"],
      ["UserRepository.find", "method", "24-27", "public", true, "Future<User?> find(int id)", "Finds a user by id."],
      ["UserRepository._log", "method", "29-31", "private", false, "void _log(String message)"],
      ["UserRepository.hits", "property", "33-33", "public", true, "int get hits"],
      ["Logging", "trait", "40-42", "public", true, "mixin Logging"],
      ["Status.active", "enum_member", "44-44", "public", true, "active"],
      ["UserNames.displayName", "property", "47-47", "public", true, "String get displayName"],
      ["main", "function", "50-53", "public", true, "Future<void> main(List<String> args)"],
    ]);
    expect(find(factsOf(file), "UserRepository", "class").heritage).toEqual(["BaseRepository", "Logging", "Repository"]);
    expectImports(file, [
      { line: 1, kind: "import", specifier: "dart:async" },
      { line: 2, kind: "import", specifier: "package:store/models.dart", names: [{ local: "User", imported: "User" }] },
      { line: 4, kind: "reexport", specifier: "src/public.dart" },
      { line: 5, kind: "include", specifier: "sample.g.dart" },
    ]);
    expectCalls(file, [
      [26, "db.query(…).then", "then", "db.query(…)", "UserRepository.find"],
      [51, "Database.open", "open", "Database", "main"],
      [52, "repository.find", "find", "repository", "main"],
    ]);
  });
});

describe("SQL", () => {
  const file = "sample.sql";
  test("tables with columns, views, functions, indexes and types; invocations as calls", () => {
    expectSymbols(file, [
      ["users", "struct", "2-6", "public", true, "CREATE TABLE users", "Users of the store."],
      ["users.created_at", "field", "5-5", "public", true, "created_at TIMESTAMP DEFAULT now()"],
      ["users_name_idx", "constant", "8-8", "public", true, "CREATE INDEX users_name_idx ON users"],
      ["active_users", "type", "11-14", "public", true, "CREATE VIEW active_users", "Active users only."],
      ["user_count", "function", "16-18", "public", true, "CREATE FUNCTION user_count() RETURNS BIGINT"],
      ["status", "type", "20-20", "public", true, "CREATE TYPE status"],
    ]);
    expectCalls(file, [
      [12, "lower", "lower", undefined, "active_users"],
      [17, "count", "count", undefined, "user_count"],
      [22, "coalesce", "coalesce", undefined, undefined],
    ]);
  });
});

describe("documents", () => {
  test("JSON keys two levels deep with value previews", () => {
    expectSymbols("sample.json", [
      ["name", "key", "2-2", "public", true, "\"name\": \"store\""],
      ["scripts", "key", "4-8", "public", true, "\"scripts\": {…}"],
      ["scripts.build", "key", "5-5", "public", true, "\"build\": \"tsc\""],
      ["scripts.nested", "key", "7-7", "public", true, "\"nested\": {…}"],
      ["files", "key", "9-9", "public", true, "\"files\": […]"],
    ]);
    noSymbol("sample.json", "scripts.nested.deep");
  });

  test("YAML mappings (nested and quoted keys)", () => {
    expectSymbols("sample.yaml", [
      ["server", "key", "4-8", "public", true, "server: {…}"],
      ["server.port", "key", "6-6", "public", true, "port: 8080"],
      ["server.tls", "key", "7-8", "public", true, "tls: {…}"],
      ["databases", "key", "9-11", "public", true, "databases: […]"],
      ["quoted key", "key", "12-12", "public", true, "\"quoted key\": yes"],
    ]);
    noSymbol("sample.yaml", "server.tls.enabled");
  });

  test("TOML pairs, tables, dotted tables and array tables", () => {
    expectSymbols("sample.toml", [
      ["title", "key", "2-2", "public", true, "title = \"store\""],
      ["server", "key", "5-7", "public", true, "[server]"],
      ["server.port", "key", "7-7", "public", true, "port = 8080"],
      ["server.tls", "key", "9-10", "public", true, "[server.tls]"],
      ["databases", "key", "12-13", "public", true, "[[databases]]"],
      ["dependencies.serde", "key", "16-16", "public", true, "serde = {…}"],
    ]);
  });
});

describe("markup and stylesheets", () => {
  test("Markdown headings nest by level and span their sections", () => {
    expectSymbols("sample.md", [
      ["Store", "heading", "5-19", "public", true, "# Store"],
      ["Store.Installation", "heading", "9-17", "public", true, "## Installation"],
      ["Store.Installation.From source", "heading", "13-17", "public", true, "### From source"],
      ["Store.Usage", "heading", "19-19", "public", true, "## Usage"],
      ["Setext heading below", "heading", "21-24", "public", true, "# Setext heading below"],
    ]);
  });

  test("HTML headings, ids, custom elements, scripts and stylesheets", () => {
    expectSymbols("sample.html", [
      ["#top", "key", "10-12", "public", true, "<header id=\"top\">"],
      ["User store", "heading", "11-11", "public", true, "<h1> User store"],
      ["User store.Users", "heading", "14-14", "public", true, "<h2> Users"],
      ["#users", "class", "15-15", "public", true, "<user-list id=\"users\" source=\"/api/users\">"],
      ["#query", "key", "17-17", "public", true, "<input id=\"query\" type=\"search\">"],
    ]);
    expectImports("sample.html", [
      { line: 6, kind: "include", specifier: "styles/main.css" },
      { line: 7, kind: "include", specifier: "./app.js" },
    ]);
  });

  test("CSS selectors, custom properties, media blocks, keyframes and imports", () => {
    expectSymbols("sample.css", [
      [":root", "key", "4-7", "public", true, ":root"],
      [":root.--main-color", "variable", "5-5", "public", true, "--main-color: #336699"],
      [".card", "key", "10-12", "public", true, ".card", "Cards on the user list."],
      [".card > .title, .card .subtitle", "key", "14-17", "public", true, ".card > .title, .card .subtitle"],
      ["@media (max-width: 600px)", "namespace", "23-27", "public", true, "@media (max-width: 600px)"],
      ["fade-in", "key", "29-32", "public", true, "@keyframes fade-in"],
    ]);
    expect(find(factsOf("sample.css"), "@media (max-width: 600px)..card").parent).toBe("@media (max-width: 600px)");
    expectImports("sample.css", [
      { line: 1, specifier: "reset.css" },
      { line: 2, specifier: "theme.css" },
    ]);
  });
});

describe("an outline taken without calls", () => {
  test("holds the same declarations, imports, exports and parse errors as the whole facts, in every language", () => {
    const files = readdirSync(FIXTURES);
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) {
      const { calls: _calls, bindings: _bindings, ...whole } = factsOf(file);
      const { calls, bindings, ...outline } = extractFacts(languageOf(file), textOf(file), undefined, { calls: false });
      expect({ file, calls, bindings }).toEqual({ file, calls: [], bindings: undefined });
      expect({ file, ...outline }).toEqual({ file, ...whole });
    }
  });
});
