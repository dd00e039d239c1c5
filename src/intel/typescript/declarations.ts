/**
 * Declarations of one file the way the outline names them: `Class.method`, `ns.fn`,
 * `api.get` (object-literal members of a variable), `default` for default exports.
 * One naming function serves the outline, symbol lookup and "which function is this in".
 */
import type * as TS from "typescript";
import type { TypeScriptModule } from "./load.ts";

export type DeclarationKind =
  | "function"
  | "method"
  | "constructor"
  | "getter"
  | "setter"
  | "variable"
  | "property"
  | "class"
  | "interface"
  | "type"
  | "enum"
  | "namespace";

export interface DeclarationSite {
  qualifiedName: string;
  kind: DeclarationKind;
  /** The declaration node (for variables: the VariableDeclaration). */
  node: TS.Node;
  /** Where the name is written (references start here). */
  nameNode: TS.Node;
  /** The node whose lines the outline reports (for variables: the whole statement). */
  span: TS.Node;
}

function hasDefaultModifier(ts: TypeScriptModule, node: TS.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.DefaultKeyword);
}

function propertyNameText(ts: TypeScriptModule, name: TS.PropertyName | TS.BindingName | undefined, sourceFile: TS.SourceFile): string | undefined {
  if (!name) return undefined;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  if (ts.isComputedPropertyName(name)) return name.getText(sourceFile);
  return undefined;
}

/** The name a node contributes to a qualified name, if any. */
function ownName(ts: TypeScriptModule, node: TS.Node, sourceFile: TS.SourceFile): string | undefined {
  if (ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node)) return node.name?.text ?? (hasDefaultModifier(ts, node) ? "default" : undefined);
  if (ts.isConstructorDeclaration(node)) return "constructor";
  if (
    ts.isMethodDeclaration(node) ||
    ts.isPropertyDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isPropertyAssignment(node) ||
    ts.isShorthandPropertyAssignment(node) ||
    ts.isMethodSignature(node) ||
    ts.isPropertySignature(node)
  ) {
    return propertyNameText(ts, node.name, sourceFile);
  }
  if (ts.isVariableDeclaration(node)) return ts.isIdentifier(node.name) ? node.name.text : undefined;
  if (ts.isModuleDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isEnumDeclaration(node)) return node.name.text;
  if (ts.isExportAssignment(node)) return node.isExportEquals ? undefined : "default";
  return undefined;
}

/** `Outer.Inner.member` from the node's own name and every named ancestor. */
function qualifiedNameOf(ts: TypeScriptModule, node: TS.Node, sourceFile: TS.SourceFile): string {
  const parts: string[] = [];
  for (let current: TS.Node | undefined = node; current && !ts.isSourceFile(current); current = current.parent) {
    const name = ownName(ts, current, sourceFile);
    if (name !== undefined) parts.unshift(name);
  }
  return parts.join(".");
}

function isFunctionLike(ts: TypeScriptModule, node: TS.Node | undefined): node is TS.ArrowFunction | TS.FunctionExpression {
  return node !== undefined && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));
}

/**
 * The named function (or method) a position is in; anonymous callbacks belong to their named
 * container, and code outside any function to the variable or field it initializes.
 */
export function enclosingCallableName(ts: TypeScriptModule, node: TS.Node, sourceFile: TS.SourceFile): string | undefined {
  // A declaration's own name is not inside it: start above the declaration.
  const declaration = node.parent as (TS.Node & { name?: TS.Node }) | undefined;
  const start = declaration && declaration.name === node ? declaration.parent : node.parent;
  let initialized: TS.Node | undefined;
  for (let current: TS.Node | undefined = start; current && !ts.isSourceFile(current); current = current.parent) {
    if (
      ts.isFunctionDeclaration(current) ||
      ts.isMethodDeclaration(current) ||
      ts.isConstructorDeclaration(current) ||
      ts.isGetAccessorDeclaration(current) ||
      ts.isSetAccessorDeclaration(current)
    ) {
      return qualifiedNameOf(ts, current, sourceFile);
    }
    if (isFunctionLike(ts, current)) {
      const holder = current.parent;
      if (ts.isVariableDeclaration(holder) || ts.isPropertyDeclaration(holder) || ts.isPropertyAssignment(holder) || ts.isExportAssignment(holder)) {
        return qualifiedNameOf(ts, holder, sourceFile);
      }
    }
    if (initialized === undefined && (ts.isVariableDeclaration(current) || ts.isPropertyDeclaration(current) || ts.isExportAssignment(current))) initialized = current;
  }
  return initialized ? qualifiedNameOf(ts, initialized, sourceFile) : undefined;
}

/** The outline's declarations: module level, namespaces, class members and object-literal members of variables. */
export function collectDeclarations(ts: TypeScriptModule, sourceFile: TS.SourceFile): DeclarationSite[] {
  const sites: DeclarationSite[] = [];
  const add = (kind: DeclarationKind, node: TS.Node, nameNode: TS.Node, span: TS.Node = node) => {
    sites.push({ qualifiedName: qualifiedNameOf(ts, node, sourceFile), kind, node, nameNode, span });
  };

  const visitClassMembers = (members: readonly TS.ClassElement[]) => {
    for (const member of members) {
      if (ts.isMethodDeclaration(member)) add("method", member, member.name);
      else if (ts.isConstructorDeclaration(member)) add("constructor", member, member.getFirstToken(sourceFile) ?? member);
      else if (ts.isGetAccessorDeclaration(member)) add("getter", member, member.name);
      else if (ts.isSetAccessorDeclaration(member)) add("setter", member, member.name);
      else if (ts.isPropertyDeclaration(member)) add("property", member, member.name);
    }
  };

  const visitObjectMembers = (object: TS.ObjectLiteralExpression) => {
    for (const property of object.properties) {
      if (ts.isMethodDeclaration(property)) add("method", property, property.name);
      else if (ts.isGetAccessorDeclaration(property)) add("getter", property, property.name);
      else if (ts.isSetAccessorDeclaration(property)) add("setter", property, property.name);
      else if (ts.isPropertyAssignment(property) && isFunctionLike(ts, property.initializer)) add("method", property, property.name);
    }
  };

  const visitStatements = (statements: readonly TS.Statement[]) => {
    for (const statement of statements) {
      if (ts.isFunctionDeclaration(statement)) {
        add("function", statement, statement.name ?? statement.getFirstToken(sourceFile) ?? statement);
      } else if (ts.isClassDeclaration(statement)) {
        add("class", statement, statement.name ?? statement.getFirstToken(sourceFile) ?? statement);
        visitClassMembers(statement.members);
      } else if (ts.isInterfaceDeclaration(statement)) {
        add("interface", statement, statement.name);
      } else if (ts.isTypeAliasDeclaration(statement)) {
        add("type", statement, statement.name);
      } else if (ts.isEnumDeclaration(statement)) {
        add("enum", statement, statement.name);
      } else if (ts.isModuleDeclaration(statement)) {
        add("namespace", statement, statement.name);
        let body = statement.body;
        while (body && ts.isModuleDeclaration(body)) {
          add("namespace", body, body.name);
          body = body.body;
        }
        if (body && ts.isModuleBlock(body)) visitStatements(body.statements);
      } else if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) {
          if (!ts.isIdentifier(declaration.name)) continue;
          add("variable", declaration, declaration.name, statement);
          const initializer = declaration.initializer;
          if (initializer && ts.isClassExpression(initializer)) visitClassMembers(initializer.members);
          else if (initializer && ts.isObjectLiteralExpression(initializer)) visitObjectMembers(initializer);
        }
      } else if (ts.isExportAssignment(statement) && !statement.isExportEquals) {
        add("variable", statement, statement.getFirstToken(sourceFile) ?? statement);
      }
    }
  };

  visitStatements(sourceFile.statements);
  return sites;
}

/** The deepest node containing a position (the token there). */
export function nodeAt(ts: TypeScriptModule, sourceFile: TS.SourceFile, position: number): TS.Node {
  let current: TS.Node = sourceFile;
  for (;;) {
    let next: TS.Node | undefined;
    ts.forEachChild(current, (child) => {
      if (next === undefined && child.getStart(sourceFile) <= position && position < child.getEnd()) next = child;
      return undefined;
    });
    if (!next) return current;
    current = next;
  }
}
