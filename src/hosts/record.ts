/**
 * The install record: what `ast-mcp install` added, where, and how to take it back exactly. It
 * lives in the user's state directory (never in a repository), one JSON file, written atomically
 * and readable only by the user.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import writeFileAtomic from "write-file-atomic";
import { z } from "zod";
import type { JsonEditTrace } from "../helpers/json-edit.ts";
import { stateDir, type HostEnvironment } from "./environment.ts";
import { TARGETS, type JsonSlotSpec, type Scope, type Target } from "./targets.ts";

const RECORD_FILE_NAME = "install-record.json";

const TargetSchema = z.enum(TARGETS);
const SlotSchema = z.union([
  z.object({ container: z.array(z.string()), key: z.string() }),
  z.object({ container: z.array(z.string()), hookFor: z.string() }),
]);
const TraceSchema = z.object({
  createdContainers: z.array(z.array(z.string())),
  filledEmpty: z.object({ path: z.array(z.string()), text: z.string() }).optional(),
  replacedText: z.string().optional(),
});
const Common = {
  file: z.string(),
  owners: z.array(TargetSchema),
  /** The file did not exist before install: uninstall deletes it once nothing else is in it. */
  createdFile: z.boolean(),
  /** Folders install created for the file, outermost first; uninstall removes them when empty. */
  createdDirs: z.array(z.string()),
};
const ArtifactSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("json"), ...Common, slot: SlotSchema, trace: TraceSchema, originalText: z.string().optional() }),
  z.object({ kind: z.literal("toml"), ...Common, table: z.array(z.string()), prefix: z.string(), replacedText: z.string().optional() }),
  z.object({ kind: z.literal("block"), ...Common, prefix: z.string(), suffix: z.string() }),
  z.object({ kind: z.literal("file"), ...Common, sha256: z.string() }),
]);
const ServiceSchema = z.object({
  manager: z.enum(["systemd", "launchd"]),
  unitFile: z.string(),
  label: z.string(),
  host: z.string(),
  port: z.number(),
  tokenFile: z.string(),
});
const InstallSchema = z.object({
  scope: z.enum(["local", "global"]),
  /** The project folder for local installs. */
  project: z.string().nullable(),
  targets: z.array(TargetSchema),
  options: z.object({
    transport: z.enum(["stdio", "http"]),
    host: z.string().optional(),
    port: z.number().optional(),
    tokenEnv: z.string().optional(),
    hooks: z.boolean(),
    guidance: z.boolean(),
    skill: z.boolean(),
  }),
  artifacts: z.array(ArtifactSchema),
  service: ServiceSchema.optional(),
});
const RecordSchema = z.object({ version: z.literal(1), installs: z.array(InstallSchema) });

export type ArtifactRecord = z.infer<typeof ArtifactSchema>;
export type ServiceRecord = z.infer<typeof ServiceSchema>;
export type InstallRecord = z.infer<typeof InstallSchema>;
export type InstallRecordFile = z.infer<typeof RecordSchema>;
export type InstallOptionsRecord = InstallRecord["options"];

// Keep the record's types in step with the edit helpers'.
const slotCheck: (slot: JsonSlotSpec) => z.infer<typeof SlotSchema> = (slot) => slot;
const traceCheck: (trace: JsonEditTrace) => z.infer<typeof TraceSchema> = (trace) => trace;
void slotCheck;
void traceCheck;

export function recordPath(he: HostEnvironment): string {
  return path.join(stateDir(he), RECORD_FILE_NAME);
}

export class RecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RecordError";
  }
}

export async function readRecord(he: HostEnvironment): Promise<InstallRecordFile> {
  const file = recordPath(he);
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, installs: [] };
    throw new RecordError(`cannot read the install record ${file}: ${(error as Error).message}`);
  }
  try {
    return RecordSchema.parse(JSON.parse(text));
  } catch (error) {
    throw new RecordError(`the install record ${file} is damaged (${(error as Error).message.split("\n")[0]}); move it away to start over`);
  }
}

export async function writeRecord(he: HostEnvironment, record: InstallRecordFile): Promise<void> {
  const file = recordPath(he);
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const kept = { version: 1 as const, installs: record.installs.filter((install) => install.artifacts.length > 0 || install.service !== undefined) };
  await writeFileAtomic(file, `${JSON.stringify(kept, null, 2)}\n`, { mode: 0o600 });
}

export function findInstall(record: InstallRecordFile, scope: Scope, project: string | null): InstallRecord | undefined {
  return record.installs.find((install) => install.scope === scope && install.project === project);
}

export function artifactKey(artifact: { kind: string; file: string } & ({ slot: JsonSlotSpec } | { table: string[] } | object)): string {
  if ("slot" in artifact) return `${artifact.kind}|${artifact.file}|${JSON.stringify(artifact.slot)}`;
  if ("table" in artifact) return `${artifact.kind}|${artifact.file}|${JSON.stringify(artifact.table)}`;
  return `${artifact.kind}|${artifact.file}`;
}

export function ownersUnion(a: readonly Target[], b: readonly Target[]): Target[] {
  return TARGETS.filter((target) => a.includes(target) || b.includes(target));
}
