/* eslint-disable */
// Generated from proto-contracts/schemas/governed-runs/ by scripts/generate-contracts.js. Do not edit by hand.

/**
 * The one form of a case id a request may name for a new artifact, run or session (libs/contracts CASE_ID): a letter or digit, then letters, digits, . _ : or - (at most 128). Filters and recorded events keep a plain string: runs of an earlier release with other case ids stay readable.
 */
export type CaseId = string;

/**
 * Contract 001 §2.1 agent request, sent by a caller on rl.caller.<identity>.runs.start (request/reply, served by decision). The run pins contract v1 and the lanes/roles versions at start. Without run_id the run id derives from the request hash, the case and the parent, so a retried request lands on the same run.
 */
export interface AgentRunRequest {
  agent_name: string;
  case_id: CaseId;
  /**
   * Optional; derived from request_hash_sha256, case_id and parent_run_id when absent. Read in lower case, as every run id (a UUID in upper case names the same run).
   */
  run_id?: string;
  parent_run_id?: string;
  /**
   * Defaults to the parent's root (or the parent), else to the run itself.
   */
  root_run_id?: string;
  correlation_id?: string;
  policy_versions?: PolicyVersions;
  taxonomy_versions?: TaxonomyVersions;
  /**
   * Each the reference the artifact store returned (its ArtifactStored): sha256, size_bytes, media_type, kind and case_id as stored, else refused before any run (ARTIFACT.NOT_FOUND, ARTIFACT.HASH_MISMATCH, INVALID_INPUT).
   *
   * @maxItems 64
   */
  input_artifacts: ArtifactRef[];
  /**
   * Agent-specific, JSON only (hashable), at most 65536 bytes as JSON (REQUEST.INVALID beyond). A semantic time must not be named *_at: volatile keys are left out of the hash. failure_strategy (contract 004 INV-PE-003), when given, is failFast (the default), continueOnError or rollback; any other value is the §2.2 failure INVALID_INPUT naming them, and no run is recorded.
   */
  parameters: {};
  /**
   * Optional; when given it must equal the service's own §2.1 normalised hash (requestHashSha256 of @runledger/governance, with the pinned versions), else the request fails with INVALID_INPUT.
   */
  request_hash_sha256?: string;
}
/**
 * Lanes and roles versions to pin; defaults to the current versions. An unknown version is INVALID_INPUT.
 */
export interface PolicyVersions {
  lanes: string;
  roles: string;
}
export interface TaxonomyVersions {
  coa?: string;
  tags?: string;
  entities?: string;
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
 * Contract 001 §2.2 agent response: the reply on rl.caller.<identity>.runs.start, sent once the run's terminal event is in the log. outcome is deny when the run was denied at start or a privileged action was denied by policy (error_code POLICY_DENIED). A request refused before it became a run (INVALID_INPUT) records no run. A run still going when the wait ends (AGENT_RUN_REPLY_TIMEOUT_MS) is answered outcome failure with RUN.IN_PROGRESS, retryable: the run goes on; the same request asked again gives its outcome.
 */
export interface AgentRunResponse {
  outcome: 'success' | 'deny' | 'failure';
  /**
   * The request's agent_name. A request refused before it became a run echoes the one it sent when that is a string (its first 64 characters, as sent), else the empty string.
   */
  agent_name: string;
  run_id: string;
  output_artifacts: ArtifactRef[];
  /**
   * responseHashSha256 of the run's payload {agent_name, output_artifacts, result}; present when the run completed.
   */
  response_hash_sha256?: string;
  error: null | RunError;
  /**
   * Child agent runs started by this run (ORCHESTRATOR).
   */
  child_run_ids?: string[];
}
/**
 * Contract v1 SSOT binding of one immutable artifact: every run input and output is referenced by one. The bytes live in object storage; sha256 and size_bytes bind the reference to exactly those bytes.
 */
export interface RunError {
  error_code: string;
  message: string;
  retryable: boolean;
}

/**
 * Sent to db-write on rl.artifacts.get. Another case's artifact is refused (CASE.CROSS_CASE_DENIED); shared-plane artifacts (no case_id) are readable from any lane. Content that no longer matches its reference is refused (ARTIFACT.HASH_MISMATCH).
 */
export interface ArtifactGetRequest {
  artifact_id: string;
  governance: GovernanceScope;
}
/**
 * Who asks, under which lane, pinned to which policy versions, for which parent run. Carried by every call into a governed choke point.
 */
export interface GovernanceScope {
  parent_run_id: string;
  root_run_id: string;
  correlation_id?: string;
  agent_name: string;
  lane: string;
  case_id?: string;
  /**
   * The run's user; a caller door's user is rl.caller.<identity>.<user_id> (README "A caller's own door").
   */
  user_id?: string;
  /**
   * At most 4096 bytes as JSON (REQUEST.INVALID beyond).
   */
  scope?: {
    [k: string]: string;
  };
  policy_versions: PolicyVersions;
}

/**
 * Reply of rl.artifacts.get: the reference and its verified content.
 */
export interface ArtifactGetResult {
  artifact_ref: ArtifactRef;
  content_base64: string;
}
/**
 * Contract v1 SSOT binding of one immutable artifact: every run input and output is referenced by one. The bytes live in object storage; sha256 and size_bytes bind the reference to exactly those bytes.
 */

/**
 * Sent to db-write on rl.artifacts.put: stores immutable bytes in the artifact store (JetStream Object Store, or GridFS with MONGO_URL) and answers with their ArtifactRef. The artifact belongs to governance.case_id (none: the shared plane). artifact_id derives from the content sha256, the case, the kind and the media type, so a retried put returns the same reference. At most 8 MiB of content.
 */
export interface ArtifactPutRequest {
  /**
   * The bytes, standard base64.
   */
  content_base64: string;
  media_type: string;
  kind: string;
  name?: string;
  /**
   * Optional: the sha256 the caller expects the content to have; a mismatch is refused with ARTIFACT.HASH_MISMATCH.
   */
  sha256?: string;
  governance: GovernanceScope;
}
/**
 * Who asks, under which lane, pinned to which policy versions, for which parent run. Carried by every call into a governed choke point.
 */

/**
 * Sent to export on rl.export.bundle (contract 001 §4.6). Runs as an export child run (id from governance.parent_run_id and export_id) in lane EXPORT: authorize, assemble (manifest + ustar archive), finalize (bundle, manifest and receipt artifacts, export_bundles record through db-write).
 */
export interface ExportRequest {
  export_id: string;
  case_id: string;
  /**
   * @minItems 1
   * @maxItems 500
   */
  artifact_ids: [string, ...string[]];
  governance: GovernanceScope;
}
/**
 * Who asks, under which lane, pinned to which policy versions, for which parent run. Carried by every call into a governed choke point.
 */

/**
 * Reply of rl.export.bundle. The references are present when status is exported; bundle_sha256 is the sha256 of the archive bytes.
 */
export interface ExportResult {
  child_run_id: string;
  status: 'exported' | 'denied' | 'failed';
  bundle_ref?: ArtifactRef;
  manifest_ref?: ArtifactRef;
  receipt_ref?: ArtifactRef;
  bundle_sha256?: string;
  manifest_sha256?: string;
  error?: RunError;
  replayed?: boolean;
}
/**
 * Contract v1 SSOT binding of one immutable artifact: every run input and output is referenced by one. The bytes live in object storage; sha256 and size_bytes bind the reference to exactly those bytes.
 */

/**
 * Sent to promotion on rl.promotion.promote (contract 001 §4.5). Runs as a promotion child run (id from governance.parent_run_id and promotion_id) in lane PROMOTE_SHARED_KNOWLEDGE: the candidate is screened against the source case's artifacts and client identifiers and, if clean, appended to the shared plane.
 */
export interface PromotionRequest {
  promotion_id: string;
  promotion_ticket_id: string;
  target: 'shared_playbooks' | 'shared_heuristics';
  candidate: PromotionCandidate;
  /**
   * The case the insight was derived from; recorded as bounded metadata, never its text.
   */
  source_case_id?: string;
  /**
   * The source case's artifacts whose text the candidate must not copy.
   *
   * @maxItems 100
   */
  source_artifact_ids?: string[];
  /**
   * Identifiers of the client besides those in the case's entities (names, emails, phones, case numbers).
   *
   * @maxItems 100
   */
  client_identifiers?: string[];
  governance: GovernanceScope;
}
export interface PromotionCandidate {
  title: string;
  text: string;
}
/**
 * Who asks, under which lane, pinned to which policy versions, for which parent run. Carried by every call into a governed choke point.
 */

/**
 * Reply of rl.promotion.promote. promoted: output_artifacts holds the promoted artifact and the promotion receipt. refused: findings say which rule matched where (never the matched text). denied: the lane or the case isolation refused the caller.
 */
export interface PromotionResult {
  child_run_id: string;
  status: 'promoted' | 'refused' | 'denied' | 'failed';
  shared_document_id?: string;
  output_artifacts?: ArtifactRef[];
  findings?: PromotionFindingView[];
  error?: RunError;
  replayed?: boolean;
}
/**
 * Contract v1 SSOT binding of one immutable artifact: every run input and output is referenced by one. The bytes live in object storage; sha256 and size_bytes bind the reference to exactly those bytes.
 */
export interface PromotionFindingView {
  rule: 'raw_case_text' | 'client_identity' | 'privileged_notes';
  evidence: string;
}
/**
 * Contract 001 §2.2 error: a stable code, a bounded message, and whether retrying can help.
 */
