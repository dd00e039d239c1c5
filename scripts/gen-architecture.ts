// Writes the layer table of ARCHITECTURE.md from test/layers.ts (run: npx bun scripts/gen-architecture.ts).
// With --check it writes nothing and exits 1 when the committed table differs.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withLayerTable } from "../test/support/architecture.ts";

const file = join(import.meta.dir, "..", "ARCHITECTURE.md");
const current = readFileSync(file, "utf8");
const next = withLayerTable(current);
if (next === undefined) {
  console.error("ARCHITECTURE.md has no layers:begin / layers:end markers");
  process.exit(1);
}
if (next !== current) {
  if (process.argv.includes("--check")) {
    console.error("ARCHITECTURE.md's layer table is out of date; run: npx bun scripts/gen-architecture.ts");
    process.exit(1);
  }
  writeFileSync(file, next);
  console.error("wrote ARCHITECTURE.md");
}
