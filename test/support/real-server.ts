/** The product's own server factory over a temporary root, for in-process transport tests. */
import type { Server } from "@modelcontextprotocol/server";
import { serverDeps } from "../../src/cli/mcp-command.ts";
import { ConfigStore } from "../../src/config/store.ts";
import { createMcpServer } from "../../src/server/mcp.ts";
import { isolatedEnv, tempRoot } from "./cli.ts";

export async function realServerFactory(): Promise<{ createServer: (sessionId: string) => Server; root: string; cleanup: () => Promise<void> }> {
  const { env, cleanup } = await isolatedEnv();
  const root = await tempRoot();
  const store = await ConfigStore.open({ cwd: root, cliRoots: [root], env });
  const deps = serverDeps(store);
  return { createServer: (sessionId) => createMcpServer(deps, sessionId), root, cleanup };
}
