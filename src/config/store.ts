/**
 * The live configuration: one snapshot at a time, re-read when a file it came from changes.
 * `generation` moves only when the effective configuration (or token) really changes, so
 * consumers can cache anything derived from a snapshot by its generation.
 */
import { type FileFingerprint, fingerprintFile, sameFingerprint } from "./fingerprint.ts";
import { loadConfigDetailed } from "./load.ts";
import type { LoadConfigOptions } from "./load.ts";
import type { ConfigSnapshot } from "./types.ts";

function effectiveKey(snapshot: ConfigSnapshot): string {
  return JSON.stringify({ config: snapshot.config, token: snapshot.token ?? null });
}

export class ConfigStore {
  private snapshot: ConfigSnapshot;
  private fingerprints: FileFingerprint[];
  private inFlight: Promise<ConfigSnapshot> | undefined;

  private constructor(
    private readonly options: LoadConfigOptions,
    snapshot: ConfigSnapshot,
    fingerprints: FileFingerprint[],
  ) {
    this.snapshot = snapshot;
    this.fingerprints = fingerprints;
  }

  static async open(options: LoadConfigOptions): Promise<ConfigStore> {
    const { snapshot, fingerprints } = await loadConfigDetailed(options);
    return new ConfigStore(options, snapshot, fingerprints);
  }

  current(): ConfigSnapshot {
    return this.snapshot;
  }

  /** Re-reads the configuration if a file it depends on changed (a stat per file otherwise). */
  refresh(): Promise<ConfigSnapshot> {
    // Concurrent callers share one reload instead of racing to bump the generation.
    this.inFlight ??= this.reloadIfChanged().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async filesChanged(): Promise<boolean> {
    for (const previous of this.fingerprints) {
      if (!sameFingerprint(previous, await fingerprintFile(previous.path))) return true;
    }
    return false;
  }

  private async reloadIfChanged(): Promise<ConfigSnapshot> {
    if (!(await this.filesChanged())) return this.snapshot;
    const previous = this.snapshot;
    const changed = (next: ConfigSnapshot) => effectiveKey(next) !== effectiveKey(previous);
    const probe = await loadConfigDetailed(this.options, previous.generation);
    this.fingerprints = probe.fingerprints;
    if (!changed(probe.snapshot)) {
      // Same effective configuration; problems, warnings or sources may still differ, so keep the fresh view.
      this.snapshot = probe.snapshot;
      return this.snapshot;
    }
    this.snapshot = Object.freeze({ ...probe.snapshot, generation: previous.generation + 1 });
    return this.snapshot;
  }
}
