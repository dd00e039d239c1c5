/**
 * A minimal MCP server with one tool, for exercising transports without the real tools.
 */

import { ProtocolError, ProtocolErrorCode, Server } from "@modelcontextprotocol/server";

export const ECHO_TOOL = {
  name: "echo",
  description: "Returns the text it is given, prefixed with the session id.",
  inputSchema: { type: "object" as const, properties: { text: { type: "string" } }, required: ["text"] },
};

/** Builds the server; `onClose` hears when the session's server closes. */
export function createEchoServer(sessionId: string, onClose?: (sessionId: string) => void): Server {
  const server = new Server({ name: "echo-test-server", version: "0.0.1" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", async () => ({ tools: [ECHO_TOOL] }));
  server.setRequestHandler("tools/call", async (request) => {
    if (request.params.name !== ECHO_TOOL.name) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const text = String(request.params.arguments?.text ?? "");
    return { content: [{ type: "text", text: `${sessionId}:${text}` }] };
  });
  if (onClose) server.onclose = () => onClose(sessionId);
  return server;
}
