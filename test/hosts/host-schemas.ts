/**
 * The hosts' configuration formats as the install tests check them: transcribed (as zod) from each
 * host's published schema or, where none is published, from its reference page (named per host).
 * Only the parts ast-mcp writes are strict; everything else a file may hold is let through.
 */
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { jsonDocumentValue } from "../../src/helpers/json-edit.ts";
import type { Target } from "../../src/hosts/targets.ts";

const StringMap = z.record(z.string(), z.string());
const Args = z.array(z.string());

// code.claude.com/docs/en/mcp: stdio servers (type optional), http/sse servers with url and headers.
const ClaudeServer = z.union([
  z.strictObject({ type: z.literal("stdio").optional(), command: z.string().min(1), args: Args.optional(), env: StringMap.optional() }),
  z.strictObject({ type: z.enum(["http", "sse"]), url: z.string().url(), headers: StringMap.optional() }),
]);

// json.schemastore.org/claude-code-settings.json, $defs.hookMatcher and the "command" branch of $defs.hookCommand
// (additionalProperties: false on both; timeout > 0). Codex reads the same shape from hooks.json.
const CommandHook = z.strictObject({
  type: z.literal("command"),
  command: z.string().min(1),
  timeout: z.number().positive().optional(),
  async: z.boolean().optional(),
  shell: z.enum(["bash", "powershell"]).optional(),
  if: z.string().optional(),
  statusMessage: z.string().optional(),
  args: z.array(z.string()).optional(),
});
const HookMatcher = z.strictObject({ matcher: z.string().optional(), hooks: z.array(z.union([CommandHook, z.looseObject({ type: z.string() })])) });
const ClaudeSettings = z.looseObject({ hooks: z.record(z.string(), z.array(HookMatcher)).optional() });

// codex-rs/core/config.schema.json (McpServerConfig): a stdio or a streamable HTTP transport.
const CodexServer = z.union([
  z.strictObject({ command: z.string().min(1), args: Args.optional(), env: StringMap.optional(), cwd: z.string().optional(), enabled: z.boolean().optional() }),
  z.strictObject({ url: z.string().url(), bearer_token_env_var: z.string().optional(), http_headers: StringMap.optional(), enabled: z.boolean().optional() }),
]);

// docs.github.com Copilot CLI add-mcp-servers: "local"/"stdio" with command, "http"/"sse" with url; tools list.
const CopilotServer = z.union([
  z.strictObject({ type: z.enum(["local", "stdio"]), command: z.string().min(1), args: Args.optional(), env: StringMap.optional(), tools: z.array(z.string()).optional() }),
  z.strictObject({ type: z.enum(["http", "sse"]), url: z.string().url(), headers: StringMap.optional(), tools: z.array(z.string()).optional() }),
]);
// docs.github.com hooks-configuration: version 1, camelCase events, command entries with bash/powershell.
const CopilotHookFile = z.strictObject({
  version: z.literal(1),
  hooks: z.partialRecord(
    z.enum(["sessionStart", "sessionEnd", "userPromptSubmitted", "preToolUse", "postToolUse", "errorOccurred", "agentStop"]),
    z.array(
      z.strictObject({
        type: z.literal("command"),
        bash: z.string().optional(),
        powershell: z.string().optional(),
        cwd: z.string().optional(),
        env: StringMap.optional(),
        timeoutSec: z.number().positive().optional(),
        comment: z.string().optional(),
      }),
    ),
  ),
});

// code.visualstudio.com mcp-configuration reference: "type" is required; stdio needs command, http/sse need url.
const VsCodeServer = z.union([
  z.looseObject({ type: z.literal("stdio"), command: z.string().min(1), args: Args.optional(), env: StringMap.optional(), envFile: z.string().optional() }),
  z.looseObject({ type: z.enum(["http", "sse"]), url: z.string().min(1), headers: StringMap.optional() }),
]);

// cursor.com/docs/context/mcp: command/args/env for stdio, url/headers for remote servers.
const CursorServer = z.union([
  z.looseObject({ type: z.literal("stdio").optional(), command: z.string().min(1), args: Args.optional(), env: StringMap.optional() }),
  z.looseObject({ url: z.string().min(1), headers: StringMap.optional() }),
]);

// gemini-cli schemas/settings.schema.json (mcpServers entries): command, url (SSE) or httpUrl (streamable HTTP).
const GeminiServer = z
  .looseObject({
    command: z.string().optional(),
    args: Args.optional(),
    env: StringMap.optional(),
    cwd: z.string().optional(),
    url: z.string().optional(),
    httpUrl: z.string().optional(),
    headers: StringMap.optional(),
  })
  .refine((server) => [server.command, server.url, server.httpUrl].filter((value) => value !== undefined).length === 1, "exactly one of command, url, httpUrl");

// modelcontextprotocol.io connect-local-servers: command, args, env.
const DesktopServer = z.looseObject({ command: z.string().min(1), args: Args.optional(), env: StringMap.optional() });

const serversIn = (key: string, server: z.ZodType) => z.looseObject({ [key]: z.record(z.string(), server) });

const ENTRY_SCHEMAS: Record<Target, z.ZodType> = {
  claude: serversIn("mcpServers", ClaudeServer.or(z.looseObject({}))),
  codex: z.looseObject({ mcp_servers: z.record(z.string(), z.looseObject({})) }),
  copilot: serversIn("mcpServers", z.looseObject({})),
  // The page's own minimal example leaves "type" out, so other servers are only checked loosely.
  vscode: z.looseObject({ servers: z.record(z.string(), z.looseObject({})), inputs: z.array(z.looseObject({})).optional() }),
  cursor: serversIn("mcpServers", CursorServer),
  gemini: serversIn("mcpServers", GeminiServer),
  "claude-desktop": serversIn("mcpServers", DesktopServer),
};

/** Checks a host file ast-mcp wrote; `ours` is our own entry, checked strictly. */
export function checkEntryFile(target: Target, text: string): void {
  const document = target === "codex" ? parseToml(text) : jsonDocumentValue(text);
  ENTRY_SCHEMAS[target].parse(document);
  const ours = target === "codex" ?
    (document as { mcp_servers: Record<string, unknown> }).mcp_servers["ast-mcp"] :
    (document as Record<string, Record<string, unknown>>)[target === "vscode" ? "servers" : "mcpServers"]?.["ast-mcp"];
  const strict: Record<Target, z.ZodType> = {
    claude: ClaudeServer,
    codex: CodexServer,
    copilot: CopilotServer,
    vscode: VsCodeServer,
    cursor: CursorServer,
    gemini: GeminiServer,
    "claude-desktop": DesktopServer,
  };
  strict[target].parse(ours);
}

export function checkHookFile(target: Target, text: string): void {
  if (target === "copilot" || target === "vscode") CopilotHookFile.parse(jsonDocumentValue(text));
  else ClaudeSettings.parse(jsonDocumentValue(text));
}
