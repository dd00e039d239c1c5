/**
 * Calls on receivers of known type (Go, Python), through the call tools over a real temp
 * repository and the real index: the method on the receiver's type is the one called, exact; a
 * same-name method of another type is not; a type outside the workspace calls nothing in it. What
 * may dispatch at run time, and why an edge is ambiguous, read the same in every call tool.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { calleesTool } from "../../src/tools/callees.ts";
import { callersTool } from "../../src/tools/callers.ts";
import { contextTool } from "../../src/tools/context.ts";
import { impactTool } from "../../src/tools/impact.ts";
import { traceTool } from "../../src/tools/trace.ts";
import type { ToolContext } from "../../src/tools/contract.ts";
import { makeContext, makeTempDir, runTool, type TempDir } from "../support/context.ts";

let temp: TempDir;
let context: ToolContext;
let cacheDir: string;
const previousCacheDir = process.env.AST_MCP_CACHE_DIR;

const lines = (...text: string[]) => `${text.join("\n")}\n`;

const REPO: Record<string, string> = {
  "go.mod": "module example.com/app\n\ngo 1.21\n",
  "text/segment.go": lines(
    "package text",
    "",
    "type Segment struct{ Start int }",
    "",
    "func (s *Segment) Len() int { return 0 }",
    "",
    "type Segments struct{ values []Segment }",
    "",
    "func (s *Segments) Len() int { return len(s.values) }",
    "",
    "func NewSegments() *Segments { return &Segments{} }",
  ),
  "text/sized.go": lines("package text", "", "type Sized interface {", "\tLen() int", "\tLast() int", "}"),
  "text/segment_more.go": lines("package text", "", "func (s *Segments) Last() int { return 0 }"),
  // Another package's type of the same name, with a method of the same name.
  "ast/segments.go": lines("package ast", "", "type Segments struct{}", "", "func (s *Segments) Last() int { return 1 }"),
  "ast/node.go": lines(
    "package ast",
    "",
    "import \"example.com/app/text\"",
    "",
    "type Node interface {",
    "\tLines() *text.Segments",
    "\tKind() string",
    "}",
    "",
    "type Base struct{ lines *text.Segments }",
    "",
    "func (b *Base) Lines() *text.Segments { return b.lines }",
    "",
    "type Heading struct {",
    "\tBase",
    "\tLevel int",
    "}",
    "",
    "func (h *Heading) Kind() string { return \"heading\" }",
  ),
  "render/writer.go": lines(
    "package render",
    "",
    "type Writer struct{}",
    "",
    "func (w *Writer) Write(p []byte) (int, error) { return len(p), nil }",
    "",
    "type Holder struct {",
    "\tout   *Writer",
    "\tnames []string",
    "}",
    "",
    "var Default = Holder{}",
  ),
  "render/use.go": lines(
    "package render",
    "",
    "import (",
    "\t\"bytes\"",
    "",
    "\t\"example.com/app/ast\"",
    "\t\"example.com/app/text\"",
    ")",
    "",
    "func Emit(n ast.Node, h *Holder) int {",
    "\tvar buf bytes.Buffer",
    "\tbuf.Write(nil)",
    "\th.out.Write(nil)",
    "\tfresh := &Writer{}",
    "\tfresh.Write(nil)",
    "\tsegs := text.NewSegments()",
    "\tn.Kind()",
    "\tcopied := Default",
    "\tcopied.out.Write(nil)",
    "\tvisit(func(inner ast.Node) { inner.Kind() })",
    "\tsegs.Last()",
    "\treturn n.Lines().Len() + segs.Len()",
    "}",
    "",
    "func visit(fn func(ast.Node)) {}",
    "",
    "func Shadow() {",
    "\ttext := &Writer{}",
    "\ttext.Write(nil)",
    "}",
    "",
    "func Measure(s text.Sized) int { return s.Len() }",
    "",
    "func Literal() {",
    "\t(Writer{",
    "\t\tnote: bytes.MinRead,",
    "\t}).Write(nil)",
    "}",
  ),
  "pkg/base.py": lines(
    "class Base:",
    "    def save(self):",
    "        return 1",
    "",
    "    def describe(self):",
    "        return 'base'",
  ),
  "pkg/models.py": lines(
    "from pkg.base import Base",
    "",
    "",
    "class Engine:",
    "    def start(self):",
    "        return True",
    "",
    "",
    "class Other:",
    "    def start(self):",
    "        return False",
    "",
    "    def save(self):",
    "        return 0",
    "",
    "",
    "class Car(Base):",
    "    def __init__(self):",
    "        self.engine = Engine()",
    "",
    "    def save(self):",
    "        super().save()",
    "        return self.engine.start()",
    "",
    "    def describe(self):",
    "        return 'car'",
  ),
  "pkg/loose.py": lines(
    "class Tank:",
    "    def fuel(self):",
    "        return 1",
    "",
    "",
    "def loose(thing):",
    "    return thing.fuel()",
    "",
    "",
    "class Pump:",
    "    def run(self):",
    "        self.prime()",
    "        return fuel()",
    "",
    "",
    "class HandPump(Pump):",
    "    def prime(self):",
    "        return 0",
  ),
  "ts/repo.ts": lines(
    "export class Item {",
    "  render(): string { return \"\"; }",
    "}",
    "",
    "export class Repo {",
    "  find(id: string): Item { return new Item(); }",
    "  async load(id: string): Promise<Item | undefined> { return undefined; }",
    "  save(): void {}",
    "}",
    "",
    "export class Cache {",
    "  save(): void {}",
    "  add(): void {}",
    "}",
    "",
    "export function makeRepo(): Repo { return new Repo(); }",
    "",
    "export class Holder {",
    "  repo: Repo = new Repo();",
    "  cache = new Cache();",
    "}",
  ),
  "ts/service.ts": lines(
    "import { Cache, Holder, makeRepo, Repo } from \"./repo\";",
    "",
    "export class Service {",
    "  private cache = new Cache();",
    "  constructor(private readonly repo: Repo) {}",
    "",
    "  async run(id: string) {",
    "    this.repo.save();",
    "    this.cache.save();",
    "    const found = this.repo.find(id);",
    "    found.render();",
    "    const loaded = await this.repo.load(id);",
    "    loaded.render();",
    "  }",
    "}",
    "",
    "export function direct(repo: Repo, table: Map<string, Repo>) {",
    "  repo.save();",
    "  const made = makeRepo();",
    "  made.save();",
    "  const fresh: Cache = new Cache();",
    "  fresh.save();",
    "  table.set(\"a\", made);",
    "  let later;",
    "  later = new Cache();",
    "  const cast = later as Repo;",
    "  cast.save();",
    "  const seen = /*@__PURE__*/ new Set<string>();",
    "  seen.add(\"a\");",
    "}",
    "",
    "export function unpack(holder: Holder) {",
    "  const { repo, cache: store } = holder;",
    "  repo.save();",
    "  store.save();",
    "  store.add();",
    "}",
    "",
    "export function outer(repo: Repo) {",
    "  function inner() {",
    "    repo.save();",
    "  }",
    "  return inner;",
    "}",
    "",
    "export class Wrapper {",
    "  readonly kept: Cache;",
    "  constructor(source: Holder) {",
    "    this.kept = source.cache;",
    "  }",
    "  use() {",
    "    this.kept.add();",
    "  }",
    "}",
  ),
  "ts/overloads.ts": lines(
    "export class Parser {",
    "  parse(",
    "    text: string,",
    "  ): number",
    "  parse(text: string): number {",
    "    return 1;",
    "  }",
    "}",
  ),
  // A module reached through a namespace import and a star re-export: generic interfaces, `$` names, overloads, fluent `this`.
  "ts/kit/schemas.ts": lines(
    "export interface $Base<T = unknown> {",
    "  parse(input: unknown): T;",
    "}",
    "export interface Internals {",
    "  kind: string;",
    "}",
    "export interface Schema<out I extends Internals = Internals> extends $Base<I> {",
    "  optional(): Schema<I>;",
    "  min(limit: number): this;",
    "  max(limit: number): this;",
    "}",
    "export interface Text extends Schema<Internals> {",
    "  email(): Text;",
    "}",
    "export function text(): Text;",
    "export function text<T extends string>(value: T): $Base<T>;",
    "export function text(value?: string): Text {",
    "  return undefined as never;",
    "}",
    "export class Registry {",
    "  get(id: string): Schema | undefined {",
    "    return undefined;",
    "  }",
    "}",
    "export const registry: Registry = new Registry();",
    "export interface Described {",
    "  describe(): string;",
    "}",
    "export interface Holder<I extends Described = Described> {",
    "  inner: I;",
    "}",
    "export type Visit<T extends Described = Described> = (node: T, registry: Registry) => void;",
    "export type Plain = (registry: Registry) => void;",
    "export interface Made<T extends Described, D = unknown> {",
    "  make(): T;",
    "}",
    "export function made<T extends Described, D = unknown>(name: string, init: (inst: T, def: D) => void): Made<T, D> {",
    "  return undefined as never;",
    "}",
    "export class Tree {",
    "  private get root(): Registry {",
    "    return registry;",
    "  }",
    "  lookup() {",
    "    return this.root.get(\"x\");",
    "  }",
    "}",
  ),
  "ts/kit/index.ts": lines("export * from \"./schemas\";"),
  // Constraints that name each other, as code being edited may hold: the receiver's type cannot be followed to an end.
  "ts/kit/cyclic.ts": lines("export function looped<A extends B, B extends A>(value: A) {", "  value.email();", "}"),
  "ts/kit/decoy.ts": lines(
    "export class Decoy {",
    "  optional(): void {}",
    "  parse(): void {}",
    "  min(): void {}",
    "  max(): void {}",
    "  get(): void {}",
    "  email(): void {}",
    "  describe(): void {}",
    "  spin(): void {}",
    "}",
  ),
  "ts/kit/use.ts": lines(
    "import * as k from \"./index\";",
    "import { Decoy } from \"./decoy\";",
    "",
    "export function build() {",
    "  k.text().optional();",
    "  k.text().min(1).max(2);",
    "  k.registry.get(\"a\");",
    "  k.text().parse(1);",
    "}",
    "",
    "export function generic<S extends k.Schema>(schema: S) {",
    "  schema.optional();",
    "  schema.email();",
    "}",
    "",
    "export function either(value: k.Text | Decoy) {",
    "  value.email();",
    "  return new Decoy();",
    "}",
    "",
    "export function keep<T extends k.Schema>(value: T, note?: string): T {",
    "  return value;",
    "}",
    "",
    "export function kept(text: k.Text) {",
    "  const same = keep(text);",
    "  same.email();",
    "}",
    "",
    "export function peek(holder: k.Holder) {",
    "  holder.inner.describe();",
    "}",
    "",
    "export const visit: k.Visit = (node, registry) => {",
    "  node.describe();",
    "  registry.get(\"a\");",
    "};",
    "export const plain: k.Plain = (registry) => registry.get(\"b\");",
    "",
    "export interface Widget extends k.Described {",
    "  spin(): void;",
    "}",
    "export const Widget: k.Made<Widget> = k.made(\"Widget\", (inst, def) => {",
    "  inst.spin();",
    "});",
    "export const Gadget = k.made<Widget>(\"Gadget\", (inst) => {",
    "  inst.spin();",
    "  inst.describe();",
    "});",
    "",
    "export interface Rule {",
    "  check: (target: k.Described, note?: string) => void;",
    "}",
    "export interface Named {",
    "  label(): string;",
    "}",
    "export const rule: Rule & Named = {",
    "  check(target) {",
    "    target.describe();",
    "  },",
    "  label() {",
    "    return \"\";",
    "  },",
    "};",
  ),
  // A ternary's `this.store : other` is no binding of the field: its assignment in another method is.
  "ts/pick.js": lines(
    "import { Cache } from \"./repo\";",
    "export class Picker {",
    "  pick(flag, other) {",
    "    return flag ? this.store : other;",
    "  }",
    "  fill() {",
    "    this.store = new Cache();",
    "  }",
    "  use() {",
    "    this.store.add();",
    "  }",
    "}",
  ),
  "ts/loose.js": lines("import { Repo } from \"./repo\";", "", "export function loose(thing) {", "  return thing.save();", "}"),
  "pkg/store.py": lines("from pkg.base import Base", "", "", "def keep(item: Base):", "    return item.save()"),
  "pkg/app.py": lines(
    "from pkg.models import Car, Other",
    "",
    "",
    "def run(other: Other):",
    "    car = Car()",
    "    car.describe()",
    "    other.save()",
    "    return car.save()",
  ),
};

beforeAll(async () => {
  cacheDir = await mkdtemp(path.join(tmpdir(), "ast-mcp-cache-"));
  process.env.AST_MCP_CACHE_DIR = cacheDir;
  temp = await makeTempDir("ast-mcp-receiver-calls-");
  for (const [relative, content] of Object.entries(REPO)) await temp.write(relative, content);
  context = await makeContext([temp.dir]);
});

afterAll(async () => {
  context.services.indexes.closeAll();
  await temp.cleanup();
  await rm(cacheDir, { recursive: true, force: true });
  if (previousCacheDir === undefined) delete process.env.AST_MCP_CACHE_DIR;
  else process.env.AST_MCP_CACHE_DIR = previousCacheDir;
});

type Call = { path: string; line: number; caller?: string; confidence: string };

async function callers(symbol: string): Promise<string[]> {
  const result = await runTool(callersTool, { symbol }, context);
  return result.calls.map((call: Call) => `${call.path}:${call.line} ${call.confidence}`);
}

describe("Go receivers", () => {
  test("a method's result type is followed: n.Lines().Len() calls Segments.Len, not Segment.Len; so does a value made by a constructor function", async () => {
    expect(await callers("text/segment.go#Segments.Len")).toEqual(["render/use.go:22 exact", "render/use.go:22 exact"]);
    expect(await callers("text/segment.go#Segment.Len")).toEqual([]);
  });

  test("a bytes.Buffer declared with var calls nothing in the workspace; a field, a literal, a package variable's field and a local named like an import call Writer.Write", async () => {
    expect((await callers("render/writer.go#Writer.Write")).slice(0, 4)).toEqual([
      "render/use.go:13 exact",
      "render/use.go:15 exact",
      "render/use.go:19 exact",
      "render/use.go:29 exact",
    ]);
  });

  test("a parenthesized composite literal spanning lines is the receiver, its fields' dots notwithstanding, and the call sits at the method's line", async () => {
    expect(await callers("render/writer.go#Writer.Write")).toContain("render/use.go:37 exact");
  });

  test("a type's methods are found in the other files of its package, and only there", async () => {
    expect(await callers("text/segment_more.go#Segments.Last")).toEqual(["render/use.go:21 exact"]);
    expect(await callers("ast/segments.go#Segments.Last")).toEqual([]);
  });

  test("a call through an interface value is a call of the interface method, not of an implementation; a func literal's parameter is typed too", async () => {
    expect(await callers("ast/node.go#Node.Kind")).toEqual(["render/use.go:17 exact", "render/use.go:20 exact"]);
    expect(await callers("ast/node.go#Heading.Kind")).toEqual([]);
  });

  test("a method of a type that has every method of an interface lists the calls through it apart, as ones that may dispatch to it", async () => {
    const result = await runTool(callersTool, { symbol: "ast/node.go#Heading.Kind" }, context);
    expect(result.dispatch.map((call: Call & { targets: string[] }) => `${call.path}:${call.line} ${call.targets.join(" ")}`)).toEqual([
      "render/use.go:17 ast/node.go#Node.Kind",
      "render/use.go:20 ast/node.go#Node.Kind",
    ]);
    expect(callersTool.render(result)).toContain("may dispatch here through an interface or a parent's method (2, not counted as calls):");
    // Segments has Len and Last (declared in two files): it is a Sized; Segment has Len alone.
    const sized = await runTool(callersTool, { symbol: "text/segment.go#Segments.Len" }, context);
    expect(sized.dispatch.map((call: Call & { targets: string[] }) => `${call.path}:${call.line} ${call.targets.join(" ")}`)).toEqual(["render/use.go:32 text/sized.go#Sized.Len"]);
    expect((await runTool(callersTool, { symbol: "text/segment.go#Segment.Len" }, context)).dispatch).toBeUndefined();
  });
});

describe("Python receivers", () => {
  test("super().save() calls the parent's save, never the method it is written in", async () => {
    expect(await callers("pkg/base.py#Base.save")).toEqual(["pkg/models.py:22 exact", "pkg/store.py:5 exact"]);
  });

  test("an override shadows its parent for a receiver of the subclass; an annotated parameter's type picks its own method", async () => {
    expect(await callers("pkg/models.py#Car.save")).toEqual(["pkg/app.py:8 exact"]);
    expect(await callers("pkg/models.py#Car.describe")).toEqual(["pkg/app.py:6 exact"]);
    expect(await callers("pkg/base.py#Base.describe")).toEqual([]);
    expect(await callers("pkg/models.py#Other.save")).toEqual(["pkg/app.py:7 exact"]);
  });

  test("a receiver of unknown type makes an ambiguous edge with the reason, even to the only method of that name", async () => {
    const result = await runTool(callersTool, { symbol: "pkg/loose.py#Tank.fuel" }, context);
    expect(result.calls.map((call: Call & { reason?: string }) => `${call.path}:${call.line} ${call.confidence} ${call.reason}`)).toEqual([
      "pkg/loose.py:7 ambiguous receiver `thing` has no known type",
    ]);
    expect(callersTool.render(result)).toContain("[ambiguous: pkg/loose.py#Tank.fuel; receiver `thing` has no known type]");
  });

  test("a bare name calls no method, and self calls no method its class and ancestors lack (a subclass's is not it)", async () => {
    expect(await callers("pkg/loose.py#Tank.fuel")).toEqual(["pkg/loose.py:7 ambiguous"]);
    expect(await callers("pkg/loose.py#HandPump.prime")).toEqual([]);
  });

  test("an attribute set through self in __init__ types the calls on it in every method", async () => {
    expect(await callers("pkg/models.py#Engine.start")).toEqual(["pkg/models.py:23 exact"]);
    expect(await callers("pkg/models.py#Other.start")).toEqual([]);
  });
});

describe("TypeScript and JavaScript receivers", () => {
  test("parameters, parameter properties, fields, constructions, declared results (awaited too), casts and destructured members type the receiver: the method of that type is called, exactly", async () => {
    expect(await callers("ts/repo.ts#Repo.save")).toEqual([
      "ts/service.ts:8 exact",
      "ts/service.ts:18 exact",
      "ts/service.ts:20 exact",
      "ts/service.ts:27 exact",
      "ts/service.ts:34 exact",
      "ts/service.ts:41 exact",
      "ts/loose.js:4 ambiguous",
    ]);
    expect(await callers("ts/repo.ts#Cache.save")).toEqual(["ts/service.ts:9 exact", "ts/service.ts:22 exact", "ts/service.ts:35 exact", "ts/loose.js:4 ambiguous"]);
    expect(await callers("ts/repo.ts#Item.render")).toEqual(["ts/service.ts:11 exact", "ts/service.ts:13 exact"]);
  });

  test("a nested function reads the parameters of the function around it (service.ts:41), and a field's declared type wins over what the constructor assigns it from its parameter (service.ts:52)", async () => {
    expect((await callers("ts/repo.ts#Repo.save")).filter((call) => call.startsWith("ts/service.ts:41"))).toEqual(["ts/service.ts:41 exact"]);
    expect((await callers("ts/repo.ts#Cache.add")).filter((call) => call.startsWith("ts/service.ts:52"))).toEqual(["ts/service.ts:52 exact"]);
  });

  test("an overloaded method is answered for by its implementation, the last declaration, even when a signature spans as many lines", async () => {
    const result = await runTool(callersTool, { symbol: "ts/overloads.ts#Parser.parse" }, context);
    expect(result.symbol.startLine).toBe(5);
  });

  test("a standard type's method (Map.set, Set.add) is no call of a workspace method, and an untyped receiver is ambiguous with the reason", async () => {
    const callees = await runTool(calleesTool, { symbol: "ts/service.ts#direct" }, context);
    expect(callees.calls.map((call: Call & { callee: string }) => call.callee)).not.toContain("table.set");
    // A Set made with new (behind a bundler's annotation) is a standard type: its add is not Cache.add.
    expect(await callers("ts/repo.ts#Cache.add")).toEqual(["ts/pick.js:10 exact", "ts/service.ts:36 exact", "ts/service.ts:52 exact"]);
    const result = await runTool(callersTool, { symbol: "ts/repo.ts#Repo.save" }, context);
    expect(result.calls.at(-1).reason).toBe("receiver `thing` has no known type");
  });
});

type Dispatch = { path: string; line: number; targets: string[] };
const dispatchList = (entries: Dispatch[] | undefined) => (entries ?? []).map((call) => `${call.path}:${call.line} ${call.targets.join(" ")}`);

describe("TypeScript receivers through modules and generics", () => {
  test("a chain that starts at a namespace import follows the module's exports: a function's declared result, a module constant's type", async () => {
    expect(await callers("ts/kit/schemas.ts#Schema.optional")).toContain("ts/kit/use.ts:5 exact");
    expect((await callers("ts/kit/schemas.ts#Registry.get")).filter((call) => call.startsWith("ts/kit/use.ts:7"))).toEqual(["ts/kit/use.ts:7 exact"]);
    for (const decoy of ["optional", "get", "parse", "min"]) expect(await callers(`ts/kit/decoy.ts#Decoy.${decoy}`)).toEqual([]);
  });

  test("an interface's parent is what it extends, not its type parameter's constraint; `$` is part of a type's name", async () => {
    // Text extends Schema<Internals>, Schema<I extends Internals = Internals> extends $Base<I>.
    expect(await callers("ts/kit/schemas.ts#$Base.parse")).toEqual(["ts/kit/use.ts:8 exact"]);
  });

  test("an overloaded function's result is its first signature's; a method returning this keeps the receiver's type", async () => {
    expect(await callers("ts/kit/schemas.ts#Schema.min")).toEqual(["ts/kit/use.ts:6 exact"]);
    expect(await callers("ts/kit/schemas.ts#Schema.max")).toEqual(["ts/kit/use.ts:6 exact"]);
  });

  test("a receiver typed by a type parameter has its constraint's methods; one the constraint lacks is ambiguous with the reason", async () => {
    expect(await callers("ts/kit/schemas.ts#Schema.optional")).toEqual(["ts/kit/use.ts:5 exact", "ts/kit/use.ts:12 exact"]);
    const result = await runTool(callersTool, { symbol: "ts/kit/schemas.ts#Text.email" }, context);
    const generic = result.calls.find((call: Call) => call.line === 13);
    expect(generic).toMatchObject({ confidence: "ambiguous", reason: "receiver `schema` is of type parameter S, whose constraint has no method email" });
  });

  test("an untyped parameter of an arrow assigned to a value of a declared function type has the type of that type's parameter at its place", async () => {
    expect(await callers("ts/kit/schemas.ts#Described.describe")).toContain("ts/kit/use.ts:35 exact");
    expect((await callers("ts/kit/schemas.ts#Registry.get")).filter((call) => /use\.ts:(36|38) /.test(call))).toEqual(["ts/kit/use.ts:36 exact", "ts/kit/use.ts:38 exact"]);
    expect(await callers("ts/kit/decoy.ts#Decoy.get")).toEqual([]);
  });

  test("an untyped parameter of an arrow passed to a generic function has the type the function gives it, the type argument read off the value's declared type or the call", async () => {
    expect(await callers("ts/kit/use.ts#Widget.spin")).toEqual(["ts/kit/use.ts:44 exact", "ts/kit/use.ts:47 exact"]);
    expect((await callers("ts/kit/schemas.ts#Described.describe")).filter((call) => call.startsWith("ts/kit/use.ts:48"))).toEqual(["ts/kit/use.ts:48 exact"]);
    expect(await callers("ts/kit/decoy.ts#Decoy.spin")).toEqual([]);
  });

  test("an untyped parameter of an object literal's method has the type the value's declared type gives that member's parameter", async () => {
    expect((await callers("ts/kit/schemas.ts#Described.describe")).filter((call) => call.startsWith("ts/kit/use.ts:59"))).toEqual(["ts/kit/use.ts:59 exact"]);
    expect((await callers("ts/kit/decoy.ts#Decoy.describe")).filter((call) => call.startsWith("ts/kit/use.ts:59"))).toEqual([]);
  });

  test("a getter reads as a field of its declared result", async () => {
    expect((await callers("ts/kit/schemas.ts#Registry.get")).filter((call) => call.startsWith("ts/kit/schemas.ts"))).toEqual(["ts/kit/schemas.ts:45 exact"]);
    expect(await callers("ts/kit/decoy.ts#Decoy.get")).toEqual([]);
  });

  test("a field typed by its type's type parameter has the parameter's constraint", async () => {
    expect((await callers("ts/kit/schemas.ts#Described.describe")).filter((call) => call.startsWith("ts/kit/use.ts:31"))).toEqual(["ts/kit/use.ts:31 exact"]);
    expect(await callers("ts/kit/decoy.ts#Decoy.describe")).toEqual([]);
  });

  test("a generic function returning its parameter's type gives the argument's type: keep(text) is a Text", async () => {
    expect((await callers("ts/kit/schemas.ts#Text.email")).filter((call) => call.startsWith("ts/kit/use.ts:27"))).toEqual(["ts/kit/use.ts:27 exact"]);
    expect((await callers("ts/kit/decoy.ts#Decoy.email")).filter((call) => call.startsWith("ts/kit/use.ts:27"))).toEqual([]);
  });

  test("a union-typed receiver calls the method of each member that declares it", async () => {
    expect((await callers("ts/kit/schemas.ts#Text.email")).filter((call) => call.startsWith("ts/kit/use.ts:17"))).toEqual(["ts/kit/use.ts:17 exact"]);
    expect((await callers("ts/kit/decoy.ts#Decoy.email")).filter((call) => call.startsWith("ts/kit/use.ts:17"))).toEqual(["ts/kit/use.ts:17 exact"]);
  });
  test("constraints that name each other end the search with a reason instead of recursing for ever", async () => {
    // The answer comes (it overflowed the stack before); the call is a candidate that resolves to nothing, said so.
    const result = await runTool(callersTool, { symbol: "ts/kit/schemas.ts#Text.email" }, context);
    const looped = result.candidates.filter((call: Call) => call.path === "ts/kit/cyclic.ts");
    expect(looped.map((call: Call) => `${call.line} ${call.confidence}`)).toEqual(["2 unresolved"]);
    expect(result.complete).toBe(false);
  });
});

describe("dispatch and reasons in every call tool", () => {
  test("callers of an override list apart the calls of the parent's method it overrides, super calls left out", async () => {
    const result = await runTool(callersTool, { symbol: "pkg/models.py#Car.save" }, context);
    expect(dispatchList(result.dispatch)).toEqual(["pkg/store.py:5 pkg/base.py#Base.save"]);
    // Other.save overrides nothing, and a constructor dispatches nowhere.
    expect((await runTool(callersTool, { symbol: "pkg/models.py#Other.save" }, context)).dispatch).toBeUndefined();
  });

  test("callees list apart, with the implementations and overrides that may run instead, the calls of an interface method or an overridden method", async () => {
    const go = await runTool(calleesTool, { symbol: "render/use.go#Measure" }, context);
    expect(dispatchList(go.dispatch)).toEqual(["render/use.go:32 text/segment.go#Segments.Len"]);
    const python = await runTool(calleesTool, { symbol: "pkg/store.py#keep" }, context);
    expect(python.calls.map((call: Call) => `${call.line} ${call.confidence}`)).toEqual(["5 exact"]);
    expect(dispatchList(python.dispatch)).toEqual(["pkg/store.py:5 pkg/models.py#Car.save"]);
    expect(calleesTool.render(python)).toContain("may dispatch at run time to an implementation or override (1, not counted as calls):");
    // super().save() names the parent's method itself: it dispatches nowhere.
    expect(dispatchList((await runTool(calleesTool, { symbol: "pkg/models.py#Car.save" }, context)).dispatch)).toEqual([]);
  });

  test("callees give an unknown receiver's reason as callers do", async () => {
    const result = await runTool(calleesTool, { symbol: "pkg/loose.py#loose" }, context);
    expect(result.calls.map((call: Call & { reason?: string }) => `${call.line} ${call.confidence} ${call.reason}`)).toEqual(["7 ambiguous receiver `thing` has no known type"]);
    expect(calleesTool.render(result)).toContain("[ambiguous: pkg/loose.py#Tank.fuel; receiver `thing` has no known type]");
  });

  test("trace passes through dispatch, marked as not a call, only where calls alone reach no target", async () => {
    const result = await runTool(traceTool, { from: "pkg/store.py#keep", to: "pkg/models.py#Engine.start" }, context);
    expect(result.paths).toHaveLength(1);
    expect(result.paths[0].dispatch).toBe(true);
    expect(
      result.paths[0].steps.map((step: { symbol: string; line?: number; dispatch?: boolean }) =>
        `${step.symbol}${step.line === undefined ? "" : `:${step.line}`}${step.dispatch ? " dispatch" : ""}`
      ),
    )
      .toEqual(["pkg/store.py#keep:5", "pkg/base.py#Base.save dispatch", "pkg/models.py#Car.save:23", "pkg/models.py#Engine.start"]);
    expect(traceTool.render(result)).toContain("pkg/base.py#Base.save ⇢ may dispatch to pkg/models.py#Car.save");
    // Calls reach Base.save from Car.save (super): no dispatch step is taken.
    const direct = await runTool(traceTool, { from: "pkg/models.py#Car.save", to: "pkg/base.py#Base.save" }, context);
    expect(direct.paths.map((entry: { dispatch?: boolean }) => entry.dispatch)).toEqual([undefined]);
  });

  test("trace gives the reason of an ambiguous step", async () => {
    const result = await runTool(traceTool, { from: "pkg/loose.py#loose", to: "pkg/loose.py#Tank.fuel" }, context);
    expect(result.paths[0].steps[0]).toMatchObject({ confidence: "ambiguous", reason: "receiver `thing` has no known type" });
    expect(traceTool.render(result)).toContain(":7 [ambiguous: receiver `thing` has no known type] → pkg/loose.py#Tank.fuel");
  });

  test("impact lists ambiguous callers with the reason, not followed, and the calls that may dispatch to the symbol", async () => {
    const loose = await runTool(impactTool, { symbol: "pkg/loose.py#Tank.fuel" }, context);
    expect(loose.callers.map((call: Call & { reason?: string }) => `${call.path}:${call.line} ${call.confidence} ${call.reason}`)).toEqual([
      "pkg/loose.py:7 ambiguous receiver `thing` has no known type",
    ]);
    const car = await runTool(impactTool, { symbol: "pkg/models.py#Car.save" }, context);
    expect(dispatchList(car.dispatch)).toEqual(["pkg/store.py:5 pkg/base.py#Base.save"]);
    expect(impactTool.render(car)).toContain("may dispatch here through an interface or a parent's method (1, not counted as calls):");
  });

  test("context lists ambiguous calls with the reason and what may dispatch, both ways, apart from what it packs", async () => {
    const loose = await runTool(contextTool, { target: "pkg/loose.py#loose" }, context);
    expect(loose.ambiguousCallees.map((call: Call & { reason?: string }) => `${call.line} ${call.reason}`)).toEqual(["7 receiver `thing` has no known type"]);
    expect(contextTool.render(loose)).toContain("[ambiguous: pkg/loose.py#Tank.fuel; receiver `thing` has no known type]");
    const keep = await runTool(contextTool, { target: "pkg/store.py#keep" }, context);
    expect(dispatchList(keep.dispatch.callees)).toEqual(["pkg/store.py:5 pkg/models.py#Car.save"]);
    const car = await runTool(contextTool, { target: "pkg/models.py#Car.save" }, context);
    expect(dispatchList(car.dispatch.callers)).toEqual(["pkg/store.py:5 pkg/base.py#Base.save"]);
    const fuel = await runTool(contextTool, { target: "pkg/loose.py#Tank.fuel" }, context);
    expect(fuel.sections.at(-1).text).toContain("[ambiguous: pkg/loose.py#Tank.fuel; receiver `thing` has no known type]");
  });
});
