/**
 * The TypeScript side of the accuracy bench (bench/accuracy.ts runs it with bun): type-checks every
 * `.ts` file under ROOT as one program with the TypeScript compiler the project depends on, and
 * prints one JSON object a line, like go-calls.go: each function, class method and interface method
 * declared (test files' marked), and each call whose callee the checker resolves to a declaration,
 * with that declaration's place (the line of its name; an overloaded function's implementation, or an
 * interface's last signature of the name, for every signature; through an interface value, the
 * interface's method). A call the checker cannot resolve (an `any` receiver, or a value imported
 * from a module outside ROOT, which the program does not resolve) is printed without targets.
 * Lines 1-based.
 */
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";

const root = resolve(process.argv[2] ?? ".");
const TEST_FILE = /(?:\.(?:test|spec|bench)\.ts$|(?:^|\/)(?:tests?|__tests__|benchmarks?)\/)/;

function sources(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const full = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...sources(full));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) found.push(full);
  }
  return found;
}

const files = sources(root);
const options: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  allowImportingTsExtensions: true,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
};
// The checker sees the world ast-mcp may read: a module outside ROOT (zod's locale tests import
// `../../../../index.js`, above src/v4) does not resolve, so what is called through it has no
// target and is not scored, as a call ast-mcp cannot follow without reading outside its roots.
const host = ts.createCompilerHost(options);
const inside = (file: string) => resolve(file).startsWith(`${root}/`);
host.resolveModuleNameLiterals = (literals, containingFile, _redirected, compilerOptions) =>
  literals.map((literal) => {
    const found = ts.resolveModuleName(literal.text, containingFile, compilerOptions, host).resolvedModule;
    return { resolvedModule: found && inside(found.resolvedFileName) ? found : undefined };
  });
const program = ts.createProgram(files, options, host);
const checker = program.getTypeChecker();

const print = (record: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(record)}\n`);
const lineOf = (node: ts.Node) => node.getSourceFile().getLineAndCharacterOfPosition(node.getStart()).line + 1;

/**
 * An overload's signature, which another declaration of the name stands for (the one `callers`
 * answers for): a function or method without a body (its implementation follows), or an interface
 * method signature followed by another of the same name (the last one).
 */
function isOverloadSignature(node: ts.Node): boolean {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.body === undefined) return true;
  if (!ts.isMethodSignature(node) || !ts.isInterfaceDeclaration(node.parent)) return false;
  const name = node.name.getText();
  const members = node.parent.members;
  return members.slice(members.indexOf(node) + 1).some((member) => ts.isMethodSignature(member) && member.name.getText() === name);
}

function declare(node: ts.Node, file: string, test: boolean): void {
  if (isOverloadSignature(node)) return;
  if (ts.isFunctionDeclaration(node) && node.name && (ts.isSourceFile(node.parent) || ts.isModuleBlock(node.parent))) {
    print({ t: "decl", file, line: lineOf(node.name), name: node.name.text, kind: "function", ...(test ? { test } : {}) });
  } else if ((ts.isMethodDeclaration(node) || ts.isMethodSignature(node)) && ts.isIdentifier(node.name)) {
    const owner = node.parent;
    if ((ts.isClassDeclaration(owner) || ts.isInterfaceDeclaration(owner)) && owner.name) {
      const kind = ts.isInterfaceDeclaration(owner) ? "interface_method" : "method";
      print({ t: "decl", file, line: lineOf(node.name), name: node.name.text, owner: owner.name.text, kind, ...(test ? { test } : {}) });
    }
  }
}

/** The name a call's callee ends in: `f` of `f()`, `m` of `a.b.m()`. */
function calleeName(call: ts.CallExpression): ts.Identifier | ts.PrivateIdentifier | undefined {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee;
  if (ts.isPropertyAccessExpression(callee)) return callee.name;
  return undefined;
}

function targetsOf(name: ts.Node): Array<{ file: string; line: number }> {
  let symbol = checker.getSymbolAtLocation(name);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const declarations = (symbol?.declarations ?? []).filter((declaration) => ts.isFunctionLike(declaration) || ts.isMethodSignature(declaration));
  const implemented = declarations.filter((declaration) => !isOverloadSignature(declaration));
  return (implemented.length > 0 ? implemented : declarations)
    .map((declaration) => {
      const named = (declaration as ts.NamedDeclaration).name ?? declaration;
      return { file: declaration.getSourceFile().fileName, line: lineOf(named) };
    });
}

for (const source of program.getSourceFiles()) {
  const file = resolve(source.fileName);
  if (!file.startsWith(`${root}/`) || source.isDeclarationFile) continue;
  const test = TEST_FILE.test(file.slice(root.length));
  const visit = (node: ts.Node): void => {
    declare(node, file, test);
    if (ts.isCallExpression(node)) {
      const name = calleeName(node);
      if (name) {
        const targets = targetsOf(name);
        print({ t: "call", file, line: lineOf(name), name: name.text, ...(targets.length > 0 ? { targets } : {}) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
