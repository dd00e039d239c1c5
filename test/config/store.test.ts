import { afterEach, beforeEach, expect, test } from "bun:test";
import { promises as fs } from "node:fs";
import path from "node:path";
import { ConfigStore } from "../../src/config/store.ts";
import type { ConfigSnapshot } from "../../src/config/types.ts";
import { makeFixture } from "./fixture.ts";
import type { ConfigFixture } from "./fixture.ts";

let fx: ConfigFixture;
beforeEach(async () => {
  fx = await makeFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

/** Writes a file and moves its mtime forward so the change is visible even on coarse-mtime file systems. */
async function rewrite(file: string, text: string, bump: number): Promise<void> {
  await fs.writeFile(file, text);
  const when = new Date(Date.now() + bump * 10_000);
  await fs.utimes(file, when, when);
}

test("refresh() without file changes keeps the same snapshot", async () => {
  await fx.writeUser("[http]\nport = 4000\n");
  const store = await ConfigStore.open({ cwd: fx.project, env: fx.env });
  const first = store.current();
  expect(first.generation).toBe(1);
  expect(await store.refresh()).toBe(first);
  expect(store.current()).toBe(first);
});

test("a real change bumps the generation once; same-content and comment-only edits leave it alone", async () => {
  await fx.writeUser("[http]\nport = 4000\n");
  const store = await ConfigStore.open({ cwd: fx.project, env: fx.env });

  await rewrite(fx.userFile, "[http]\nport = 4001\n", 1);
  const second = await store.refresh();
  expect(second.generation).toBe(2);
  expect(second.config.http.port).toBe(4001);

  // Touching the file with the same content re-reads but changes nothing effective.
  await rewrite(fx.userFile, "[http]\nport = 4001\n", 2);
  const third = await store.refresh();
  expect(third.generation).toBe(2);

  // A comment-only edit also leaves the generation alone.
  await rewrite(fx.userFile, "# tuned\n[http]\nport = 4001\n", 3);
  expect((await store.refresh()).generation).toBe(2);

  await rewrite(fx.userFile, "[http]\nport = 4002\n", 4);
  expect((await store.refresh()).generation).toBe(3);
});

test("a project file appearing, and a new problem without an effective change", async () => {
  const store = await ConfigStore.open({ cwd: fx.project, env: fx.env });
  expect(store.current().files.projectExists).toBe(false);

  await rewrite(fx.projectFile, "[[paths]]\npath = \"gen/**\"\nwrite = \"deny\"\n", 1);
  const withRule = await store.refresh();
  expect(withRule.generation).toBe(2);
  expect(withRule.files.projectExists).toBe(true);
  expect(withRule.config.paths.at(-1)?.path).toBe("gen/**");

  // An unknown key is dropped, so the effective configuration is unchanged: same generation, fresh problems.
  await rewrite(fx.projectFile, "[[paths]]\npath = \"gen/**\"\nwrite = \"deny\"\n[extra]\nx = 1\n", 2);
  const withProblem = await store.refresh();
  expect(withProblem.generation).toBe(2);
  expect(withProblem.problems.map((problem) => problem.keyPath)).toEqual(["extra"]);

  await fs.rm(fx.projectFile);
  const removed = await store.refresh();
  expect(removed.generation).toBe(3);
  expect(removed.files.projectExists).toBe(false);
});

test("a changed token file is picked up", async () => {
  const tokenFile = path.join(fx.base, "token");
  await fs.writeFile(tokenFile, "one\n", { mode: 0o600 });
  await fs.chmod(tokenFile, 0o600);
  await fx.writeUser(`[http]\ntoken_file = "${tokenFile}"\n`);
  const store = await ConfigStore.open({ cwd: fx.project, env: fx.env });
  expect(store.current().token).toBe("one");
  await rewrite(tokenFile, "two\n", 1);
  const next = await store.refresh();
  expect(next.token).toBe("two");
  expect(next.generation).toBe(2);
});

test("concurrent refreshes share one reload", async () => {
  const store = await ConfigStore.open({ cwd: fx.project, env: fx.env });
  await rewrite(fx.userFile, "[log]\nlevel = \"warn\"\n", 1);
  const results: ConfigSnapshot[] = await Promise.all([store.refresh(), store.refresh(), store.refresh()]);
  expect(results.map((snapshot) => snapshot.generation)).toEqual([2, 2, 2]);
  expect(store.current().config.log.level).toBe("warn");
});
