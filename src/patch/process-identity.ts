/**
 * Who wrote a journal entry or holds a lock, and whether that process still runs. A pid alone is
 * not enough: pids are reused, so on Linux the kernel's start time of the process is recorded too
 * and a different start time under the same pid means the writer is gone.
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";

export interface ProcessIdentity {
  pid: number;
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22); null where unavailable. */
  startTime: string | null;
  host: string;
}

/** Liveness as far as this machine can tell; "unknown" for a process of another host. */
export type Liveness = "alive" | "dead" | "unknown";

interface ProcStat {
  state: string;
  startTime: string;
}

function readProcStat(pid: number): ProcStat | undefined {
  if (process.platform !== "linux") return undefined;
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name (field 2) may contain spaces and parentheses: fields resume after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  const startTime = fields[19];
  if (state === undefined || startTime === undefined || !/^\d+$/.test(startTime)) return undefined;
  return { state, startTime };
}

/** Process-wide by nature: this process's identity, read once. */
let self: ProcessIdentity | undefined;

export function currentProcess(): ProcessIdentity {
  self ??= { pid: process.pid, startTime: readProcStat(process.pid)?.startTime ?? null, host: hostname() };
  return self;
}

export function isValidIdentity(value: unknown): value is ProcessIdentity {
  const candidate = value as Partial<ProcessIdentity> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.pid === "number" &&
    Number.isSafeInteger(candidate.pid) &&
    candidate.pid > 0 &&
    (candidate.startTime === null || typeof candidate.startTime === "string") &&
    typeof candidate.host === "string"
  );
}

export function livenessOf(identity: ProcessIdentity): Liveness {
  if (identity.host !== currentProcess().host) return "unknown";
  // A pid of 0 or below would address process groups; such a record is not a writer we know.
  if (!Number.isSafeInteger(identity.pid) || identity.pid <= 0) return "unknown";
  try {
    process.kill(identity.pid, 0);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ESRCH") return "dead";
    // EPERM: the pid exists but belongs to someone else; it still may be a reused pid (checked below).
    if (code !== "EPERM") return "unknown";
  }
  const stat = readProcStat(identity.pid);
  if (stat === undefined) return "alive";
  // A killed child that nobody has reaped yet is a zombie: it will never write again.
  if (stat.state === "Z" || stat.state === "X") return "dead";
  if (identity.startTime !== null && stat.startTime !== identity.startTime) return "dead";
  return "alive";
}
