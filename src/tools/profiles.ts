/**
 * Tool profiles: which tools a configuration offers. `read` is every read-only tool, `write` adds
 * the file_* mutation tools, `full` is everything; `enabled` adds tools to the profile and
 * `disabled` removes them, whatever else says. A caller may be granted a profile of its own (an
 * OAuth token's scopes): it then gets only what both the configuration and its grant offer.
 * Selections are cached so tools/list stays cheap.
 */
import { TOOL_PROFILES, type ToolProfile } from "../config/schema.ts";
import type { AnyTool } from "./contract.ts";

export interface ToolSettings {
  profile: ToolProfile;
  enabled: readonly string[];
  disabled: readonly string[];
}

export interface OfferedTools {
  /** The offered tools in catalog order; the same array for the same settings (published schemas are cached by it). */
  tools: readonly AnyTool[];
  byName: ReadonlyMap<string, AnyTool>;
  /** Tools that exist but this configuration does not offer. */
  withheld: ReadonlySet<string>;
  /** Tools the configuration offers but the caller's granted profile does not include. */
  notGranted: ReadonlySet<string>;
}

const FULL: ToolSettings = { profile: "full", enabled: [], disabled: [] };

/** Whether a profile includes a tool on its own (before enabled and disabled). */
export function inProfile(tool: AnyTool, profile: ToolProfile): boolean {
  if (profile === "full" || tool.annotations.readOnlyHint) return true;
  return profile === "write" && tool.name.startsWith("file_");
}

/** The narrowest profile that includes the named tool on its own; undefined when no tool has that name. */
export function narrowestProfileFor(all: readonly AnyTool[], toolName: string): ToolProfile | undefined {
  const tool = all.find((candidate) => candidate.name === toolName);
  return tool === undefined ? undefined : TOOL_PROFILES.find((profile) => inProfile(tool, profile));
}

const cache = new WeakMap<readonly AnyTool[], Map<string, OfferedTools>>();
/** Distinct settings remembered per catalog; configurations rarely change, so this is plenty. */
const MAX_CACHED_SELECTIONS = 16;

export function offeredTools(all: readonly AnyTool[], settings: ToolSettings | undefined, granted?: ToolProfile): OfferedTools {
  const chosen = settings ?? FULL;
  const key = JSON.stringify([chosen.profile, [...chosen.enabled].sort(), [...chosen.disabled].sort(), granted ?? null]);
  let selections = cache.get(all);
  if (!selections) {
    selections = new Map();
    cache.set(all, selections);
  }
  const cached = selections.get(key);
  if (cached) return cached;

  const enabled = new Set(chosen.enabled);
  const disabled = new Set(chosen.disabled);
  const configured = all.filter((tool) => !disabled.has(tool.name) && (enabled.has(tool.name) || inProfile(tool, chosen.profile)));
  const tools = granted === undefined ? configured : configured.filter((tool) => inProfile(tool, granted));
  const offered = new Set(tools.map((tool) => tool.name));
  const configuredNames = new Set(configured.map((tool) => tool.name));
  const selection: OfferedTools = {
    tools: Object.freeze(tools),
    byName: new Map(tools.map((tool) => [tool.name, tool])),
    withheld: new Set(all.map((tool) => tool.name).filter((name) => !configuredNames.has(name))),
    notGranted: new Set([...configuredNames].filter((name) => !offered.has(name))),
  };
  if (selections.size >= MAX_CACHED_SELECTIONS) selections.delete(selections.keys().next().value as string);
  selections.set(key, selection);
  return selection;
}
