import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ArtifactGetResult, ArtifactIngestRequestDto, CallerArtifactGetRequestDto } from '@runledger/contracts';
import { ConcurrencyError } from '@runledger/event-log';
import { ArtifactRef, authorizeIngest, CallerGrants, canonicalJson, contentProblem } from '@runledger/governance';
import { AppError, deterministicUuid, sha256Hex } from '@runledger/kernel';
import { dataKeyName, ownerErased, type DataKeyStore } from '@runledger/messaging';
import { CALLER_GRANTS, PolicyCatalog } from '@runledger/policy-catalog';
import { loadCallersRun, RunCreatedData, RunEvent, RunRepository } from '@runledger/runs';
import { ArtifactsService, checkArtifactBytes } from '../artifacts/artifacts.service';

/** The action an ingest run's AuthzDecided names. */
const INGEST_ACTION = 'artifact.ingest';

/**
 * The data-key store read as stored (KvDataKeyStore), not the process's cache: an erasure is seen by the next ingest,
 * not half a second later when the cache follower drops the key, so no byte of an erased case reaches the store.
 */
export const STORED_DATA_KEYS = Symbol('STORED_DATA_KEYS');

/**
 * A caller's door to the artifact store (issue 26): rl.caller.<identity>.artifacts.ingest and .artifacts.get.
 *
 * Ingest is a governed choke point: the caller's role (policy/callers.yaml) must cover the case and let it supply the
 * kind to the agent, then the content must be what the kind allows (media type, size, JSON object). Every ingest the
 * grants decide on is an `artifact_ingest` run, written in one commit (RunCreated with `requested_by`, AuthzDecided,
 * then RunStarted, ArtifactIngestAudited and RunCompleted, or RunDenied), chained by the audit ledger like every run.
 * The run id derives from the caller and the content, so a retried ingest is the same run and the same reference.
 * Refusals of the content's shape (type, size, hash) record nothing: junk does not grow the permanent log; nor does
 * an ingest into an erased case (DATA.ERASED), whose bytes would otherwise land in the store unsealed.
 */
@Injectable()
export class IngestService {
  private readonly logger = new Logger('CallerIngest');

  constructor(
    @Inject(CALLER_GRANTS) private readonly grants: CallerGrants,
    private readonly artifacts: ArtifactsService,
    private readonly runs: RunRepository,
    private readonly policies: PolicyCatalog,
    @Inject(STORED_DATA_KEYS) private readonly keys: DataKeyStore,
  ) {}

  async ingest(caller: string, req: ArtifactIngestRequestDto): Promise<ArtifactRef> {
    const ask = { caller, case_id: req.case_id, agent_name: req.agent_name, kind: req.kind, media_type: req.media_type };
    // The grants first: a content failure must not tell a caller anything about a case it may not use. The transport
    // has bounded the message, so the bytes are decoded (and hashed, for the run's id) before their checks.
    const decision = authorizeIngest(this.grants, ask);
    const bytes = new Uint8Array(Buffer.from(req.content_base64, 'base64'));
    const request = { ...ask, grants_version: this.grants.version, sha256: sha256Hex(bytes), size_bytes: bytes.length };
    const created = this.runCreated(caller, request);
    if ('code' in decision) {
      this.logger.warn({ msg: 'caller ingest refused', caller, case_id: req.case_id, agent_name: req.agent_name, kind: req.kind, code: decision.code });
      const error = { error_code: decision.code, message: decision.reason, retryable: false };
      await this.record(created, [
        { type: 'AuthzDecided', data: { decision: 'deny', action: INGEST_ACTION, code: decision.code, reason: decision.reason, policy_versions: created.policy_versions } },
        { type: 'RunDenied', data: { error } },
      ]);
      throw new AppError(decision.code, decision.reason);
    }
    // README "Erasure": nothing new is stored for an erased owner (the sealing codec's refusal at every append,
    // ownerErased), decided before the bytes reach the store: one read of the case's key state.
    const owner = { kind: 'case', id: req.case_id } as const;
    if ((await this.keys.stateOf(dataKeyName(owner))) === 'erased') throw ownerErased(owner);
    checkArtifactBytes(bytes, req.sha256, 'ARTIFACT.TOO_LARGE');
    const problem = contentProblem(this.grants.kinds[req.kind], req.kind, req.media_type, bytes);
    if (problem) throw new AppError(problem.code, problem.reason);

    const ref = await this.artifacts.storeBytes(
      { bytes, kind: req.kind, media_type: req.media_type, case_id: req.case_id, ...(req.name ? { name: req.name } : {}) },
      { data: { requested_by: caller, ingest_run_id: created.run_id }, metadata: { run_id: created.run_id, root_run_id: created.run_id, case_id: req.case_id } },
    );
    await this.record(created, [
      { type: 'AuthzDecided', data: { decision: 'allow', action: INGEST_ACTION, policy_versions: created.policy_versions } },
      { type: 'RunStarted', data: {} },
      { type: 'ArtifactIngestAudited', data: { action: INGEST_ACTION, outcome: 'stored', requested_by: caller, caller_role: decision.role, grants_version: this.grants.version, agent_name: req.agent_name, artifact_ref: ref } },
      { type: 'RunCompleted', data: { output_artifacts: [ref] } },
    ]);
    return ref;
  }

  /** An input or output artifact of a run this caller started, of the run's case, verified against its reference. */
  async get(caller: string, req: CallerArtifactGetRequestDto): Promise<ArtifactGetResult> {
    const { state } = await loadCallersRun(this.runs, req.run_id, caller);
    const named = [...(state.run?.input_artifacts ?? []), ...state.output_artifacts].some((a) => a.artifact_id === req.artifact_id);
    if (!named) throw new AppError('ARTIFACT.NOT_FOUND', 'The run names no artifact with that id among its inputs and outputs.');
    const whole = await this.artifacts.readVerified(req.artifact_id);
    // A run may name another case's artifact (a request can put any reference in input_artifacts; the run's own reads
    // are refused then): its caller reads only what belongs to the run's case, or to the shared plane.
    const artifactCase = whole.artifact_ref.case_id;
    if (artifactCase !== undefined && artifactCase !== state.run?.case_id) throw new AppError('CASE.CROSS_CASE_DENIED', 'The artifact belongs to another case than the run.');
    if (req.offset === undefined && req.length === undefined) return whole;
    // A chunk: the whole was verified above; the reference describes the whole, which the reader checks once assembled.
    const start = req.offset ?? 0;
    const bytes = Buffer.from(whole.content_base64, 'base64');
    return { artifact_ref: whole.artifact_ref, content_base64: bytes.subarray(start, req.length === undefined ? undefined : start + req.length).toString('base64') };
  }

  private runCreated(caller: string, request: Record<string, unknown> & { case_id: string; agent_name: string }): RunCreatedData {
    const hash = sha256Hex(canonicalJson(request));
    const run_id = deterministicUuid('artifact-ingest', caller, hash);
    return {
      run_id, run_kind: 'artifact_ingest', agent_name: request.agent_name, root_run_id: run_id, case_id: request.case_id, contract_version: 'v1',
      policy_versions: this.policies.currentVersions(), input_artifacts: [], parameters: request, request_hash_sha256: hash, requested_by: caller,
    };
  }

  /** The whole run in one commit; a retry finds it recorded (same id, same content) and adds nothing. */
  private async record(created: RunCreatedData, rest: RunEvent[]): Promise<void> {
    try {
      await this.runs.append(created, [{ type: 'RunCreated', data: created }, ...rest], { expectedVersion: 0, commandId: `artifact-ingest:${created.run_id}` });
    } catch (err) {
      if (!(err instanceof ConcurrencyError)) throw err;
    }
  }
}
