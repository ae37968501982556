/* eslint-disable */
// Generated from proto-contracts/schemas/governance/ by scripts/generate-contracts.js. Do not edit by hand.

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
 * Contract v1 audit event: one governed-run fact in the log (decision, outcome, or privileged action). Which events each run needs: policy/contract-v1/run_lifecycle.md. `data` may carry more fields than listed; it must never carry raw case text beyond artifact references.
 */
export type AuditEvent = {
  [k: string]: unknown;
} & {
  event_id: Id;
  type:
    | 'RunCreated'
    | 'AuthzDecided'
    | 'RunStarted'
    | 'RunCompleted'
    | 'RunFailed'
    | 'RunDenied'
    | 'RunCancelled'
    | 'ToolCallAudited'
    | 'DbWriteAudited'
    | 'PromotionAudited'
    | 'ExportAuthorized'
    | 'ExportAssembled'
    | 'ExportFinalized'
    | 'ArtifactIngestAudited';
  run_id: Id;
  parent_run_id?: Id;
  root_run_id?: Id;
  case_id?: Id;
  correlation_id?: Id;
  contract_version: 'v1';
  recorded_at: string;
  data: {};
};
export type Id = string;

/**
 * The one form of a case id a request may name for a new artifact, run or session (libs/contracts CASE_ID): a letter or digit, then letters, digits, . _ : or - (at most 128). Filters and recorded events keep a plain string: runs of an earlier release with other case ids stay readable.
 */
export type CaseId = string;

export type Sha256 = string;

/**
 * Contract v1 export bundle record (the `export_bundles` collection, append only). The bundle is a POSIX ustar archive holding manifest.json first, then every artifact at its manifest path. `definitions.manifest` is the manifest.json document; its canonical JSON bytes hash to manifest_sha256.
 */
export interface ExportBundle {
  bundle_id: Id;
  case_id: Id;
  export_run_id: Id;
  contract_version: 'v1';
  policy_versions: {
    lanes: string;
    roles: string;
  };
  created_at: string;
  manifest_sha256: Sha256;
  manifest: ArtifactRef;
  bundle: ArtifactRef1;
  receipt?: ArtifactRef2;
}
/**
 * The manifest.json artifact (kind export_manifest).
 */
export interface ArtifactRef1 {
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
 * The export receipt artifact (kind export_receipt).
 */
export interface ArtifactRef2 {
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

export type Name = string;
export type ToolName = string;
export type CollectionOp = string;
export type ScopeField = string;
export type Prohibition =
  | 'cross_case_lookup'
  | 'external_export'
  | 'shared_knowledge_write'
  | 'raw_case_text'
  | 'client_identity'
  | 'privileged_notes';

/**
 * Contract v1 lanes policy (policy/contract-v1/lanes.yaml). Cross-file rules (callers exist as roles, no duplicate lane names) are checked by loadPolicy in @runledger/governance.
 */
export interface LanesPolicy {
  version: string;
  contract_version: 'v1';
  /**
   * @minItems 1
   */
  lanes: [Lane, ...Lane[]];
}
export interface Lane {
  name: Name;
  description?: string;
  allowed_callers: Name[];
  actions: {
    /**
     * @minItems 1
     */
    tool?: [ToolName, ...ToolName[]];
    /**
     * @minItems 1
     */
    db_write?: [CollectionOp, ...CollectionOp[]];
    /**
     * @minItems 1
     */
    promotion?: [CollectionOp, ...CollectionOp[]];
    /**
     * @minItems 1
     */
    export?: ['authorize' | 'assemble' | 'finalize', ...('authorize' | 'assemble' | 'finalize')[]];
  };
  required_scope: ScopeField[];
  isolation: 'case' | 'user' | 'shared';
  allows_cross_case?: boolean;
  prohibitions?: Prohibition[];
}

export interface RolesPolicy {
  version: string;
  contract_version: 'v1';
  /**
   * @minItems 1
   */
  roles: [Role, ...Role[]];
}
export interface Role {
  name: Name;
  principal: 'agent' | 'human' | 'system';
  description?: string;
  lanes: Name[];
  prohibitions?: ('cross_case_lookup' | 'external_export' | 'shared_knowledge_write')[];
}

/**
 * Contract v1 run record (the `runs` read model): one per governed run, folded from the run's events. States and transitions: policy/contract-v1/run_lifecycle.md.
 */
export type RunRecord = {
  [k: string]: unknown;
} & {
  run_id: Id;
  run_kind: 'agent' | 'tool_gateway' | 'db_write' | 'promotion' | 'export';
  parent_run_id?: Id;
  root_run_id: Id;
  correlation_id?: Id;
  agent_name?: string;
  /**
   * The lane a child run acts under.
   */
  lane?: string;
  /**
   * Tool name or `<op>:<collection>` of a child run.
   */
  action?: string;
  contract_version: 'v1';
  policy_versions: PolicyVersions;
  taxonomy_versions?: {
    coa?: string;
    tags?: string;
    entities?: string;
  };
  case_id?: Id;
  user_id?: Id;
  state: 'created' | 'authorized' | 'denied' | 'running' | 'completed' | 'failed' | 'cancelled';
  authz?: {
    decision: 'allow' | 'deny';
    code?: string;
    reason?: string;
  };
  inputs_artifacts_json: ArtifactRef[];
  outputs_artifacts_json: ArtifactRef[];
  request_hash_sha256: Sha256;
  response_hash_sha256?: Sha256;
  error?: null | {
    error_code: string;
    message: string;
    retryable: boolean;
  };
  /**
   * Bounded metadata, e.g. child run ids of an orchestrator run or the source case_id of a promotion. Never raw case text.
   */
  metadata_json?: {};
  created_at: string;
  updated_at?: string;
};
export interface PolicyVersions {
  lanes: string;
  roles: string;
}
/**
 * Contract v1 SSOT binding of one immutable artifact: every run input and output is referenced by one. The bytes live in object storage; sha256 and size_bytes bind the reference to exactly those bytes.
 */
