/** The untrusted project file's keys are looked up in the permission table by own key only. */
import { describe, expect, test } from "bun:test";
import type { ConfigFile } from "../../src/config/schema.ts";
import { filterProjectFile } from "../../src/config/trust.ts";
import { PROTOTYPE_NAMES } from "../support/prototype-names.ts";

describe("project file keys named after Object.prototype members", () => {
  for (const name of PROTOTYPE_NAMES) {
    test(`${name} is ignored with a warning, at the top and inside a section`, () => {
      const file = JSON.parse(`{${JSON.stringify(name)}: 1, "safety": {${JSON.stringify(name)}: {"a": 1}, "require_hash": true}}`) as ConfigFile;
      const { kept, warnings } = filterProjectFile(file, "P");
      expect(kept).toEqual({ safety: { require_hash: true } });
      expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
      expect(warnings).toHaveLength(2);
    });
  }
});
