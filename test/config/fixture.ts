/** Temp HOME / XDG / project directories for configuration tests. */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";

export interface ConfigFixture {
  base: string;
  home: string;
  xdg: string;
  project: string;
  /** Where the user file lives for `env`. */
  userFile: string;
  projectFile: string;
  env: NodeJS.ProcessEnv;
  writeUser: (text: string) => Promise<void>;
  writeProject: (text: string) => Promise<void>;
  cleanup: () => Promise<void>;
}

export async function makeFixture(): Promise<ConfigFixture> {
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "ast-mcp-config-")));
  const home = path.join(base, "home");
  const xdg = path.join(base, "xdg");
  const project = path.join(base, "project");
  await Promise.all([fs.mkdir(home), fs.mkdir(path.join(xdg, "ast-mcp"), { recursive: true }), fs.mkdir(project)]);
  const userFile = path.join(xdg, "ast-mcp", "ast-mcp.toml");
  const projectFile = path.join(project, "ast-mcp.toml");
  return {
    base,
    home,
    xdg,
    project,
    userFile,
    projectFile,
    env: { HOME: home, XDG_CONFIG_HOME: xdg },
    writeUser: (text) => fs.writeFile(userFile, text),
    writeProject: (text) => fs.writeFile(projectFile, text),
    cleanup: () => fs.rm(base, { recursive: true, force: true }),
  };
}
