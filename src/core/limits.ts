/**
 * Every limit ast-mcp enforces, in one auditable place.
 * Configurable limits appear here as the default the configuration schema starts from.
 */

const KiB = 1024;
const MiB = 1024 * KiB;

export const LIMITS = {
  /** Paths (or entries) one batched tool call may name. */
  batchPaths: 50,
  /** Characters in one path argument. */
  pathChars: 4096,
  /** Symbolic links followed while resolving one path (a loop stops here). */
  symlinkHops: 40,

  stdio: {
    /** A frame (one line of JSON-RPC) larger than this is discarded up to the next newline. */
    maxFrameBytes: 10 * MiB,
    /** Error replies sent for one uninterrupted run of invalid frames (then one notice, then silence). */
    maxErrorRepliesPerRun: 64,
    /** Bytes of outbound frames queued before stdin is paused until the queue drains. */
    outboundHighWaterBytes: 8 * MiB,
    /** Request ids longer than this (as JSON text) are never echoed back. */
    maxEchoedIdChars: 256,
  },

  http: {
    defaultHost: "127.0.0.1",
    defaultPort: 3768,
    /** Request bodies larger than this get 413. */
    maxBodyBytes: 4 * MiB,
    /** Default idle time after which a session is closed (config: [http].session_idle_minutes). */
    defaultSessionIdleMinutes: 30,
    /** Default cap on live sessions (config: [http].max_sessions); beyond it a new session gets 503. */
    defaultMaxSessions: 256,
    /** How often idle sessions are swept. */
    idleSweepMs: 30_000,
  },

  shutdown: {
    /** Time allowed for closing sessions and connections before the process gives up. */
    graceMs: 5_000,
  },

  read: {
    /** Default lines returned by one file_read range. */
    defaultMaxLines: 400,
    /** Default bytes returned by one file_read range. */
    defaultMaxBytes: 64 * KiB,
    /** Ceiling for a caller-supplied maxBytes. */
    maxBytesCeiling: 1 * MiB,
    /** Bytes inspected to tell text from binary. */
    binarySniffBytes: 8000,
    /** Files larger than this are not decoded for text reads (hashing still streams). */
    maxDecodeBytes: 64 * MiB,
  },

  document: {
    /** Selectors in one document_query call. */
    maxSelectors: 50,
    /** Documents larger than this are not parsed. */
    maxFileBytes: 8 * MiB,
    /** Serialized bytes of one selected value before it is cut. */
    maxValueBytes: 16 * KiB,
    /** Nesting levels of one selected value rendered before deeper levels are replaced by a marker. */
    maxValueDepth: 100,
    /** YAML alias expansions allowed while building a document's value (guards against alias bombs). */
    maxYamlAliasCount: 100,
    /** Keys listed at the deepest existing level when a selector does not match. */
    maxSuggestedKeys: 20,
  },

  output: {
    /** Characters of text rendering in one tool result; structured output says what was cut. */
    maxTextChars: 48 * KiB,
  },

  patch: {
    /** Similarity a fuzzy Aider match needs by default (config: [safety].fuzzy_threshold). */
    defaultFuzzyThreshold: 0.9,
    /** Bytes of unified diff returned by a preview before it is cut. */
    maxPreviewDiffBytes: 64 * KiB,
    /** Candidate files larger than this are refused. */
    maxCandidateBytes: 16 * MiB,
    /** Preview receipts kept per session, and their candidate bytes. */
    maxReceiptsPerSession: 64,
    maxReceiptBytesPerSession: 64 * MiB,
    /** How long a preview receipt stays valid. */
    receiptTtlMs: 10 * 60_000,
    /** Structural rules per file_patch entry, and match locations listed in errors. */
    maxAstRules: 50,
    maxListedMatches: 50,
  },

  locks: {
    /** How long a writer waits for another writer's lock before lock_timeout. */
    acquireTimeoutMs: 10_000,
    /** A cross-process lock not refreshed for this long is considered stale and recovered. */
    staleMs: 30_000,
  },

  journal: {
    /** Committed batches kept for undo (config: [journal].max_batches). */
    defaultMaxBatches: 500,
    /** Bytes of before-images kept for undo (config: [journal].max_bytes). */
    defaultMaxBytes: 512 * MiB,
    /** Days a batch stays undoable (config: [journal].max_age_days). */
    defaultMaxAgeDays: 14,
  },

  format: {
    /** Default timeout of an external formatter (config: formatters[].timeout_ms). */
    externalTimeoutMs: 10_000,
    /** Bytes an external formatter may print before it is stopped. */
    externalMaxOutputBytes: 32 * MiB,
  },

  config: {
    /** Largest configuration file read. */
    maxFileBytes: 1 * MiB,
  },
} as const;
