/**
 * The one MCP server: every tool registered once, whatever the transport.
 * Validation, error shaping and output capping happen here so every tool behaves alike.
 */
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { type CallToolResult, Server, SUPPORTED_PROTOCOL_VERSIONS, type Tool } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { ToolProfile } from "../config/schema.ts";
import type { ConfigSnapshot } from "../config/types.ts";
import { ToolError, type ToolErrorPayload } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { log } from "../core/log.ts";
import { PRODUCT, VERSION } from "../core/version.ts";
import { capText } from "../helpers/text-cap.ts";
import type { Workspace } from "../policy/workspace.ts";
import { ProgressPacer } from "./progress-pacer.ts";
import type { AnyTool, ToolContext } from "../tools/contract.ts";
import { createToolServices, TOOLS } from "../tools/index.ts";
import type { ToolServices } from "../tools/services.ts";
import { type OfferedTools, offeredTools } from "../tools/profiles.ts";
import { INSTRUCTIONS } from "./instructions.ts";
import { grantedProfile, principalOf } from "./oauth.ts";

/** What the server needs from the process: the current configuration and its workspace. */
export interface ServerDeps {
  /** The current configuration snapshot, refreshed cheaply before each call. */
  snapshot: () => Promise<ConfigSnapshot>;
  /** The workspace (root policy) built for a snapshot. */
  workspaceFor: (snapshot: ConfigSnapshot) => Promise<Workspace>;
  tools?: readonly AnyTool[];
  /** The services the tools share; built once per process by the composition root. */
  services?: ToolServices;
  /**
   * Hears when the offered tool set changes (a configuration edit): the transport tells the clients it has no
   * session with (2026-07-28 subscriptions). Sessions (and a stdio connection) tell their own client.
   */
  onToolSetChanged?: () => void;
}

/** The tool set last offered by any server of one process (one ServerDeps), to notice a change between stateless requests. */
const lastOffered = new WeakMap<ServerDeps, OfferedTools>();
/** Processes whose index was started for stateless clients, which never send `initialized`: once each. */
const warmedForStateless = new WeakSet<ServerDeps>();

/**
 * Output schemas are published for clients that validate structured results, not for the model: their
 * prose and deep structure (complete in the source and in the generated tool catalog) would multiply the
 * token cost of tools/list. So they keep their types to OUTPUT_SCHEMA_DEPTH levels and no descriptions.
 */
const OUTPUT_SCHEMA_DEPTH = 2;

function publishedOutputSchema(schema: unknown, depth = 0): unknown {
  if (Array.isArray(schema)) return schema.map((item) => publishedOutputSchema(item, depth));
  if (schema === null || typeof schema !== "object") return schema;
  const source = schema as Record<string, unknown>;
  if (depth >= OUTPUT_SCHEMA_DEPTH) return typeof source.type === "string" ? { type: source.type } : {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === "description" || key === "$schema") continue;
    if (key === "properties" && value !== null && typeof value === "object") {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, publishedOutputSchema(sub, depth + 1)]));
    } else if (key === "items" || key === "additionalProperties" || key === "anyOf" || key === "oneOf") {
      out[key] = publishedOutputSchema(value, depth + 1);
    } else {
      out[key] = value;
    }
  }
  return out;
}

const publishedCache = new WeakMap<readonly AnyTool[], Tool[]>();

/** Published JSON Schemas are computed once per tool list, not once per session. */
function describeTools(tools: readonly AnyTool[]): Tool[] {
  const cached = publishedCache.get(tools);
  if (cached) return cached;
  const described = tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.input, { target: "draft-7", io: "input" }) as Tool["inputSchema"],
    outputSchema: publishedOutputSchema(z.toJSONSchema(tool.output, { target: "draft-7", io: "output" })) as Tool["outputSchema"],
    annotations: { title: tool.title, ...tool.annotations },
  }));
  publishedCache.set(tools, described);
  return described;
}

function errorResult(payload: ToolErrorPayload): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ error: payload }) }] };
}

/** Names the first failing field the way a caller wrote it, e.g. `files[0].startLine`. */
function invalidInput(toolName: string, error: z.ZodError): ToolError {
  const issue = error.issues[0];
  const path = issue ? formatIssuePath(issue.path) : "";
  const field = path === "" ? "arguments" : path;
  let message = issue ? `${field}: ${issue.message}` : "invalid arguments";
  if (issue?.code === "unrecognized_keys") message = `${field === "arguments" ? "" : `${field}: `}unknown field(s) ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}`;
  return new ToolError("invalid_input", message, {
    details: { tool: toolName, field, issues: error.issues.slice(0, 10).map((i) => ({ path: formatIssuePath(i.path), message: i.message })) },
  });
}

function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}

/**
 * Where `value` holds an own key `__proto__`, as a field path; undefined when nowhere. Input validation
 * drops such a key from a record silently, so a batch entry for a file named `__proto__` would vanish.
 */
function findPrototypeKey(value: unknown, path: PropertyKey[] = [], depth = 0): PropertyKey[] | undefined {
  if (value === null || typeof value !== "object" || depth > 64) return undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = findPrototypeKey(value[index], [...path, index], depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (Object.hasOwn(value, "__proto__")) return [...path, "__proto__"];
  for (const [key, item] of Object.entries(value)) {
    const found = findPrototypeKey(item, [...path, key], depth + 1);
    if (found) return found;
  }
  return undefined;
}

function prototypeKeyRefused(toolName: string, path: PropertyKey[]): ToolError {
  const field = formatIssuePath(path);
  return new ToolError("invalid_input", `${field}: the key "__proto__" cannot be passed as an object key`, {
    hint: "To name a file called __proto__, spell its path another way, e.g. \"./__proto__\" or \"dir/./__proto__\".",
    details: { tool: toolName, field },
  });
}

/**
 * Roots the client announces narrow the configured ones for this session only.
 * Until the client has answered, calls wait so they never run with roots wider than the client asked for.
 */
class ClientRoots {
  private paths: string[] | undefined;
  private pending: Promise<void> | undefined;

  constructor(private readonly server: Server) {}

  refresh(): void {
    if (!this.server.getClientCapabilities()?.roots) return;
    this.pending = this.server
      .listRoots(undefined, { timeout: 10_000 })
      .then((result) => {
        this.paths = result.roots.flatMap((root) => {
          if (!root.uri.startsWith("file:")) return [];
          try {
            return [fileURLToPath(root.uri)];
          } catch {
            return [];
          }
        });
        log.debug("client roots", { roots: this.paths });
      })
      .catch((error: unknown) => {
        // A client that advertises roots but cannot list them keeps the configured roots.
        log.warn("roots/list failed; using the configured roots", { error: error instanceof Error ? error.message : String(error) });
      });
  }

  async narrow(workspace: Workspace): Promise<Workspace> {
    if (this.pending) await this.pending;
    return this.paths ? workspace.narrow(this.paths) : workspace;
  }
}

/**
 * How long a 2026-07-28 client may reuse a tools/list answer: the configuration that decides the offered
 * tools is re-read at most this often, so a longer cache could hide a reload. The list is the same for
 * every caller of one process today, but it is marked private: which tools a caller is offered is
 * configuration, and a per-caller profile must never be served from a shared cache.
 */
const TOOLS_LIST_CACHE = { ttlMs: LIMITS.config.refreshIntervalMs, cacheScope: "private" } as const;

/** True once the server speaks a revision without sessions (2026-07-28 and later): no `initialize` fixed it to a 2025-era one. */
function servesStatelessEra(server: Server): boolean {
  const version = server.getNegotiatedProtocolVersion();
  return version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version);
}

/**
 * Builds one MCP server instance. A legacy (2024-11-05 … 2025-11-25) client gets one per session and
 * `sessionId` names it; a 2026-07-28 client gets one per request (HTTP) or per connection (stdio), and each
 * of its tool calls runs under a fresh `req_` session that ends with the call, since nothing may outlive it.
 */
export function createMcpServer(deps: ServerDeps, sessionId: string): Server {
  const tools = deps.tools ?? TOOLS;
  const services = (deps.services ??= createToolServices());

  const server = new Server(
    { name: PRODUCT, title: PRODUCT, version: VERSION },
    {
      capabilities: { tools: { listChanged: true }, logging: {} },
      instructions: INSTRUCTIONS,
      cacheHints: { "tools/list": TOOLS_LIST_CACHE, "server/discover": TOOLS_LIST_CACHE },
    },
  );
  // [tools] in the configuration decides what is offered; when an edit changes that, the client hears of it.
  let listed: OfferedTools | undefined;
  // An OAuth caller's token may grant a narrower profile than the configuration's (see server/oauth.ts); a
  // change of the tool set is judged on the configuration's own selection, never on who asked.
  const offeredFor = (snapshot: ConfigSnapshot, granted: ToolProfile | undefined): OfferedTools => {
    const configured = offeredTools(tools, snapshot.config.tools);
    const before = lastOffered.get(deps);
    lastOffered.set(deps, configured);
    if (before !== undefined && before !== configured) deps.onToolSetChanged?.();
    const selection = granted === undefined ? configured : offeredTools(tools, snapshot.config.tools, granted);
    if (listed !== undefined && listed !== selection) {
      listed = selection;
      server.sendToolListChanged().catch((error: unknown) => {
        log.debug("tools/list_changed was not sent", { error: error instanceof Error ? error.message : String(error) });
      });
    }
    return selection;
  };
  const clientRoots = new ClientRoots(server);
  // The session's roots are known once the client has said them: their index starts building then, before the first call.
  const warm = async (): Promise<void> => {
    try {
      const snapshot = await deps.snapshot();
      if (!snapshot.config.index.background) return;
      const workspace = await clientRoots.narrow(await deps.workspaceFor(snapshot));
      if (workspace.roots.length > 0) services.warm({ workspace, config: snapshot });
    } catch (error) {
      log.debug("the index was not started in the background", { error: error instanceof Error ? error.message : String(error) });
    }
  };
  server.oninitialized = () => {
    clientRoots.refresh();
    void warm();
  };
  server.setNotificationHandler("notifications/roots/list_changed", async () => {
    clientRoots.refresh();
    void warm();
  });

  server.onclose = () => services.closeSession(sessionId);

  // A stateless client sends no `initialized`: its first listing (or call) starts the index instead, once per process.
  const warmForStateless = (): void => {
    if (warmedForStateless.has(deps) || !servesStatelessEra(server)) return;
    warmedForStateless.add(deps);
    void warm();
  };

  server.setRequestHandler("tools/list", async (_request, ctx) => {
    warmForStateless();
    listed = offeredFor(await deps.snapshot(), grantedProfile(ctx.http?.authInfo));
    return { tools: describeTools(listed.tools) };
  });

  // The SDK checks the request against the tools/call schema of the client's revision first: malformed params answer -32602.
  server.setRequestHandler("tools/call", async (request, extra): Promise<CallToolResult> => {
    let snapshot: ConfigSnapshot;
    try {
      snapshot = await deps.snapshot();
    } catch (error) {
      log.error("the configuration could not be read for a tool call", { error });
      return errorResult(new ToolError("internal_error", "the configuration could not be read; the server logged the details").toPayload());
    }
    const granted = grantedProfile(extra.http?.authInfo);
    const selection = offeredFor(snapshot, granted);
    const tool = selection.byName.get(request.params.name);
    if (!tool) {
      const shown = JSON.stringify(request.params.name.slice(0, 100));
      const message = selection.withheld.has(request.params.name) ?
        `tool ${shown} is not offered: the [tools] configuration turns it off` :
        selection.notGranted.has(request.params.name) ?
        `tool ${shown} is not offered to this caller: its access token's scopes grant the "${granted}" profile, which does not include it; a token with a scope mapped to a wider profile ([http.auth].scopes) can call it` :
        `no tool named ${shown}`;
      return errorResult(new ToolError("unknown_tool", message, { details: { available: selection.tools.map((t) => t.name) } }).toPayload());
    }
    let pacer: ProgressPacer | undefined;
    warmForStateless();
    const stateless = servesStatelessEra(server);
    const callSessionId = stateless ? `req_${randomUUID()}` : sessionId;
    try {
      const args = request.params.arguments ?? {};
      const prototypeKey = findPrototypeKey(args);
      if (prototypeKey) throw prototypeKeyRefused(tool.name, prototypeKey);
      const parsed = tool.input.safeParse(args);
      if (!parsed.success) throw invalidInput(tool.name, parsed.error);
      const workspace = await clientRoots.narrow(await deps.workspaceFor(snapshot));
      const principal = principalOf(extra.http?.authInfo);
      const context: ToolContext = { workspace, config: snapshot, sessionId: callSessionId, stateless, principal, signal: extra.mcpReq.signal, services };
      const progressToken = request.params._meta?.progressToken;
      if (progressToken !== undefined) {
        pacer = new ProgressPacer(
          (progress, total) =>
            extra.mcpReq.notify({ method: "notifications/progress", params: { progressToken, progress, total } }).catch((error: unknown) => {
              log.debug("a progress notification was not sent", { error: error instanceof Error ? error.message : String(error) });
            }),
          LIMITS.progress.minIntervalMs,
          LIMITS.progress.settleMs,
        );
        const paced = pacer;
        context.progress = (done, total) => paced.report(done, total);
      }
      const raw = await tool.handler(parsed.data, context);
      const checked = tool.output.safeParse(raw);
      if (!checked.success) {
        log.error("tool produced output that does not match its schema", { tool: tool.name, issues: checked.error.issues.slice(0, 5) });
        throw new ToolError("internal_error", `${tool.name} failed unexpectedly`);
      }
      await pacer?.finish();
      return { content: [{ type: "text", text: capText(tool.render(checked.data), LIMITS.output.maxTextChars) }], structuredContent: checked.data };
    } catch (error) {
      pacer?.abandon();
      if (error instanceof ToolError) return errorResult(error.toPayload());
      log.error("unexpected failure in tool", { tool: tool.name, error });
      return errorResult(new ToolError("internal_error", `${tool.name} failed unexpectedly; the server logged the details`).toPayload());
    } finally {
      // A stateless call is its own session: it ends here, exactly like a session that closes.
      if (stateless) services.closeSession(callSessionId);
    }
  });

  return server;
}
