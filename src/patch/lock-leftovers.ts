/** Recovery of the lock entries writers that are gone left beside their targets. */
import { readFileSync, readdirSync, rmdirSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { log } from "../core/log.ts";
import { isMissing, removeIfPresentSync } from "./durable-fs.ts";
import { isValidIdentity, livenessOf, type ProcessIdentity } from "./process-identity.ts";
import { LOCK_DIRS_SUBDIR } from "../config/state-dir.ts";
import { isStale, LOCK_ENTRY_PATTERN, LOCK_TUNING, readEntry, removeStale } from "./lock-entry.ts";

/** Removes `entry` when it is stale; "young" when it is kept only because its record may not be written yet. */
function removeIfStale(entry: string): boolean | "young" {
  const reading = readEntry(entry);
  if (reading === undefined) return false;
  if (isStale(entry, reading)) {
    removeStale(entry, reading);
    return true;
  }
  return reading.owner === undefined ? "young" : false;
}

/**
 * Removes the lock entries (and entries moved aside) a dead process left in `dir`. An entry without a
 * readable record that is still young (its writer may be between creating it and writing the record)
 * is added to `young`, to be judged again once the grace is over.
 */
function removeLeftEntries(dir: string, dead: ProcessIdentity, young: string[]): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const match = LOCK_ENTRY_PATTERN.exec(name);
    if (match === null) continue;
    const full = path.join(dir, name);
    try {
      if (match[1] !== undefined) {
        // Moved aside by a release or recovery of the dead process, which never deleted it.
        if (Number(match[1].slice(1).split("-")[0]) !== dead.pid) continue;
        removeIfPresentSync(full);
        removed += 1;
        continue;
      }
      const outcome = removeIfStale(full);
      if (outcome === "young") young.push(full);
      else if (outcome) removed += 1;
    } catch (error) {
      log.warn("could not remove a lock entry left by a writer that is gone", { entry: full, error });
    }
  }
  return removed;
}

/**
 * Removes the lock entries of writers that are gone, in the directories they listed in this state
 * directory, and their lists. Returns how many entries were removed.
 */
export async function cleanLockLeftovers(stateDir: string): Promise<number> {
  const sub = path.join(stateDir, LOCK_DIRS_SUBDIR);
  let names: string[];
  try {
    names = readdirSync(sub);
  } catch (error) {
    if (isMissing(error)) return 0;
    throw error;
  }
  let removed = 0;
  const young: string[] = [];
  for (const name of names) {
    const file = path.join(sub, name);
    if (name.endsWith(".owner")) {
      // The owner record of a process that is gone (its list, read below, names where it was linked).
      const reading = readEntry(file);
      if (reading?.owner !== undefined && livenessOf(reading.owner) === "dead") removeIfPresentSync(file);
      continue;
    }
    let lines: string[];
    try {
      lines = readFileSync(file, "utf8").split("\n").filter((line) => line !== "");
    } catch {
      continue;
    }
    let writer: unknown;
    try {
      writer = JSON.parse(lines[0] ?? "");
    } catch {
      writer = undefined;
    }
    if (!isValidIdentity(writer) || livenessOf(writer) !== "dead") continue;
    const created: string[] = [];
    for (const line of lines.slice(1)) {
      let listed: unknown;
      try {
        listed = JSON.parse(line);
      } catch {
        continue;
      }
      if (typeof listed === "string" && path.isAbsolute(listed)) removed += removeLeftEntries(listed, writer, young);
      const made = (listed as { created?: unknown } | null)?.created;
      if (typeof made === "string" && path.isAbsolute(made)) created.push(made);
    }
    // Directories it made for lock entries and left empty (its batch never got as far as its journal), deepest first.
    for (const dir of created.sort((a, b) => b.length - a.length)) {
      try {
        rmdirSync(dir);
      } catch {
        // Not empty (the batch committed, or someone else uses it) or gone.
      }
    }
    removeIfPresentSync(file);
  }
  if (young.length > 0) {
    // Rare: a writer killed between creating an entry and writing its record, moments ago.
    await sleep(LOCK_TUNING.unreadableGraceMs + 100);
    for (const entry of young) if (removeIfStale(entry) === true) removed += 1;
  }
  return removed;
}
