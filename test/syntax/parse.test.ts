import { describe, expect, test } from "bun:test";
import { parseSource, parseSourceAsync, parseStatementRun, parseTree, parseTreeAsync, type TopLevelStatements, topLevelStatements } from "../../src/syntax/index.ts";

const LINES = [
  "",
  "import { a } from \"./a.ts\";",
  "",
  "/** Two lines",
  "   of comment. */",
  "export function f(): number {",
  "  return a;",
  "}",
  "",
  "const x = `one",
  "two`;",
  "",
];
const ENDINGS = { lf: "\n", crlf: "\r\n", cr: "\r" } as const;

function lines(statements: TopLevelStatements): Array<[string, number, number]> {
  return Array.from({ length: statements.length }, (_, index) => statements.at(index)).map((statement) => [statement.kind, statement.startLine, statement.endLine]);
}

describe("top-level statements", () => {
  const expected: Array<[string, number, number]> = [["import_statement", 1, 1], ["comment", 3, 4], ["export_statement", 5, 7], ["lexical_declaration", 9, 10]];

  for (const [name, ending] of Object.entries(ENDINGS)) {
    const text = LINES.join(ending);

    test(`count lines alike with ${name} line ends, whichever parse made the tree`, async () => {
      expect(lines(topLevelStatements(parseTree("typescript", text)!))).toEqual(expected);
      expect(lines(topLevelStatements((await parseTreeAsync("typescript", text))!))).toEqual(expected);
      expect(lines(topLevelStatements(parseSource("typescript", text)!.root))).toEqual(expected);
      expect(lines(topLevelStatements((await parseSourceAsync("typescript", text))!.root))).toEqual(expected);
    });

    test(`of a statement run sit at their lines in the file with ${name} line ends`, () => {
      const all = topLevelStatements(parseTree("typescript", text)!);
      const run = parseStatementRun("typescript", text, all.at(1).start, all.at(3).end, all.at(1).startLine)!;
      expect(run.statements.map((statement) => [statement.kind, statement.startLine, statement.endLine])).toEqual(expected.slice(1));
    });
  }
});
