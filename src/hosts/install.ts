/**
 * install / update / uninstall: decide which artifacts each target wants in a scope, reconcile
 * them with what the install record says is already there, and commit the resulting file
 * changes (or print them as a diff). Uninstall takes back exactly what the record lists.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { mcpUrlFor } from "../helpers/loopback-url.ts";
import { shellQuote, windowsQuote } from "../helpers/shell-quote.ts";
import { applyArtifact, commitChanges, FileState, PlanError, renderDiff, undoArtifact, type FileChange } from "./apply.ts";
import type { HostEnvironment } from "./environment.ts";
import type { ExecutableInfo } from "./executable.ts";
import {
  artifactKey,
  findInstall,
  ownersUnion,
  readRecord,
  writeRecord,
  type ArtifactRecord,
  type InstallOptionsRecord,
  type InstallRecord,
  type InstallRecordFile,
  type ServiceRecord,
} from "./record.ts";
import { afterServiceRemoved, existingToken, newToken, planService, startService, stopService, type ServiceDeps, type ServiceSpec } from "./service.ts";
import {
  copilotHookFile,
  entryValue,
  serverEnvironment,
  hookGroupValue,
  SERVER_NAME,
  TARGET_TITLES,
  TARGETS,
  targetLayout,
  TOKEN_ENV_NAME,
  type ArtifactSpec,
  type Scope,
  type ServerLaunch,
  type Target,
} from "./targets.ts";

export interface Templates {
  guidance: string;
  skill: Array<{ relative: string; content: string }>;
}

export interface InstallContext {
  he: HostEnvironment;
  executable: ExecutableInfo;
  /** The runtime that runs the executable (service units name it explicitly). */
  nodePath: string;
  templates: Templates;
  serviceDeps: ServiceDeps;
  /** The effective [http] settings, for --transport http without --host/--port. */
  http: { host: string; port: number; tokenSet: boolean };
}

export interface InstallRequest {
  targets: Target[];
  scope: Scope;
  transport: "stdio" | "http";
  host?: string;
  port?: number;
  hooks: boolean;
  guidance: boolean;
  skill: boolean;
  service: boolean;
  dryRun: boolean;
}

export interface Report {
  changes: FileChange[];
  problems: Array<{ file: string; message: string }>;
  notes: string[];
  dryRun: boolean;
}

type Owned = ArtifactSpec & { owners: Target[] };

interface ScopeState {
  scope: Scope;
  project: string | null;
  he: HostEnvironment;
}

async function realProject(cwd: string): Promise<string> {
  try {
    return await fs.realpath(cwd);
  } catch {
    return path.resolve(cwd);
  }
}

async function scopeState(he: HostEnvironment, scope: Scope, project?: string): Promise<ScopeState> {
  if (scope === "global") return { scope, project: null, he };
  const real = project ?? (await realProject(he.cwd));
  return { scope, project: real, he: { ...he, cwd: real } };
}

function executableWord(he: HostEnvironment, executable: ExecutableInfo): string {
  return he.platform === "win32" ? windowsQuote(executable.command) : shellQuote(executable.command);
}

/** The artifacts one target wants in a scope; notes say what it skips and why. */
export function specsForTarget(
  target: Target,
  state: ScopeState,
  launch: ServerLaunch,
  executable: ExecutableInfo,
  options: Pick<InstallOptionsRecord, "hooks" | "guidance" | "skill">,
  templates: Templates,
): { specs: ArtifactSpec[]; notes: string[] } {
  const title = TARGET_TITLES[target];
  const layout = targetLayout(target, state.scope, state.he);
  if (layout.unsupported) return { specs: [], notes: [`${title}: skipped: ${layout.unsupported}`] };
  const entry = entryValue(target, state.scope, launch);
  if (typeof entry === "string") return { specs: [], notes: [`${title}: skipped: ${entry}`] };
  const specs: ArtifactSpec[] = [];
  const location = layout.entry;
  if (location) {
    if (location.format === "toml") specs.push({ kind: "toml", file: location.file, table: location.container, values: entry as Record<string, never>, role: "entry" });
    else specs.push({ kind: "json", file: location.file, slot: { container: location.container, key: SERVER_NAME }, value: entry, role: "entry" });
  }
  if (options.guidance) { for (const file of layout.guidance) specs.push({ kind: "block", file, body: templates.guidance, role: "guidance" }); }
  if (options.skill && layout.skillDir) {
    for (const item of templates.skill) specs.push({ kind: "file", file: path.join(layout.skillDir, ...item.relative.split("/")), content: item.content, role: "skill" });
  }
  if (options.hooks && layout.hookFile) {
    const word = executableWord(state.he, executable);
    if (layout.hooks === "json-group") {
      specs.push({
        kind: "json",
        file: layout.hookFile,
        slot: { container: ["hooks", "PreToolUse"], hookFor: target },
        value: hookGroupValue(target, word, state.he.platform !== "win32"),
        role: "hook",
      });
    } else if (layout.hooks === "copilot-file") {
      specs.push({ kind: "file", file: layout.hookFile, content: copilotHookFile(shellQuote(executable.command), windowsQuote(executable.command)), role: "hook" });
    }
  }
  return { specs, notes: [] };
}

/** Merges the targets' specs: one artifact per place, owned by every target that wants it. */
function mergeSpecs(perTarget: Array<{ target: Target; specs: ArtifactSpec[] }>, notes: string[]): Map<string, Owned> {
  const merged = new Map<string, Owned>();
  for (const { target, specs } of perTarget) {
    for (const spec of specs) {
      const key = artifactKey(spec);
      const known = merged.get(key);
      if (!known) {
        merged.set(key, { ...spec, owners: [target] });
        continue;
      }
      const same = JSON.stringify({ ...spec, owners: undefined }) === JSON.stringify({ ...known, owners: undefined });
      if (!same) notes.push(`${TARGET_TITLES[target]}: ${spec.file} is shared with ${known.owners.map((t) => TARGET_TITLES[t]).join(", ")}; keeping their entry`);
      known.owners = ownersUnion(known.owners, [target]);
    }
  }
  return merged;
}

interface Reconciled {
  artifacts: ArtifactRecord[];
  dirsToRemove: string[];
}

/**
 * Brings one scope's files to the desired artifacts for `runTargets`: applies what is wanted,
 * takes back what those targets no longer want, and keeps everything owned by other targets.
 * A file that cannot be edited is reported (in `report`, with the notes) and left entirely as it was.
 */
async function reconcile(existing: readonly ArtifactRecord[], desired: Map<string, Owned>, runTargets: readonly Target[], files: FileState, report: Report): Promise<Reconciled> {
  const existingByKey = new Map(existing.map((artifact) => [artifactKey(artifact), artifact]));
  /** previous: the artifact as recorded before this run (kept unchanged when its file fails). */
  type Operation = { previous?: ArtifactRecord; apply?: Owned; undo?: boolean; keepOwners?: Target[] };
  const byFile = new Map<string, Operation[]>();
  const push = (file: string, operation: Operation) => {
    const list = byFile.get(file) ?? [];
    list.push(operation);
    byFile.set(file, list);
  };
  for (const artifact of existing) {
    const key = artifactKey(artifact);
    if (desired.has(key)) continue;
    const remaining = artifact.owners.filter((owner) => !runTargets.includes(owner));
    if (remaining.length > 0) push(artifact.file, { previous: artifact, keepOwners: remaining });
    else push(artifact.file, { previous: artifact, undo: true });
  }
  for (const [key, spec] of desired) {
    const previous = existingByKey.get(key);
    const owners = ownersUnion(previous ? previous.owners.filter((owner) => !runTargets.includes(owner)) : [], spec.owners);
    const operation: Operation = { apply: { ...spec, owners } };
    if (previous) operation.previous = previous;
    push(spec.file, operation);
  }

  const result: Reconciled = { artifacts: [], dirsToRemove: [] };
  for (const [file, operations] of byFile) {
    const produced: ArtifactRecord[] = [];
    const dirs: string[] = [];
    const notes: string[] = [];
    try {
      for (const { previous, apply, undo, keepOwners } of operations) {
        if (previous && keepOwners) produced.push({ ...previous, owners: keepOwners });
        if (previous && undo) {
          const note = await undoArtifact(previous, files);
          if (note) notes.push(note);
          dirs.push(...previous.createdDirs);
        }
        if (apply) produced.push(await applyArtifact(apply, previous, files));
      }
    } catch (error) {
      if (!(error instanceof PlanError)) throw error;
      files.revert(file);
      report.problems.push({ file, message: `${file} ${error.message}` });
      // The file stays as it was, and so do its records.
      for (const { previous } of operations) if (previous) result.artifacts.push(previous);
      continue;
    }
    result.artifacts.push(...produced);
    result.dirsToRemove.push(...dirs);
    report.notes.push(...notes);
  }
  return result;
}

function launchFor(options: InstallOptionsRecord, context: InstallContext): { launch: ServerLaunch; host: string; port: number } {
  const host = options.host ?? context.http.host;
  const port = options.port ?? context.http.port;
  if (options.transport === "stdio") return { launch: { transport: "stdio", command: context.executable.command, env: serverEnvironment(context.he.platform) }, host, port };
  return { launch: { transport: "http", url: mcpUrlFor(host, port), tokenEnv: options.tokenEnv }, host, port };
}

interface ServicePlanned {
  spec: ServiceSpec;
  specs: ArtifactSpec[];
}

async function serviceSpecs(state: ScopeState, context: InstallContext, host: string, port: number, notes: string[]): Promise<ServicePlanned | undefined> {
  const roots = state.project ? [state.project] : [];
  const planned = planService(state.he, { nodePath: context.nodePath, executable: context.executable.absolute, host, port, roots });
  if ("unsupported" in planned) {
    notes.push(`service: ${planned.unsupported}`);
    return undefined;
  }
  const token = (await existingToken(planned.tokenFile)) ? await fs.readFile(planned.tokenFile, "utf8") : newToken();
  return {
    spec: planned,
    specs: [
      { kind: "file", file: planned.unitFile, content: planned.unitContent, role: "service" },
      { kind: "file", file: planned.tokenFile, content: token, role: "service", mode: 0o600 },
    ],
  };
}

function serviceRecordOf(spec: ServiceSpec): ServiceRecord {
  return { manager: spec.manager, unitFile: spec.unitFile, label: spec.label, host: spec.host, port: spec.port, tokenFile: spec.tokenFile };
}

/** Finishes a plan: prints or writes the changes, starts/stops the service, saves the record. */
async function finish(
  context: InstallContext,
  record: InstallRecordFile,
  changes: FileChange[],
  dirsToRemove: string[],
  report: Report,
  service: { start?: ServiceSpec; stop?: ServiceRecord },
): Promise<Report> {
  report.changes = changes;
  if (report.dryRun) return report;
  if (service.stop) {
    const note = await stopService(service.stop, context.serviceDeps);
    if (note) report.notes.push(note);
  }
  const failures = await commitChanges(changes, dirsToRemove);
  report.problems.push(...failures.map((failure) => ({ file: failure.file, message: `${failure.file}: ${failure.message}` })));
  if (service.stop) await afterServiceRemoved(service.stop, context.serviceDeps);
  await writeRecord(context.he, record);
  if (service.start) {
    try {
      await startService(service.start, context.serviceDeps);
      report.notes.push(
        `service: ${service.start.label} is running and answers http://${service.start.host}:${service.start.port}/healthz; its token is in ${service.start.tokenFile} (export it as ${TOKEN_ENV_NAME} for the hosts)`,
      );
    } catch (error) {
      report.problems.push({ file: service.start.unitFile, message: `service: ${(error as Error).message}` });
    }
  }
  return report;
}

function upsertInstall(record: InstallRecordFile, install: InstallRecord): void {
  const index = record.installs.findIndex((candidate) => candidate.scope === install.scope && candidate.project === install.project);
  if (index === -1) record.installs.push(install);
  else record.installs[index] = install;
}

async function planScope(
  state: ScopeState,
  context: InstallContext,
  record: InstallRecordFile,
  runTargets: Target[],
  allTargets: Target[],
  options: InstallOptionsRecord,
  withService: boolean,
  files: FileState,
  report: Report,
): Promise<{ dirsToRemove: string[]; start?: ServiceSpec; stop?: ServiceRecord }> {
  const existing = findInstall(record, state.scope, state.project);
  const { launch, host, port } = launchFor(options, context);
  const perTarget = runTargets.map((target) => ({ target, ...specsForTarget(target, state, launch, context.executable, options, context.templates) }));
  for (const item of perTarget) report.notes.push(...item.notes);
  let service: ServicePlanned | undefined;
  if (withService) {
    service = await serviceSpecs(state, context, host, port, report.notes);
    if (service) perTarget.push({ target: runTargets[0] as Target, specs: service.specs, notes: [] });
  }
  const desired = mergeSpecs(perTarget, report.notes);
  if (service) { for (const spec of service.specs) (desired.get(artifactKey(spec)) as Owned).owners = ownersUnion([], runTargets); }
  const reconciled = await reconcile(existing?.artifacts ?? [], desired, runTargets, files, report);

  const unitFile = service?.spec.unitFile ?? existing?.service?.unitFile;
  const unitKept = unitFile !== undefined && reconciled.artifacts.some((artifact) => artifact.file === unitFile);
  const install: InstallRecord = {
    scope: state.scope,
    project: state.project,
    targets: TARGETS.filter((target) => allTargets.includes(target) && reconciled.artifacts.some((artifact) => artifact.owners.includes(target))),
    options,
    artifacts: reconciled.artifacts,
  };
  if (service && unitKept) install.service = serviceRecordOf(service.spec);
  else if (!service && existing?.service && unitKept) install.service = existing.service;
  upsertInstall(record, install);

  const result: { dirsToRemove: string[]; start?: ServiceSpec; stop?: ServiceRecord } = { dirsToRemove: reconciled.dirsToRemove };
  if (service && unitKept) result.start = service.spec;
  if (existing?.service && !unitKept) result.stop = existing.service;
  return result;
}

export async function install(request: InstallRequest, context: InstallContext): Promise<Report> {
  const report: Report = { changes: [], problems: [], notes: [], dryRun: request.dryRun };
  const record = await readRecord(context.he);
  const state = await scopeState(context.he, request.scope);
  const existing = findInstall(record, state.scope, state.project);
  const transport = request.service ? "http" : request.transport;
  const options: InstallOptionsRecord = { transport, hooks: request.hooks, guidance: request.guidance, skill: request.skill };
  if (request.host !== undefined) options.host = request.host;
  if (request.port !== undefined) options.port = request.port;
  if (transport === "http" && (request.service || context.http.tokenSet)) options.tokenEnv = TOKEN_ENV_NAME;
  const allTargets = TARGETS.filter((target) => request.targets.includes(target) || (existing?.targets.includes(target) ?? false));
  const files = new FileState();
  const planned = await planScope(state, context, record, request.targets, allTargets, options, request.service, files, report);
  return finish(context, record, files.changes(), planned.dirsToRemove, report, planned);
}

/** Re-points every recorded install at the current executable and refreshes the templates. */
export async function update(options: { dryRun: boolean }, context: InstallContext): Promise<Report> {
  const report: Report = { changes: [], problems: [], notes: [], dryRun: options.dryRun };
  const record = await readRecord(context.he);
  if (record.installs.length === 0) {
    report.notes.push("nothing to update: no install is recorded");
    return report;
  }
  const files = new FileState();
  const dirs: string[] = [];
  let start: ServiceSpec | undefined;
  for (const recorded of [...record.installs]) {
    if (recorded.project !== null) {
      try {
        await fs.stat(recorded.project);
      } catch {
        report.notes.push(`skipped ${recorded.project}: the project folder is gone (run \`ast-mcp uninstall\` there, or remove it from the record)`);
        continue;
      }
    }
    const state = await scopeState(context.he, recorded.scope, recorded.project ?? undefined);
    const planned = await planScope(state, context, record, recorded.targets, recorded.targets, recorded.options, recorded.service !== undefined, files, report);
    dirs.push(...planned.dirsToRemove);
    start ??= planned.start;
  }
  return finish(context, record, files.changes(), dirs, report, start ? { start } : {});
}

export async function uninstall(request: { targets: Target[]; scopes: Scope[]; dryRun: boolean }, context: InstallContext): Promise<Report> {
  const report: Report = { changes: [], problems: [], notes: [], dryRun: request.dryRun };
  const record = await readRecord(context.he);
  const files = new FileState();
  const dirs: string[] = [];
  let stop: ServiceRecord | undefined;
  let found = false;
  for (const scope of request.scopes) {
    const state = await scopeState(context.he, scope);
    const existing = findInstall(record, state.scope, state.project);
    if (!existing) continue;
    found = true;
    const reconciled = await reconcile(existing.artifacts, new Map(), request.targets, files, report);
    dirs.push(...reconciled.dirsToRemove);
    const remaining: InstallRecord = {
      ...existing,
      artifacts: reconciled.artifacts,
      targets: existing.targets.filter((target) => reconciled.artifacts.some((artifact) => artifact.owners.includes(target))),
    };
    const unitKept = existing.service !== undefined && reconciled.artifacts.some((artifact) => artifact.file === existing.service?.unitFile);
    if (existing.service && !unitKept) {
      delete remaining.service;
      stop ??= existing.service;
    }
    upsertInstall(record, remaining);
  }
  if (!found) report.notes.push(`nothing to uninstall: no ${request.scopes.join(" or ")} install is recorded${request.scopes.includes("local") ? ` for ${context.he.cwd}` : ""}`);
  return finish(context, record, files.changes(), dirs, report, stop ? { stop } : {});
}

/** Human-readable report: diffs for a dry run, one line per file otherwise. */
export function renderReport(report: Report): { stdout: string; stderr: string } {
  const out: string[] = [];
  if (report.dryRun) {
    for (const change of report.changes) out.push(renderDiff(change));
    out.push(report.changes.length === 0 ? "dry run: nothing would change\n" : `dry run: ${report.changes.length} file(s) would change; nothing was written\n`);
  } else {
    for (const change of report.changes) {
      const verb = change.before === null ? "created" : change.after === null ? "removed" : "updated";
      out.push(`${verb} ${change.file}\n`);
    }
    if (report.changes.length === 0) out.push("nothing to change: everything is already in place\n");
  }
  const err: string[] = [];
  for (const note of report.notes) out.push(`note: ${note}\n`);
  for (const problem of report.problems) err.push(`error: ${problem.message}\n`);
  return { stdout: out.join(""), stderr: err.join("") };
}
