/**
 * The fixed caps ast-mcp enforces that a client or user can see: sizes, counts, depths and timeouts
 * that show up in answers, errors, notes or the published table (docs/limits.md, generated from
 * this file by scripts/gen-limits.ts and checked against it by test/core/limits-table.test.ts).
 *
 * Two kinds of number live elsewhere. The default of a configuration key lives with the schema
 * (DEFAULT_CONFIG in src/config/schema.ts). Engine tuning — concurrency, batch and buffer sizes,
 * growth factors, collection budgets — lives beside its module as a constructor option (or
 * parameter) with a default, so a test can run the module with other values.
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
    /** Request ids longer than this (as JSON text) are never echoed back. */
    maxEchoedIdChars: 256,
  },

  http: {
    /** Request bodies larger than this get 413. */
    maxBodyBytes: 4 * MiB,
  },

  /** The OAuth resource-server mode ([http.auth]). */
  oauth: {
    /** Bearer tokens longer than this are refused unread. */
    maxTokenBytes: 16 * KiB,
    /** Time allowed for fetching the issuer's metadata or keys; past it the request waiting on them gets 503, never a hang. */
    fetchTimeoutMs: 5_000,
    /** The issuer's metadata or key set larger than this is refused. */
    maxDocumentBytes: 256 * KiB,
    /** How long the issuer's key set is used before it is fetched again. */
    keysTtlMs: 10 * 60_000,
    /** A token naming a key the set lacks fetches the set again at most this often (a new key after rotation is found; a flood of made-up key ids costs the issuer nothing). */
    unknownKeyRefetchMs: 30_000,
  },

  progress: {
    /** Progress notifications of one call are at least this far apart (then one last at 100% when it is answered); a margin over 250 ms keeps them so on the clock of a client that reads late under load. */
    minIntervalMs: 300,
    /** The answer follows the last notification (100%) after at least this long, so a client reads them apart and handles the notification first. */
    settleMs: 15,
  },

  shutdown: {
    /** Time allowed for closing sessions and connections before the process gives up. */
    graceMs: 5_000,
    /** Of that, the time given to writing what the code index parsed since its snapshot was last written. */
    snapshotFlushMs: 3_000,
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
    /**
     * Files up to this size are opened, read and (by the write commit) written with synchronous
     * calls, a few µs each instead of a thread-pool round trip; larger ones stream asynchronously
     * so a big file never stalls other requests. fsync always runs on the thread pool.
     */
    syncIoBytes: 1 * MiB,
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
    /** Syntax errors listed in one parse_error. */
    maxListedSyntaxErrors: 10,
  },

  output: {
    /** Characters of text rendering in one tool result; structured output says what was cut. */
    maxTextChars: 48 * KiB,
  },

  patch: {
    /** Bytes of unified diff returned by a preview before it is cut. */
    maxPreviewDiffBytes: 64 * KiB,
    /** Candidate files larger than this are refused. */
    maxCandidateBytes: 16 * MiB,
    /** Preview receipts kept per session, and their candidate bytes. */
    maxReceiptsPerSession: 64,
    maxReceiptBytesPerSession: 64 * MiB,
    /** Preview receipts of stateless (2026-07-28) requests, which have no session to charge: one shared pool, oldest evicted first (an OAuth client holds at most a session's budget of it). */
    maxStatelessReceipts: 256,
    maxStatelessReceiptBytes: 128 * MiB,
    /** Batches file_undo's refusal and journal_list name at once (journal_list's limit goes up to the second). */
    listedBatches: 10,
    maxListedBatches: 100,
    /** Paths named per listed batch (the rest are counted). */
    listedBatchFiles: 20,
    /** How long a preview receipt stays valid. */
    receiptTtlMs: 10 * 60_000,
    /** Structural rules per file_patch entry, and match locations listed in errors. */
    maxAstRules: 50,
    maxListedMatches: 50,
    /** Characters of matched text shown per listed match. */
    maxMatchTextChars: 200,
    /** Syntax errors listed in one syntax_regression, and characters of source shown per error. */
    maxListedSyntaxErrors: 50,
    maxErrorTextChars: 120,
    /** Characters of the nearest text and of its character diff shown when a search does not match. */
    nearestTextChars: 4000,
    nearestDiffChars: 2000,
    /** Unchanged lines shown around each change in a unified diff. */
    diffContextLines: 3,
    /** Line comparisons one unified diff may spend on minimal (Myers) diffing before it settles for coarser hunks. */
    diffMaxWork: 20_000_000,
  },

  intel: {
    /** The per-language fact extractors (src/intel/facts/). */
    facts: {
      /** Characters of a declaration head kept as its signature (whitespace collapsed). */
      signatureChars: 200,
      /** Characters of the first doc sentence kept. */
      docChars: 200,
      /** Characters of a callee expression kept (the end, which holds the called name, is kept). */
      calleeChars: 120,
      /** Nesting levels of JSON/YAML/TOML keys outlined (1 = top-level keys only). */
      documentKeyDepth: 2,
      /** Keys one document outline holds before the rest are left out. */
      documentMaxKeys: 2_000,
      /** Headings, ids, classes or selectors one markup/stylesheet outline holds. */
      markupMaxSymbols: 2_000,
    },

    /** The code index (src/intel/index/). */
    index: {
      /**
       * Directory levels below a root the index walks; deeper ones are reported (skipped.tooDeep) and
       * left out. Listing a directory re-checks its path from the root, so the walk's cost grows with
       * the square of the depth; real trees stay far below this.
       */
      maxDirectoryDepth: 128,
      /** Synchronous index work (directory listings, file reads) done before the event loop gets a turn. */
      syncSliceMs: 20,
      /** Largest .gitignore file read; a larger one is ignored (with a warning). */
      maxIgnoreFileBytes: 1 * MiB,
      /** Largest persisted snapshot read back. */
      maxSnapshotBytes: 512 * MiB,
      /** Snapshots (one per set of roots) kept in the cache directory; the least recently saved beyond this are deleted. */
      maxSnapshots: 16,
      /**
       * A read call waits at most this long for the index (its first build, a large refresh); then it
       * answers from the files indexed so far and says so (the build goes on, and the next call sees more).
       */
      answerWithinMs: 8_000,
    },

    /** Module resolution and the import graph (src/intel/graph/, src/tools/graph-common.ts and the graph tools). */
    graph: {
      /** Largest resolution-steering file read (tsconfig.json, package.json, go.mod, Cargo.toml). */
      maxConfigBytes: 1 * MiB,
      /** tsconfig `extends` levels followed before the chain is cut. */
      maxExtendsDepth: 16,
      /** Workspace packages (npm/yarn/pnpm) discovered per root. */
      maxWorkspacePackages: 2_000,
      /** Default and ceiling of deps/reverse_deps depth. */
      defaultDepth: 1,
      maxDepth: 16,
      /** Files one transitive walk visits before it stops (and says so). */
      maxWalkNodes: 20_000,
      /** Edges (or adjacency rows) the graph tool lists before it cuts. */
      defaultMaxEdges: 500,
      maxEdgesCeiling: 20_000,
      /** Cycles the cycles tool lists, and files shown per listed cycle. */
      maxCycles: 100,
      maxCycleMembersShown: 50,
      /** External packages and unresolved specifiers listed in one answer. */
      maxExternalsListed: 50,
      maxUnresolvedListed: 100,
    },

    /** The call graph and its tools (src/intel/calls/, src/tools/call-common.ts and the call tools). */
    calls: {
      /** Re-export and import hops followed to find a declaration (cycles stop earlier). */
      maxReexportHops: 16,
      /** Default and ceiling of callers/callees depth. */
      defaultDepth: 1,
      maxDepth: 8,
      /** Default and ceiling of the call sites one callers/callees answer lists. */
      defaultLimit: 100,
      maxLimit: 2_000,
      /** Candidates listed for one ambiguous call. */
      maxCandidates: 10,
      /** Default and ceiling of trace's path length, and paths trace returns. */
      defaultTraceDepth: 6,
      maxTraceDepth: 12,
      maxTracePaths: 20,
      /** Symbols one trace or impact search expands before it stops (and says so). */
      maxExpanded: 20_000,
      /** Default depth of the caller walk impact makes. */
      impactDepth: 3,
      /** Default and ceiling of context's token budget. */
      defaultContextBudget: 4000,
      maxContextBudget: 100_000,
      /** Implementations implements follows transitively (a subclass of an implementation). */
      maxHeritageDepth: 8,
      /** Import hops from a calling file within which a callee guessed by name may be declared (module-scoped languages). */
      inferenceHops: 2,
      /** Bytes of source text callers reads at most when scanning for unresolved candidates of a name no call resolves to. */
      candidateScanBytes: 96 * MiB,
      /** Unresolved candidates (occurrences of the name that resolve to nothing) one callers or impact answer lists. */
      maxCandidatesListed: 50,
      /** Derived answers (unresolved candidates per symbol) the call graph keeps per generation, so asking again reads no text. */
      maxDerived: 1_024,
    },

    /** The outline tools (map, digest, show, surface; their shared parts in src/tools/outline.ts). */
    outline: {
      /** Default token budget of map and digest output. */
      defaultMaxTokens: 6000,
      /** Default token budget of digest (one page). */
      digestMaxTokens: 2500,
      /** Default token budget of file_read mode "ast" and of show. */
      defaultShowTokens: 8000,
      /** Ceiling for a caller-supplied maxTokens. */
      maxTokensCeiling: 100_000,
      /** Symbol names one show call may ask for. */
      maxSymbols: 50,
      /** Files matched by one map call before the rest is cut (and said so). */
      maxFiles: 5000,
      /** Files one digest summarises (it pages on with a cursor, so a whole tree fits; the rest is cut and said so). */
      digestMaxFiles: 50_000,
      /** file_read mode "auto" returns the outline instead of text for source files larger than this. */
      autoOutlineBytes: 32 * KiB,
      /** Characters of a rendered signature before it is cut. */
      maxSignatureChars: 240,
    },

    typescript: {
      /** TypeScript language services (one per project) kept alive; the least recently used is disposed. */
      maxServices: 4,
      /** Root files one project takes from its tsconfig (or, without one, from its root). */
      maxProjectFiles: 5_000,
      /** Directories whose policy-approved listings one project keeps. */
      maxDirectories: 20_000,
      /** Rounds of "list the directories the compiler asked about, then rebuild" before answering with what is known. */
      maxApprovalRounds: 24,
      /** Rounds of reading a tsconfig's file list (each directory level its include globs reach takes one). */
      maxConfigRounds: 64,
      /** Files larger than this are invisible to the compiler (generated bundles). */
      maxFileBytes: 4 * MiB,
      /** Characters of one rendered type or signature before it is cut. */
      maxTypeChars: 400,
      /** Symbols one typed outline reports. */
      maxOutlineSymbols: 2_000,
      /** References one typed lookup reports. */
      maxReferences: 1_000,
      /** Introduced diagnostics one delta reports. */
      maxDiagnostics: 100,
      /** Files importing the changed file whose diagnostics are compared too. */
      maxDeltaImporters: 20,
      /** Characters of one diagnostic message. */
      maxMessageChars: 600,
      /** Characters of a reference's source line shown with it. */
      maxLineTextChars: 200,
    },

    search: {
      /** Results search returns by default, and at most. */
      defaultTopK: 10,
      maxTopK: 50,
      /** Lines of a chunk shown as a result's snippet. */
      snippetLines: 6,
      /** Characters of one snippet line before it is cut. */
      snippetLineChars: 160,
      /** Distinct query terms used (the rest are ignored and reported). */
      maxQueryTerms: 32,
      /** Files larger than this are left out of source chunks (their symbols still count). */
      maxChunkedFileBytes: 1024 * KiB,
      /** Import-graph hops from contextFile that still earn a proximity boost. */
      proximityMaxHops: 3,
    },

    run: {
      /** Files one run may rewrite in its single journaled batch. */
      maxWriteFiles: 500,
      /** Matches listed in one run result (every match is still counted). */
      maxListedMatches: 200,
      /** Characters of matched text and of each capture shown per match. */
      maxMatchTextChars: 200,
      /** Files larger than this are not searched (generated bundles). */
      maxFileBytes: 4 * MiB,
      /** Diff bytes returned per file of a dry run, and in total. */
      maxDiffBytesPerFile: 16 * KiB,
      maxDiffBytesTotal: 40 * KiB,
    },

    squeeze: {
      /** Longest block of lines detected as repeating as a whole. */
      maxBlockLines: 16,
      /** Lines shorter than this are never turned into template rows (a row would not be shorter). */
      minTemplateChars: 8,
      /** Largest file squeeze reads. */
      maxInputBytes: 16 * MiB,
      /** Characters of squeezed text one call returns; a longer result stops at a line and says where to go on. */
      maxOutputChars: 40 * KiB,
    },
  },

  locks: {
    /** How long a writer waits for another writer's lock before lock_timeout. */
    acquireTimeoutMs: 10_000,
  },

  format: {
    /** Bytes an external formatter may print before it is stopped. */
    externalMaxOutputBytes: 32 * MiB,
    /** Characters of an external formatter's stderr (or a plugin's error) quoted in format_failed. */
    maxErrorChars: 2000,
  },

  config: {
    /** The configuration files are re-checked for changes at most this often. */
    refreshIntervalMs: 1_000,
    /** Largest configuration file read. */
    maxFileBytes: 1 * MiB,
  },

  hosts: {
    /** Seconds a host waits for `ast-mcp hook` (written into each host's hook entry). */
    hookTimeoutSeconds: 10,
    /** Bytes of hook payload read from stdin; a larger payload is allowed with a warning. */
    hookMaxPayloadBytes: 4 * MiB,
    /** Characters of one shell command the hook parses; a longer one counts as a possible write. */
    hookMaxCommandChars: 64 * KiB,
    /** Levels of `bash -c '…'` and `eval` the hook follows before treating the rest as unknown. */
    hookMaxShellDepth: 4,
    /** Host configuration files larger than this are reported and left untouched. */
    maxConfigFileBytes: 16 * MiB,
    /** How long `install --service` waits for GET /healthz to answer. */
    serviceHealthTimeoutMs: 15_000,
    /** How long `doctor` waits for an entry's server to start and list its tools. */
    doctorProbeTimeoutMs: 20_000,
  },
} as const;
