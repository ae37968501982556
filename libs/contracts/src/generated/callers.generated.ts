/* eslint-disable */
// Generated from proto-contracts/schemas/callers/ by scripts/generate-contracts.js. Do not edit by hand.

/**
 * The one form of a case id a request may name for a new artifact, run or session (libs/contracts CASE_ID): a letter or digit, then letters, digits, . _ : or - (at most 128). Filters and recorded events keep a plain string: runs of an earlier release with other case ids stay readable.
 */
export type CaseId = string;

/**
 * Sent by a caller on rl.caller.<identity>.artifacts.ingest (served by db-write): stores an input artifact for an agent run of one case, as the caller's role allows (policy/callers.yaml: the case, the agent and the input kind; the kind's media types and size; a JSON kind is an object nested at most 32 levels, the request bound, and of well-formed text: no lone UTF-16 surrogate in a string or key). Answers with the ArtifactRef to pass in rl.caller.<identity>.runs.start input_artifacts. artifact_id derives from the content sha256, the case, the kind and the media type, so a retried ingest returns the same reference. Refusals: CASE.NOT_GRANTED, ARTIFACT.KIND_DENIED, ARTIFACT.TYPE_DENIED (media type, not a JSON object, nested deeper than 32 levels, a lone surrogate), ARTIFACT.TOO_LARGE, ARTIFACT.HASH_MISMATCH, REQUEST.INVALID.
 */
export interface ArtifactIngestRequest {
  case_id: CaseId;
  /**
   * The agent (roles.yaml) the artifact is an input of.
   */
  agent_name: string;
  kind: string;
  media_type: string;
  name?: string;
  /**
   * The bytes, standard base64 (at most the kind's max_bytes, and 8 MiB).
   */
  content_base64: string;
  /**
   * Optional: the sha256 the caller expects; a mismatch is refused with ARTIFACT.HASH_MISMATCH.
   */
  sha256?: string;
}

/**
 * Sent by a caller on rl.caller.<identity>.artifacts.get (served by db-write): the bytes of an input or output artifact of a run the caller started (its RunCreated records requested_by = the identity). Answers with an ArtifactGetResult, verified against its reference before any of it is sent; with offset/length only that range of the bytes (a large artifact read in chunks under a small max_payload). Refusals: RUN.NOT_FOUND (no run of this caller), ARTIFACT.NOT_FOUND (not an input or output of that run, or not stored), CASE.CROSS_CASE_DENIED (the run names another case's artifact), ARTIFACT.HASH_MISMATCH.
 */
export interface CallerArtifactGetRequest {
  run_id: string;
  artifact_id: string;
  /**
   * Chunked reads: the first byte to answer (default 0; a safe integer, at most 2^53 - 1). The artifact_ref always describes the whole artifact; the reader checks the assembled bytes against it.
   */
  offset?: number;
  /**
   * Chunked reads: at most this many bytes from offset (default: to the end).
   */
  length?: number;
}

/**
 * Sent by a caller on rl.caller.<identity>.runs.cancel (served by decision): asks to cancel a run the caller started (recorded as RunCancelRequested with requested_by caller:<identity>). Answers with a RunCancelResult; another caller's run is RUN.NOT_FOUND.
 */
export interface CallerRunCancelRequest {
  run_id: string;
  reason?: string;
}

/**
 * Sent by a caller on rl.caller.<identity>.runs.events (served by decision): the events of a run the caller started that the log recorded after position `after` (a log sequence; 0 or absent: from the start). With `wait_ms`, an answer that would be empty waits up to that long for the run's next event (long poll), so following a run live is this request in a loop, each with the previous answer's `next`, until `terminal`.
 */
export interface CallerRunEventsRequest {
  run_id: string;
  /**
   * A log sequence: a safe integer (at most 2^53 - 1, Number.MAX_SAFE_INTEGER), else REQUEST.INVALID.
   */
  after?: number;
  wait_ms?: number;
  /**
   * At most this many events (default 200), in whole commits: a commit is never split, one with more events than `limit` comes alone.
   */
  limit?: number;
}

/**
 * The answer to rl.caller.<identity>.runs.events: the run's events after the asked position in log order, the position to ask from next, and whether the run has ended (its terminal event is in the log and among the events up to `next`).
 */
export interface CallerRunEvents {
  run_id: string;
  events: {
    /**
     * Log sequence of the commit holding the event.
     */
    seq: number;
    /**
     * The event's place in its commit.
     */
    index: number;
    type: string;
    data: unknown;
    recorded_at: string;
  }[];
  next: number;
  terminal: boolean;
  status: string;
}

/**
 * Sent by a caller on rl.caller.<identity>.runs.get (served by decision): the run's summary as folded from its events, only for a run the caller started (its RunCreated records requested_by = the identity) or a sub-agent session decision started under one (its root is the caller's); any other run is RUN.NOT_FOUND.
 */
export interface CallerRunQuery {
  run_id: string;
}

/**
 * A run as its caller sees it (rl.caller.<identity>.runs.get): status, the §2.2 fields and the log version it was folded at.
 */
export interface CallerRun {
  run_id: string;
  /**
   * The log sequence of the run's last event.
   */
  version: number;
  status: 'created' | 'authorized' | 'denied' | 'running' | 'completed' | 'failed' | 'cancelled';
  agent_name: string;
  case_id?: string;
  root_run_id?: string;
  input_artifacts: ArtifactRef[];
  output_artifacts: ArtifactRef[];
  child_run_ids: string[];
  /**
   * The run's recorded result, when it has one.
   */
  result?: {
    [k: string]: unknown;
  };
  error?: RunError;
  created_at?: string;
  updated_at?: string;
}
/**
 * Contract v1 SSOT binding of one immutable artifact: every run input and output is referenced by one. The bytes live in object storage; sha256 and size_bytes bind the reference to exactly those bytes.
 */
export interface ArtifactRef {
  artifact_id: string;
  /**
   * Lowercase hex sha256 of the artifact bytes.
   */
  sha256: string;
  size_bytes: number;
  media_type: string;
  kind: string;
  /**
   * The case the artifact belongs to; absent for shared-plane artifacts.
   */
  case_id?: string;
  /**
   * Human-facing file name; never used for identity.
   */
  name?: string;
}
/**
 * Contract 001 §2.2 error: a stable code, a bounded message, and whether retrying can help.
 */
export interface RunError {
  error_code: string;
  message: string;
  retryable: boolean;
}
