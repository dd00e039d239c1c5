/** Temporary HOME + project folders and an in-process install context for the host tests. */
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { hostEnvironment } from "../../src/hosts/environment.ts";
import type { ExecutableInfo } from "../../src/hosts/executable.ts";
import type { InstallContext } from "../../src/hosts/install.ts";
import { guidanceTemplate, skillTemplateFiles } from "../../src/hosts/package-files.ts";
import type { ServiceDeps } from "../../src/hosts/service.ts";

export const PROJECT_DIR = join(import.meta.dir, "..", "..");
export const FAKE_EXECUTABLE = "/opt/ast-mcp/bin/ast-mcp";

export interface Sandbox {
  home: string;
  project: string;
  env: Record<string, string>;
  calls: Array<{ command: string; args: string[] }>;
  context: (overrides?: Partial<InstallContext>) => InstallContext;
  read: (path: string) => Promise<string | null>;
  write: (path: string, text: string) => Promise<void>;
  cleanup: () => Promise<void>;
}

export async function sandbox(): Promise<Sandbox> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "ast-mcp-hosts-")));
  const home = join(base, "home");
  const project = join(base, "project");
  await mkdir(home, { recursive: true });
  await mkdir(project, { recursive: true });
  const env: Record<string, string> = {
    PATH: "/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".local", "state"),
  };
  const calls: Array<{ command: string; args: string[] }> = [];
  const serviceDeps: ServiceDeps = {
    run: async (command, args) => {
      calls.push({ command, args });
      return { code: 0, stdout: "", stderr: "" };
    },
    probe: async () => 200,
    sleep: async () => undefined,
    uid: 1000,
  };
  const executable: ExecutableInfo = { command: FAKE_EXECUTABLE, absolute: FAKE_EXECUTABLE, source: "global-bin", packageRoot: PROJECT_DIR };
  return {
    home,
    project,
    env,
    calls,
    context: (overrides = {}) => ({
      he: hostEnvironment({ cwd: project, env, platform: "linux" }),
      executable,
      nodePath: "/usr/bin/node",
      templates: { guidance: guidanceTemplate(), skill: skillTemplateFiles() },
      serviceDeps,
      http: { host: "127.0.0.1", port: 3768, tokenSet: false },
      ...overrides,
    }),
    read: async (path) => {
      try {
        return await readFile(path, "utf8");
      } catch {
        return null;
      }
    },
    write: async (path, text) => {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text);
    },
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

export interface GoldenFile {
  header: string;
  sections: Map<string, string>;
}

const SECTION = /^==> (.+)$/;

/** Parses a golden file: comment header, a "---" line, then "==> label" sections with exact contents. */
function parseGolden(text: string): GoldenFile {
  const separator = text.indexOf("\n---\n");
  if (separator === -1) throw new Error("golden file has no --- separator");
  const header = text.slice(0, separator + 1);
  const sections = new Map<string, string>();
  let label: string | undefined;
  let body: string[] = [];
  const flush = () => {
    if (label !== undefined) sections.set(label, body.join(""));
  };
  for (const line of text.slice(separator + 5).split(/(?<=\n)/)) {
    const match = SECTION.exec(line.replace(/\n$/, ""));
    if (match?.[1]) {
      flush();
      label = match[1];
      body = [];
    } else body.push(line);
  }
  flush();
  return { header, sections };
}

function renderGolden(golden: GoldenFile): string {
  let text = `${golden.header}---\n`;
  for (const [label, body] of golden.sections) text += `==> ${label}\n${body}`;
  return text;
}

export async function loadGolden(name: string): Promise<GoldenFile> {
  return parseGolden(await readFile(join(import.meta.dir, "golden", name), "utf8"));
}

export async function saveGolden(name: string, golden: GoldenFile): Promise<void> {
  await writeFile(join(import.meta.dir, "golden", name), renderGolden(golden));
}

/** Every file and folder below `root` (paths relative to it), with file contents. */
export async function snapshotTree(root: string, skip: (relative: string) => boolean = () => false): Promise<Map<string, string | null>> {
  const { readdir, stat } = await import("node:fs/promises");
  const tree = new Map<string, string | null>();
  const walk = async (dir: string, prefix: string) => {
    for (const name of (await readdir(dir)).sort()) {
      const relative = prefix === "" ? name : `${prefix}/${name}`;
      if (skip(relative)) continue;
      const full = join(dir, name);
      if ((await stat(full)).isDirectory()) {
        tree.set(`${relative}/`, null);
        await walk(full, relative);
      } else tree.set(relative, await readFile(full, "utf8"));
    }
  };
  await walk(root, "");
  return tree;
}
