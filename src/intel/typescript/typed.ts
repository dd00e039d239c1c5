/**
 * Type-aware answers for TypeScript and JavaScript through the TypeScript language service:
 * inferred return types, compiler-resolved references, and the type errors an edit introduces.
 * The syntax-tree answers stay the fast default; these run only when a caller asks for `typed`.
 */
import type * as TS from "typescript";
import { ToolError } from "../../core/errors.ts";
import { LIMITS } from "../../core/limits.ts";
import type { ResolvedPath, Workspace } from "../../policy/workspace.ts";
import { collectDeclarations, type DeclarationKind, type DeclarationSite, enclosingCallableName, nodeAt } from "./declarations.ts";
import type { TypeScriptModule } from "./load.ts";
import { type ProjectInfo, ProjectDisposedError, type ProjectSession } from "./project.ts";
import { requireTypedLanguage, supportsTypedAnswers, type TypeScriptProjects } from "./services.ts";

export interface TypedSymbol {
  /** `Class.method`, `ns.fn`, `api.get`, `default`. */
  qualifiedName: string;
  kind: DeclarationKind;
  /** 1-based lines of the declaration. */
  startLine: number;
  endLine: number;
  /** The inferred (or declared) return type; empty when `error` is set. */
  returnType: string;
  /** `name(params): returnType`. */
  signature: string;
  /** Why this symbol's types could not be computed (the rest of the file is unaffected). */
  error?: string;
}

export interface TypedOutline {
  project: ProjectInfo;
  symbols: TypedSymbol[];
  /** False when LIMITS.intel.typescript.maxOutlineSymbols cut the list. */
  complete: boolean;
}

export type ReferenceTarget = { line: number; column: number } | { symbolName: string };

export interface TypedReference {
  /** Display path, valid as input. */
  path: string;
  /** 1-based line and column (UTF-16 code units) of the name. */
  line: number;
  column: number;
  isDefinition: boolean;
  /** The name is called (or constructed, tagged, decorated, rendered as a JSX tag) here. */
  isCall: boolean;
  /** For calls: the callee as written, e.g. `box.get` or `new Box`. */
  callee?: string;
  /** The named function or method the reference is in. */
  enclosing?: string;
  /** The source line, trimmed and capped. */
  text: string;
}

export interface TypedReferences {
  project: ProjectInfo;
  /** The symbol as the compiler names it, e.g. `function greet(name: string): string`. */
  symbol: string;
  references: TypedReference[];
  /** References in files outside the roots (the compiler's lib, dependencies behind links): counted, not listed. */
  outsideRoots: number;
  /** False when LIMITS.intel.typescript.maxReferences cut the list. */
  complete: boolean;
}

export interface IntroducedDiagnostic {
  path: string;
  line: number;
  column: number;
  code: number;
  message: string;
}

export interface DiagnosticDelta {
  project: ProjectInfo;
  /** Errors in the candidate (and in the files importing it) that the original did not have. */
  introduced: IntroducedDiagnostic[];
  /** Errors counted before and after the change, over the same files. */
  errorsBefore: number;
  errorsAfter: number;
  /** Files importing the changed file that were compared too. */
  importersChecked: number;
  /** False when LIMITS.intel.typescript.maxDiagnostics cut the list or importers were left out. */
  complete: boolean;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function lineOf(sourceFile: TS.SourceFile, position: number): number {
  return sourceFile.getLineAndCharacterOfPosition(position).line + 1;
}

function requireExistingFile(resolved: ResolvedPath): void {
  if (!resolved.exists) throw new ToolError("file_not_found", `${resolved.display} does not exist.`);
  if (resolved.kind !== "file") throw new ToolError("not_a_file", `${resolved.display} is not a regular file.`);
}

/** Cancels long compiler work (a wide findReferences, a big check) when the caller gives up. */
export interface TypedOptions {
  /** The process's projects (ToolServices.typescript). */
  projects: TypeScriptProjects;
  signal?: AbortSignal;
}

async function withSession<T>(workspace: Workspace, resolved: ResolvedPath, options: TypedOptions, work: (session: ProjectSession) => Promise<T>): Promise<T> {
  requireTypedLanguage(resolved);
  try {
    return await (await options.projects.projectFor(workspace, resolved)).use(workspace, work, options.signal);
  } catch (error) {
    if (!(error instanceof ProjectDisposedError)) throw error;
    return (await options.projects.projectFor(workspace, resolved)).use(workspace, work, options.signal);
  }
}

async function sourceFileOf(session: ProjectSession, resolved: ResolvedPath): Promise<{ program: TS.Program; sourceFile: TS.SourceFile }> {
  session.ensureRoot(resolved.real);
  const program = await session.program();
  const sourceFile = program.getSourceFile(resolved.real);
  if (!sourceFile) {
    const hint = "Use the syntax-tree answer (leave typed off) for this file.";
    if (/\.[cm]?jsx?$/.test(resolved.real) && program.getCompilerOptions().allowJs !== true) {
      throw new ToolError("invalid_input", `${resolved.display} is JavaScript and its project's tsconfig does not set allowJs, so the compiler does not read it.`, { hint });
    }
    throw new ToolError(
      "file_too_large",
      `${resolved.display} is not part of the TypeScript program (larger than ${LIMITS.intel.typescript.maxFileBytes} bytes, or not readable).`,
      { hint },
    );
  }
  return { program, sourceFile };
}

// ───────────────────────────── inferred return types ─────────────────────────────

const CALLABLE_KINDS: ReadonlySet<DeclarationKind> = new Set(["function", "method", "constructor", "getter", "setter", "variable", "property"]);

function signaturesOf(ts: TypeScriptModule, checker: TS.TypeChecker, site: DeclarationSite): readonly TS.Signature[] {
  const node = site.node;
  if (
    ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)
  ) {
    const signature = checker.getSignatureFromDeclaration(node);
    return signature ? [signature] : [];
  }
  const initializer = ts.isVariableDeclaration(node) || ts.isPropertyDeclaration(node) || ts.isPropertyAssignment(node) ?
    node.initializer :
    ts.isExportAssignment(node) ?
    node.expression :
    undefined;
  if (initializer && (ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer))) {
    const signature = checker.getSignatureFromDeclaration(initializer);
    return signature ? [signature] : [];
  }
  // Wrapped forms (`memo(() => …)`, `debounce(fn)`): whatever the value's type lets you call.
  const valueNode = ts.isExportAssignment(node) ? node.expression : site.nameNode;
  return checker.getTypeAtLocation(valueNode).getCallSignatures();
}

/** One declaration's rows (one per call signature), or one row marking why its types failed. */
export function typedRows(ts: TypeScriptModule, checker: TS.TypeChecker, sourceFile: TS.SourceFile, site: DeclarationSite): TypedSymbol[] {
  const base = {
    qualifiedName: site.qualifiedName,
    kind: site.kind,
    startLine: lineOf(sourceFile, site.span.getStart(sourceFile)),
    endLine: lineOf(sourceFile, site.span.getEnd()),
  };
  const flags = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope;
  const max = LIMITS.intel.typescript.maxTypeChars;
  const shortName = site.qualifiedName.slice(site.qualifiedName.lastIndexOf(".") + 1);
  try {
    const signatures = signaturesOf(ts, checker, site);
    return signatures.map((signature) => ({
      ...base,
      returnType: cut(checker.typeToString(checker.getReturnTypeOfSignature(signature), site.node, flags), max),
      signature: cut(`${shortName}${checker.signatureToString(signature, site.node, flags)}`, max),
    }));
  } catch (error) {
    return [{ ...base, returnType: "", signature: "", error: cut(error instanceof Error ? error.message : String(error), LIMITS.intel.typescript.maxMessageChars) }];
  }
}

/** Inferred return types and signatures of the file's functions, methods and callable values. */
export async function typedOutline(workspace: Workspace, resolved: ResolvedPath, options: TypedOptions): Promise<TypedOutline> {
  requireExistingFile(resolved);
  return withSession(workspace, resolved, options, async (session) => {
    const { program, sourceFile } = await sourceFileOf(session, resolved);
    const checker = program.getTypeChecker();
    const symbols: TypedSymbol[] = [];
    let complete = true;
    for (const site of collectDeclarations(session.ts, sourceFile)) {
      if (!CALLABLE_KINDS.has(site.kind)) continue;
      for (const row of typedRows(session.ts, checker, sourceFile, site)) {
        if (symbols.length >= LIMITS.intel.typescript.maxOutlineSymbols) {
          complete = false;
          break;
        }
        symbols.push(row);
      }
    }
    return { project: session.info(), symbols, complete };
  });
}

// ───────────────────────────── references ─────────────────────────────

function positionOf(sourceFile: TS.SourceFile, resolved: ResolvedPath, line: number, column: number): number {
  const starts = sourceFile.getLineStarts();
  const lineStart = starts[line - 1];
  if (!Number.isInteger(line) || line < 1 || lineStart === undefined) {
    throw new ToolError("invalid_range", `line ${line} is outside ${resolved.display} (${starts.length} lines).`);
  }
  const lineEnd = starts[line] ?? sourceFile.text.length;
  if (!Number.isInteger(column) || column < 1 || lineStart + column - 1 > lineEnd) {
    throw new ToolError("invalid_range", `column ${column} is outside line ${line} of ${resolved.display}.`);
  }
  return lineStart + column - 1;
}

function siteFor(ts: TypeScriptModule, checker: TS.TypeChecker, sourceFile: TS.SourceFile, resolved: ResolvedPath, symbolName: string): DeclarationSite {
  const sites = collectDeclarations(ts, sourceFile);
  const exact = sites.filter((site) => site.qualifiedName === symbolName);
  const matches = exact.length > 0 ? exact : sites.filter((site) => site.qualifiedName.endsWith(`.${symbolName}`));
  if (matches.length === 0) {
    throw new ToolError("invalid_input", `no declaration named ${JSON.stringify(symbolName)} in ${resolved.display}.`, {
      hint: "Pass a name from the file's outline (Class.method works), or a line and column.",
      details: { available: sites.slice(0, 30).map((site) => site.qualifiedName) },
    });
  }
  // Overloads and declaration merging name one symbol several times: that is not ambiguous.
  const symbols = new Set(matches.map((site) => checker.getSymbolAtLocation(site.nameNode) ?? site));
  if (symbols.size > 1) {
    throw new ToolError("invalid_input", `${JSON.stringify(symbolName)} names ${symbols.size} declarations in ${resolved.display}.`, {
      hint: "Pass the qualified name (e.g. Class.method) or a line and column.",
      details: { candidates: matches.map((site) => ({ name: site.qualifiedName, line: lineOf(sourceFile, site.nameNode.getStart(sourceFile)) })) },
    });
  }
  return matches[0] as DeclarationSite;
}

/** The callee expression when the name is called here (or constructed, tagged, decorated, rendered as a JSX tag). */
function calleeAt(ts: TypeScriptModule, node: TS.Node, sourceFile: TS.SourceFile): string | undefined {
  let expression = node;
  const parent = node.parent;
  if (parent && ts.isPropertyAccessExpression(parent) && parent.name === node) expression = parent;
  const user = expression.parent;
  if (!user) return undefined;
  const called = ((ts.isCallExpression(user) || ts.isNewExpression(user)) && user.expression === expression) ||
    (ts.isTaggedTemplateExpression(user) && user.tag === expression) ||
    (ts.isDecorator(user) && user.expression === expression) ||
    ((ts.isJsxOpeningElement(user) || ts.isJsxSelfClosingElement(user)) && user.tagName === expression);
  if (!called) return undefined;
  const text = expression.getText(sourceFile).replace(/\s+/g, " ");
  return cut(ts.isNewExpression(user) ? `new ${text}` : text, LIMITS.intel.typescript.maxLineTextChars);
}

function lineText(sourceFile: TS.SourceFile, line: number): string {
  const starts = sourceFile.getLineStarts();
  const start = starts[line - 1] ?? 0;
  const end = starts[line] ?? sourceFile.text.length;
  return cut(sourceFile.text.slice(start, end).trim(), LIMITS.intel.typescript.maxLineTextChars);
}

/** Every reference the compiler resolves to the symbol at a position (or named in the file). */
export async function typedReferences(workspace: Workspace, resolved: ResolvedPath, target: ReferenceTarget, options: TypedOptions): Promise<TypedReferences> {
  requireExistingFile(resolved);
  return withSession(workspace, resolved, options, async (session) => {
    const ts = session.ts;
    const { program, sourceFile } = await sourceFileOf(session, resolved);
    const checker = program.getTypeChecker();
    const position = "symbolName" in target ?
      siteFor(ts, checker, sourceFile, resolved, target.symbolName).nameNode.getStart(sourceFile) :
      positionOf(sourceFile, resolved, target.line, target.column);
    const found = session.service.findReferences(resolved.real, position);
    if (!found || found.length === 0) {
      const where = "symbolName" in target ? JSON.stringify(target.symbolName) : `line ${target.line}, column ${target.column}`;
      throw new ToolError("invalid_input", `no symbol the compiler can follow at ${where} in ${resolved.display}.`, {
        hint: "Point at an identifier (the name of a declaration or a use of it).",
      });
    }
    // Imports that alias the symbol form groups of their own; the first group is the symbol itself.
    const symbol = cut((found[0] as TS.ReferencedSymbol).definition.displayParts.map((part) => part.text).join(""), LIMITS.intel.typescript.maxTypeChars);
    const seen = new Set<string>();
    const references: TypedReference[] = [];
    let outsideRoots = 0;
    for (const entry of found.flatMap((group) => group.references)) {
      const key = `${entry.fileName}:${entry.textSpan.start}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const real = session.approvedReal(entry.fileName);
      const file = program.getSourceFile(entry.fileName);
      if (real === undefined || !file) {
        outsideRoots++;
        continue;
      }
      const { line, character } = file.getLineAndCharacterOfPosition(entry.textSpan.start);
      const node = nodeAt(ts, file, entry.textSpan.start);
      const enclosing = enclosingCallableName(ts, node, file);
      const callee = calleeAt(ts, node, file);
      references.push({
        path: workspace.display(real),
        line: line + 1,
        column: character + 1,
        isDefinition: (entry as TS.ReferencedSymbolEntry).isDefinition === true,
        isCall: callee !== undefined,
        ...(callee !== undefined ? { callee } : {}),
        ...(enclosing !== undefined ? { enclosing } : {}),
        text: lineText(file, line + 1),
      });
    }
    references.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line || a.column - b.column));
    const max = LIMITS.intel.typescript.maxReferences;
    return { project: session.info(), symbol, references: references.slice(0, max), outsideRoots, complete: references.length <= max };
  });
}

// ───────────────────────────── diagnostic delta ─────────────────────────────

interface KeyedDiagnostic extends IntroducedDiagnostic {
  key: string;
}

function errorsOf(session: ProjectSession, program: TS.Program, workspace: Workspace, fileName: string): KeyedDiagnostic[] {
  const ts = session.ts;
  const sourceFile = program.getSourceFile(fileName);
  const real = session.approvedReal(fileName);
  if (!sourceFile || real === undefined) return [];
  const diagnostics = [...session.service.getSyntacticDiagnostics(fileName), ...session.service.getSemanticDiagnostics(fileName)];
  const shown = workspace.display(real);
  return diagnostics
    .filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error)
    .map((diagnostic) => {
      const start = diagnostic.start ?? 0;
      const { line, character } = sourceFile.getLineAndCharacterOfPosition(start);
      const message = cut(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"), LIMITS.intel.typescript.maxMessageChars);
      // Line numbers move with the edit; the line's content does not.
      const key = `${fileName}\0${diagnostic.code}\0${message}\0${lineText(sourceFile, line + 1)}`;
      return { key, path: shown, line: line + 1, column: character + 1, code: diagnostic.code, message };
    });
}

/** Files importing a file, following re-exports (`export … from`) on to their importers. */
function importersOf(session: ProjectSession, program: TS.Program, fileName: string): { files: string[]; complete: boolean } {
  const ts = session.ts;
  const max = LIMITS.intel.typescript.maxDeltaImporters;
  const importers = new Set<string>();
  const queue = [fileName];
  let complete = true;
  while (queue.length > 0) {
    const target = queue.shift() as string;
    for (const entry of session.service.getFileReferences(target)) {
      if (entry.fileName === fileName || importers.has(entry.fileName) || session.approvedReal(entry.fileName) === undefined) continue;
      if (importers.size >= max) {
        complete = false;
        break;
      }
      importers.add(entry.fileName);
      const importer = program.getSourceFile(entry.fileName);
      if (importer && ts.findAncestor(nodeAt(ts, importer, entry.textSpan.start), ts.isExportDeclaration)) queue.push(entry.fileName);
    }
  }
  return { files: [...importers].sort(), complete };
}

/**
 * The type errors a candidate introduces: errors of the candidate (and of the files importing it)
 * minus those of the original, matched by code, message and the content of their line.
 * `beforeText` undefined means the file is new. Nothing is written anywhere.
 */
export async function diagnosticDelta(
  workspace: Workspace,
  resolved: ResolvedPath,
  beforeText: string | undefined,
  afterText: string,
  options: TypedOptions,
): Promise<DiagnosticDelta> {
  return withSession(workspace, resolved, options, async (session) => {
    const fileName = resolved.real;
    let importers: { files: string[]; complete: boolean } = { files: [], complete: true };
    let before: KeyedDiagnostic[] = [];
    if (beforeText !== undefined) {
      if (resolved.exists) session.ensureRoot(fileName);
      let program = await session.program();
      if (program.getSourceFile(fileName)?.text !== beforeText) {
        session.setOverlay(fileName, beforeText);
        program = await session.program();
      }
      importers = importersOf(session, program, fileName);
      before = [fileName, ...importers.files].flatMap((file) => errorsOf(session, program, workspace, file));
    }
    session.setOverlay(fileName, afterText);
    const program = await session.program();
    const after = [fileName, ...importers.files].flatMap((file) => errorsOf(session, program, workspace, file));

    const remaining = new Map<string, number>();
    for (const diagnostic of before) remaining.set(diagnostic.key, (remaining.get(diagnostic.key) ?? 0) + 1);
    const introduced: IntroducedDiagnostic[] = [];
    for (const { key, ...diagnostic } of after) {
      const left = remaining.get(key) ?? 0;
      if (left > 0) remaining.set(key, left - 1);
      else introduced.push(diagnostic);
    }
    const max = LIMITS.intel.typescript.maxDiagnostics;
    return {
      project: session.info(),
      introduced: introduced.slice(0, max),
      errorsBefore: before.length,
      errorsAfter: after.length,
      importersChecked: importers.files.length,
      complete: introduced.length <= max && importers.complete,
    };
  });
}

// ───────────────────────────── report for a write ─────────────────────────────

export interface TypeErrorReport {
  checked: boolean;
  introduced: IntroducedDiagnostic[];
  errorsBefore: number;
  errorsAfter: number;
  complete: boolean;
  /** Why nothing was checked, or what limited the check. */
  note?: string;
}

/**
 * The type errors a write would introduce, for a write's result: never throws, because type errors
 * (or a compiler failure) are reported next to the write, never a reason to refuse it.
 */
export async function typeErrorReport(
  workspace: Workspace,
  resolved: ResolvedPath,
  beforeText: string | undefined,
  afterText: string,
  options: TypedOptions,
): Promise<TypeErrorReport> {
  const unchecked = (note: string): TypeErrorReport => ({ checked: false, introduced: [], errorsBefore: 0, errorsAfter: 0, complete: false, note });
  if (!supportsTypedAnswers(resolved.real)) return unchecked("type errors are checked for TypeScript and JavaScript files only");
  try {
    const delta = await diagnosticDelta(workspace, resolved, beforeText, afterText, options);
    const notes = [...delta.project.notes];
    if (delta.importersChecked > 0) notes.unshift(`also checked ${delta.importersChecked} importing file${delta.importersChecked === 1 ? "" : "s"}`);
    return {
      checked: true,
      introduced: delta.introduced,
      errorsBefore: delta.errorsBefore,
      errorsAfter: delta.errorsAfter,
      complete: delta.complete,
      ...(notes.length > 0 ? { note: cut(notes.join("; "), LIMITS.intel.typescript.maxMessageChars) } : {}),
    };
  } catch (error) {
    // A cancelled call stays cancelled; anything else is reported, never a reason to refuse the write.
    options.signal?.throwIfAborted();
    return unchecked(`the TypeScript check failed: ${cut(error instanceof Error ? error.message : String(error), LIMITS.intel.typescript.maxMessageChars)}`);
  }
}
