// node:fs plus a `globSync` for Node versions without one. Only the CLI's `tier-check`
// command globs; the server scenarios never call it.
import fs from "node:fs";

export * from "node:fs";
export default fs;

export const globSync =
  fs.globSync ??
  (() => {
    throw new Error("fs.globSync needs Node 22 or newer (used only by `conformance tier-check`).");
  });
