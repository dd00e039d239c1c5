/**
 * The eras bench's floor: a bare MCP server on one SDK line (`v1`: @modelcontextprotocol/sdk 1.x; `v2`:
 * @modelcontextprotocol/server) over its own stdio transport, answering `file_hash` with a constant of the
 * same shape as ast-mcp's answer and no work behind it. What a call costs here is what the SDK and Node
 * cost before any product code runs, so the bench can say how much of a revision's per-call cost is ours.
 *
 *   node bench/sdk-floor-server.mjs v1|v2
 */
const HASH = "037ecd1db38c230c248787e60fd7bfc0cb0101b187b59535b6e7483be762d350";
const TOOL = {
  name: "file_hash",
  inputSchema: { type: "object", properties: { filePaths: { type: "array", items: { type: "string" } } }, required: ["filePaths"] },
  outputSchema: {
    type: "object",
    properties: {
      files: {
        type: "array",
        items: { type: "object", properties: { path: { type: "string" }, sha256: { type: "string" }, size: { type: "number" } }, required: ["path", "sha256", "size"] },
      },
    },
    required: ["files"],
  },
};
const answer = () => ({
  content: [{ type: "text", text: `${HASH}  20 bytes  a.ts` }],
  structuredContent: { files: [{ path: "a.ts", sha256: HASH, size: 20 }] },
});
const info = { name: "sdk-floor", version: "0.0.0" };

if (process.argv[2] === "v1") {
  const { Server } = await import("@modelcontextprotocol/sdk/server/index.js");
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const { CallToolRequestSchema, ListToolsRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const server = new Server(info, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [TOOL] }));
  server.setRequestHandler(CallToolRequestSchema, async () => answer());
  await server.connect(new StdioServerTransport());
} else if (process.argv[2] === "v2") {
  const { Server } = await import("@modelcontextprotocol/server");
  const { serveStdio } = await import("@modelcontextprotocol/server/stdio");
  serveStdio(() => {
    const server = new Server(info, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/list", async () => ({ tools: [TOOL] }));
    server.setRequestHandler("tools/call", async () => answer());
    return server;
  });
} else {
  process.stderr.write("usage: node bench/sdk-floor-server.mjs v1|v2\n");
  process.exit(2);
}
