/** Tool profiles: the [tools] configuration, its trust rules, and what the server offers and refuses. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { loadConfig } from "../../src/config/load.ts";
import type { ToolProfile } from "../../src/config/schema.ts";
import { TOOL_NAMES } from "../../src/config/tool-names.ts";
import type { ConfigSnapshot } from "../../src/config/types.ts";
import { createMcpServer } from "../../src/server/mcp.ts";
import { TOOLS } from "../../src/tools/index.ts";
import { inProfile, offeredTools } from "../../src/tools/profiles.ts";
import { makeFixture, type ConfigFixture } from "../config/fixture.ts";
import { makeContext, makeTempDir, type TempDir } from "../support/context.ts";

const READ_ONLY_NAMES = TOOLS.filter((tool) => tool.annotations.readOnlyHint).map((tool) => tool.name);
const FILE_MUTATIONS = TOOLS.filter((tool) => !tool.annotations.readOnlyHint && tool.name.startsWith("file_")).map((tool) => tool.name);

describe("the tool name catalog", () => {
  test("knows every tool the server offers", () => {
    expect(TOOLS.map((tool) => tool.name).filter((name) => !TOOL_NAMES.includes(name))).toEqual([]);
  });
});

describe("[tools] configuration", () => {
  let fx: ConfigFixture;
  beforeEach(async () => {
    fx = await makeFixture();
  });
  afterEach(async () => {
    await fx.cleanup();
  });
  const load = () => loadConfig({ cwd: fx.project, env: fx.env });

  test("defaults to the full profile with nothing enabled or disabled", async () => {
    expect((await load()).config.tools).toEqual({ profile: "full", enabled: [], disabled: [] });
  });

  test("unknown tool names and profiles are problems naming the key", async () => {
    await fx.writeUser("[tools]\nprofile = \"tiny\"\nenabled = [\"file_read\"]\ndisabled = [\"file_patch\", \"file_delet\"]\n");
    const snapshot = await load();
    expect(snapshot.problems.map((problem) => problem.keyPath).sort()).toEqual(["tools.disabled[1]", "tools.profile"]);
    expect(snapshot.problems.find((problem) => problem.keyPath === "tools.disabled[1]")?.message).toContain("unknown tool \"file_delet\"");
  });

  test("the environment sets them too, checked the same way", async () => {
    const snapshot = await loadConfig({ cwd: fx.project, env: { ...fx.env, AST_MCP_TOOLS_PROFILE: "read", AST_MCP_TOOLS_DISABLED: "file_read,nope" } });
    expect(snapshot.config.tools.profile).toBe("read");
    expect(snapshot.problems.map((problem) => [problem.keyPath, problem.message.includes("unknown tool \"nope\"")])).toEqual([["tools.disabled", true]]);
  });

  test("the untrusted project file may only disable tools, adding to the user's list", async () => {
    await fx.writeUser("[tools]\nprofile = \"write\"\ndisabled = [\"file_undo\"]\n");
    await fx.writeProject("[tools]\nprofile = \"full\"\nenabled = [\"file_delete\"]\ndisabled = [\"file_chattr\", \"file_undo\"]\n");
    const snapshot = await load();
    expect(snapshot.problems).toEqual([]);
    expect(snapshot.config.tools).toEqual({ profile: "write", enabled: [], disabled: ["file_undo", "file_chattr"] });
    expect(snapshot.warnings.filter((warning) => warning.includes("tools."))).toHaveLength(2);
    expect(snapshot.warnings.join("\n")).toContain("tools.profile");
    expect(snapshot.warnings.join("\n")).toContain("tools.enabled");

    // An empty project list cannot clear what the user disabled.
    await fx.writeProject("[tools]\ndisabled = []\n");
    expect((await load()).config.tools.disabled).toEqual(["file_undo"]);
  });
});

describe("profile selection", () => {
  test("read is every read-only tool, write adds the file mutations, full is everything", () => {
    const names = (profile: ToolProfile) => offeredTools(TOOLS, { profile, enabled: [], disabled: [] }).tools.map((tool) => tool.name);
    expect(names("read")).toEqual(READ_ONLY_NAMES);
    expect(names("write")).toEqual(TOOLS.filter((tool) => tool.annotations.readOnlyHint || FILE_MUTATIONS.includes(tool.name)).map((tool) => tool.name));
    expect(names("full")).toEqual(TOOLS.map((tool) => tool.name));
    expect(FILE_MUTATIONS).toContain("file_patch");
    for (const tool of TOOLS) expect(inProfile(tool, "read")).toBe(tool.annotations.readOnlyHint);
  });

  test("enabled adds to the profile, disabled wins over both, and equal settings share one cached selection", () => {
    const selection = offeredTools(TOOLS, { profile: "read", enabled: ["file_patch", "file_write"], disabled: ["file_write", "file_hash"] });
    const names = selection.tools.map((tool) => tool.name);
    expect(names).toContain("file_patch");
    expect(names).not.toContain("file_write");
    expect(names).not.toContain("file_hash");
    expect(selection.withheld.has("file_hash")).toBe(true);
    expect(offeredTools(TOOLS, { profile: "read", enabled: ["file_write", "file_patch"], disabled: ["file_hash", "file_write"] })).toBe(selection);
  });
});

describe("the server offers the configured tools", () => {
  let temp: TempDir;
  beforeEach(async () => {
    temp = await makeTempDir("ast-mcp-profiles-");
  });
  afterEach(async () => {
    await temp.cleanup();
  });

  async function connect(tools: () => ConfigSnapshot["config"]["tools"]) {
    const context = await makeContext([temp.dir]);
    const server = createMcpServer(
      {
        snapshot: async () => ({ ...context.config, config: { ...context.config.config, tools: tools() } }),
        workspaceFor: async () => context.workspace,
      },
      "profiles-test",
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "profiles-test", version: "0" });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    return { client, close: () => Promise.all([client.close(), server.close()]) };
  }

  test("tools/list follows the profile; a disabled tool answers unknown_tool", async () => {
    await temp.write("a.txt", "hello\n");
    const { client, close } = await connect(() => ({ profile: "read", enabled: [], disabled: ["file_hash"] }));
    try {
      const listed = (await client.listTools()).tools.map((tool) => tool.name);
      expect(listed).toEqual(READ_ONLY_NAMES.filter((name) => name !== "file_hash"));

      const refused = await client.callTool({ name: "file_hash", arguments: { filePaths: ["a.txt"] } });
      expect(refused.isError).toBe(true);
      const error = JSON.parse((refused.content as Array<{ text: string }>)[0]!.text).error;
      expect(error.code).toBe("unknown_tool");
      expect(error.message).toContain("[tools] configuration");
      expect(error.details.available).not.toContain("file_hash");

      const outsideProfile = await client.callTool({ name: "file_write", arguments: { files: { "b.txt": { content: "x", expectedSha256: null } } } });
      expect(JSON.parse((outsideProfile.content as Array<{ text: string }>)[0]!.text).error.code).toBe("unknown_tool");

      const allowed = await client.callTool({ name: "file_read", arguments: { files: [{ filePath: "a.txt" }] } });
      expect(allowed.isError).toBeFalsy();
    } finally {
      await close();
    }
  });

  test("a configuration change is announced with tools/list_changed", async () => {
    let settings: ConfigSnapshot["config"]["tools"] = { profile: "full", enabled: [], disabled: [] };
    const { client, close } = await connect(() => settings);
    try {
      let announced = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        announced++;
      });
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("file_write");
      settings = { profile: "read", enabled: [], disabled: [] };
      await client.callTool({ name: "config_status", arguments: {} });
      for (let wait = 0; wait < 50 && announced === 0; wait++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(announced).toBe(1);
      expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain("file_write");
    } finally {
      await close();
    }
  });
});
