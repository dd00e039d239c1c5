/**
 * The entry of dist/hook.cjs: runs `ast-mcp hook` with the arguments after `hook` (dist/cli.js
 * requires this bundle when that is the command). See hook-main.ts and scripts/build.mjs.
 */
import "./guard-stdout.ts";
import { createRequire } from "node:module";
import type { ConfigLoader } from "../hosts/hook/run.ts";
import { hookIO, hookMain } from "./hook-main.ts";

// The configuration loader (zod, smol-toml) is bundled into dist/hook-config.cjs beside this file
// and read only when the [hook] settings cache misses, not compiled on every run (decision 0015).
const loadConfig: ConfigLoader = async () => createRequire(import.meta.url)("./hook-config.cjs") as Awaited<ReturnType<ConfigLoader>>;

const io = hookIO();
hookMain(process.argv.slice(3), io, loadConfig).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    io.stderr(`ast-mcp hook: fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
