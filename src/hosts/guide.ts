/**
 * What the model is told about ast-mcp, in one place: the server's initialize instructions, the
 * guidance block the installer writes into AGENTS.md/CLAUDE.md, and the skill's SKILL.md. All three
 * lead with the reading tools (digest a folder → map a file → show a symbol → search a concept →
 * callers before changing a signature), then the guarded writes. Every tool they name is looked up
 * in the tool catalog while rendering, so a renamed or removed tool fails generation and its test
 * instead of leaving stale advice; scripts/gen-catalog.ts writes the files.
 */
import type { AnyTool } from "../tools/contract.ts";

export const GUIDANCE_PATH = "templates/AGENTS.md";
export const SKILL_PATH = "templates/skills/ast-mcp/SKILL.md";
export const INSTRUCTIONS_PATH = "src/server/instructions.ts";

/** One step of a workflow: `{name}` in the text stands for the tool `name`, checked against the catalog. */
interface Step {
  lead: string;
  text: string;
}

/** The reading path, in the order a model meets unfamiliar code. */
const READ_PATH: readonly Step[] = [
  { lead: "Digest a folder", text: "{digest} gives a one-page map of a directory you do not know: its files, public types, functions and constants." },
  { lead: "Map a file", text: "{map} lists every declaration with its 1-based line range and signature, no bodies." },
  { lead: "Show a symbol", text: "{show} returns the source of a named function, class or method (`Class.method` works); cheaper than reading the file." },
  { lead: "Search a concept", text: "{search} ranks code by names, signatures, doc comments and text: use it to find where something is implemented." },
  {
    lead: "Callers before changing a signature",
    text: "{callers} lists every call site, resolved through imports; {impact} adds what else the change can break and the tests to run.",
  },
];

/** The guarded write path. */
const WRITE_PATH: readonly Step[] = [
  { lead: "Read", text: "{file_read} the lines you will change (1-based ranges); it returns the file's `sha256`." },
  { lead: "Preview", text: "{file_patch} with `preview: true` (Aider SEARCH/REPLACE blocks, or `ast` rules) returns the diff and a `previewReceipt`, and writes nothing." },
  { lead: "Hash", text: "every write to an existing file names the `expectedSha256` you read; `stale_hash` means it changed: read it again." },
  { lead: "Commit", text: "send `{\"previewReceipt\": …}` for the file, or the same edit without `preview`." },
  { lead: "Verify", text: "read the changed lines back and run the project's tests in the shell; {file_undo} takes back the last batch." },
];

/** "Which tool" rows; every tool of the catalog has one (a test holds that). */
const WHICH_TOOL: ReadonlyArray<{ want: string; use: string }> = [
  { want: "get to know a folder you have not seen", use: "{digest}" },
  { want: "see a file's declarations, line ranges and signatures", use: "{map}" },
  { want: "read one function, class or method", use: "{show}; with what it calls and who calls it: {context}" },
  { want: "find where a concept is implemented", use: "{search}; code like a given place: {find_related}" },
  { want: "know who calls a function (before changing its signature)", use: "{callers}" },
  { want: "know what a function calls, or how one reaches another", use: "{callees} / {trace}" },
  { want: "know what a change can break, and which tests to run", use: "{impact}" },
  { want: "see a module's public API", use: "{surface}" },
  { want: "find the implementations of an interface or class", use: "{implements}" },
  { want: "know what a file imports / what imports it", use: "{deps} / {reverse_deps}" },
  { want: "see the import graph / its cycles", use: "{graph} / {cycles}" },
  { want: "find or rewrite code by syntax-tree pattern across files", use: "{run} (structural search and rewrite, previewed like a patch)" },
  { want: "read a long log or test output compactly", use: "{squeeze}" },
  { want: "read lines / know a file's hash", use: "{file_read} / {file_hash}" },
  { want: "read a JSON, TOML or YAML value", use: "{document_query}" },
  { want: "edit part of a file", use: "{file_patch} (`patchStrategy: \"aider_block\"` or `\"ast\"`)" },
  { want: "create a file, or replace all of it", use: "{file_write} (`expectedSha256: null` for a new file)" },
  { want: "move or rename", use: "{file_rename} (never overwrites)" },
  { want: "delete", use: "{file_delete} (refuses files others import unless `force`)" },
  { want: "change permissions", use: "{file_chattr}" },
  { want: "take a change back", use: "{file_undo} (the batchId a commit returned; recent ones: {journal_list})" },
  { want: "know what a file is and what the policy allows", use: "{file_capabilities} / {policy_check}" },
  { want: "see the roots, effective settings and index coverage", use: "{config_status} / {index}" },
];

/** Replaces each `{name}` with the tool's name in backticks; a name the catalog lacks is an error. */
function withTools(text: string, tools: readonly AnyTool[]): string {
  const names = new Set(tools.map((tool) => tool.name));
  return text.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    if (!names.has(name)) throw new Error(`the guidance names the tool "${name}", which the tool catalog does not have; update src/hosts/guide.ts`);
    return `\`${name}\``;
  });
}

/** The tool names the "which tool" table mentions (a test holds that it covers the catalog). */
export function toolsInWhichTable(): string[] {
  return WHICH_TOOL.flatMap((row) => [...row.use.matchAll(/\{([a-z_]+)\}/g)].map((match) => match[1] as string));
}

function numbered(steps: readonly Step[], tools: readonly AnyTool[]): string[] {
  return steps.map((step, index) => `${index + 1}. **${step.lead}**: ${withTools(step.text, tools)}`);
}

function whichTable(tools: readonly AnyTool[]): string[] {
  return ["| you want to | use |", "|---|---|", ...WHICH_TOOL.map((row) => `| ${row.want} | ${withTools(row.use, tools)} |`)];
}

/** The reading path as one line: "digest a folder (`digest`) → …". */
function readChain(tools: readonly AnyTool[]): string {
  return READ_PATH.map((step) => {
    const first = /\{([a-z_]+)\}/.exec(step.text)?.[1] as string;
    return `${step.lead.toLowerCase()} (${withTools(`{${first}}`, tools)})`;
  }).join(" → ");
}

const RUN_IS = "{run} is structural search and rewrite by syntax-tree pattern (ast-grep), previewed and undoable like a patch.";

/** The server's initialize instructions: short, every sentence an action. */
export function renderInstructions(tools: readonly AnyTool[]): string[] {
  return [
    "ast-mcp reads code through syntax trees and changes files only through guarded, root-confined writes.",
    `Read in this order: ${readChain(tools)}; then ${withTools("{impact}", tools)} for what a change can break and the tests to run.`,
    withTools(
      "Change files with guarded writes: {file_read} gives the sha256, {file_patch} with preview: true gives the diff and a previewReceipt, commit the receipt; {file_write} creates files, {file_undo} takes a batch back.",
      tools,
    ),
    withTools(RUN_IS, tools),
    "Paths are absolute or relative to the first root; lines are 1-based; hashes are lowercase hex SHA-256.",
    withTools("Failed calls return {error: {code, message, hint, retryable, suggestedNextCall}}: follow the hint; {config_status} shows the roots and settings.", tools),
  ];
}

/** The managed guidance block the installer writes into AGENTS.md / CLAUDE.md / GEMINI.md. */
export function renderGuidance(tools: readonly AnyTool[]): string {
  return `${
    [
      "## Reading and editing code: use the ast-mcp tools",
      "",
      "This repository is served by the **ast-mcp** MCP server. Read code with its syntax-tree tools instead of reading whole files, and change files through its guarded writes, not with built-in edit tools or shell writes (`>`, `sed -i`, `tee`, `cp`, `rm`, formatters with `--write`/`--fix`, …); a hook may refuse those and name the tool to use.",
      "",
      "Reading:",
      "",
      ...numbered(READ_PATH, tools),
      "",
      "Writing:",
      "",
      ...numbered(WRITE_PATH, tools),
      "",
      withTools(
        `New or wholly rewritten files: {file_write}. Moves: {file_rename}. Deletions: {file_delete}. ${RUN_IS} Errors carry a \`hint\` and often a \`suggestedNextCall\`: follow them. The \`ast-mcp\` skill has the full tool catalog and every error code.`,
        tools,
      ),
    ].join("\n")
  }\n`;
}

const SKILL_DESCRIPTION =
  "Read and change this repository through the ast-mcp MCP tools (digest a folder, map a file, show a symbol, search code, find callers and impact before changing a signature; previewed hash-guarded patches, structural rewrites, undo). Use it to explore unfamiliar code, before changing a function's signature, for every file edit, create, rename or delete, and whenever a hook refused a direct edit or a shell command that writes files.";

/** The skill's SKILL.md (front matter first: hosts read it from the top; the description stays a plain YAML scalar, so no ": "). */
export function renderSkill(tools: readonly AnyTool[]): string {
  return `${
    [
      "---",
      "name: ast-mcp",
      `description: ${SKILL_DESCRIPTION}`,
      "---",
      "",
      "<!-- Generated by scripts/gen-catalog.ts from src/hosts/guide.ts and the tool catalog; do not edit by hand. -->",
      "",
      "# ast-mcp",
      "",
      "ast-mcp serves tools that read a repository through its syntax trees (outlines, symbols, search,",
      "call and import graphs) and change it only through guarded writes: every write names the hash of",
      "the content it replaces, is checked for new syntax errors, keeps the file's encoding and line",
      "endings, and is journaled so it can be undone.",
      "",
      "## Reading code",
      "",
      ...numbered(READ_PATH, tools),
      "",
      withTools("Read exact lines with {file_read} once you know which lines you need.", tools),
      "",
      "## Changing code",
      "",
      ...numbered(WRITE_PATH, tools),
      "",
      "Several files in one call commit together or not at all (up to 50).",
      withTools(RUN_IS, tools),
      "",
      "## Which tool",
      "",
      ...whichTable(tools),
      "",
      "## References",
      "",
      "- [references/workflow.md](references/workflow.md): the patch formats (Aider blocks, `ast` rules),",
      "  previews and receipts, what the guards check.",
      "- [references/tools.md](references/tools.md): every tool with its input schema (generated).",
      "- [references/errors.md](references/errors.md): every error code and what to do about it (generated).",
    ].join("\n")
  }\n`;
}

/** src/server/instructions.ts: the server may not import hosts/, so it gets the rendered text as a constant. */
export function renderInstructionsModule(tools: readonly AnyTool[]): string {
  const lines = renderInstructions(tools).map((sentence) => `  ${JSON.stringify(sentence)},`);
  return `${
    [
      "// Generated by scripts/gen-catalog.ts from src/hosts/guide.ts and the tool catalog; do not edit by hand.",
      "",
      "/** The server's initialize instructions: the reading tools first, then the guarded writes. */",
      "export const INSTRUCTIONS = [",
      ...lines,
      "].join(\" \");",
    ].join("\n")
  }\n`;
}
