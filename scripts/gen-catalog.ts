// Regenerates the skill's tool and error catalogs, SKILL.md, the guidance block and the server's
// instructions from the source (run: npx bun scripts/gen-catalog.ts).
// With --check it writes nothing and exits 1 when the committed files differ.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ERROR_CATALOG_PATH, renderErrorCatalog, renderToolCatalog, TOOL_CATALOG_PATH } from "../src/hosts/catalog.ts";
import { GUIDANCE_PATH, INSTRUCTIONS_PATH, renderGuidance, renderInstructionsModule, renderSkill, SKILL_PATH } from "../src/hosts/guide.ts";
import { TOOLS } from "../src/tools/index.ts";

const root = join(import.meta.dir, "..");
const check = process.argv.includes("--check");
let drift = false;
for (
  const [relative, text] of [
    [TOOL_CATALOG_PATH, renderToolCatalog(TOOLS)],
    [ERROR_CATALOG_PATH, renderErrorCatalog()],
    [SKILL_PATH, renderSkill(TOOLS)],
    [GUIDANCE_PATH, renderGuidance(TOOLS)],
    [INSTRUCTIONS_PATH, renderInstructionsModule(TOOLS)],
  ] as const
) {
  const file = join(root, relative);
  let current = "";
  try {
    current = readFileSync(file, "utf8");
  } catch {
    // missing: written below
  }
  if (current === text) continue;
  drift = true;
  if (check) console.error(`${relative} is out of date; run: npx bun scripts/gen-catalog.ts`);
  else {
    writeFileSync(file, text);
    console.error(`wrote ${relative}`);
  }
}
if (check && drift) process.exit(1);
