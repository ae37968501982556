import { Injectable } from '@nestjs/common';
import { ArtifactRef, DbResult, ExportAssembledData, ExportAuthorizedData, ExportFinalizedData, ExportRequestDto, ExportResult, GovernanceScope, SUBJECTS } from '@runledger/contracts';
import { authorize, AuthzRequest, authzInputsOf, type ChainCheckpoint } from '@runledger/governance';
import { AppError } from '@runledger/kernel';
import { Bus } from '@runledger/messaging';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { AuthzDecidedData, authzDecidedOf, CallerVerifier, childRequestHash, childRunCreatedOf, childRunId as childRunIdOf, childScopeOf, Decision, EffectOutcome, isTerminal, runChildOnce, RunEvent, RunRepository, RunState, unsuccessfulReply } from '@runledger/runs';
import { ArtifactClient, FetchedArtifact } from '@runledger/service-clients';
import { assembleExport, receiptBytes } from './export-bundle';

/** The export lane's phases, in order; each is authorised (lanes.yaml lists them as export actions). */
export const EXPORT_PHASES = ['authorize', 'assemble', 'finalize'] as const;
type Phase = (typeof EXPORT_PHASES)[number];
const PHASE_EVENT: Record<Phase, string> = { authorize: 'ExportAuthorized', assemble: 'ExportAssembled', finalize: 'ExportFinalized' };

interface Exported {
  bundle_ref: ArtifactRef;
  manifest_ref: ArtifactRef;
  receipt_ref: ArtifactRef;
  bundle_sha256: string;
  manifest_sha256: string;
}

/**
 * §4.6 export. Each export is an export child run of the caller's run (id from parent run and export_id):
 * authorised in lane EXPORT for every phase, its inputs read through rl.artifacts.get as the export run
 * (case isolation and hash checks apply; a refused input is a denial), then assembled into a manifest and
 * a reproducible ustar bundle, finalised as bundle/manifest/receipt artifacts plus an export_bundles record
 * written through db-write (a db_write child run of the export run). Audit (each with its bundle_id): ExportAuthorized,
 * ExportAssembled {manifest, manifest_sha256}, ExportFinalized {bundle, bundle_sha256, receipt_ref}.
 */
@Injectable()
export class ExportService {
  constructor(private readonly runs: RunRepository, private readonly callers: CallerVerifier, private readonly policies: PolicyCatalog, private readonly artifacts: ArtifactClient, private readonly bus: Bus) {}

  async bundle(req: ExportRequestDto): Promise<ExportResult> {
    const g = req.governance;
    const childRunId = childRunIdOf('export', g.parent_run_id, req.export_id);
    const recorded = await this.runs.load(childRunId);
    if (isTerminal(recorded.state)) return view(childRunId, recorded.state, true);

    const policy = await this.policies.resolve(g.policy_versions);
    const scope = { ...(g.scope ?? {}), case_id: req.case_id, run_id: g.parent_run_id };
    const request = (action: string): AuthzRequest => ({ agent_name: g.agent_name, lane: g.lane, kind: 'export', action, run_case_id: g.case_id, target_case_id: req.case_id, run_user_id: g.user_id, scope });
    // The inputs name every phase (comma separated), as the allow does: a what-if replay decides each.
    const at = (action: string) => ({ lane: g.lane, action, policy_versions: g.policy_versions, inputs: authzInputsOf(request(EXPORT_PHASES.join(','))) });
    // Claims first, against the calling run's record; then every phase must be allowed up front (a denial names the
    // first phase refused); then the inputs are read: another case's artifact, a missing one or tampered bytes make
    // the export a denial, recorded like any other. They are read as the (verified) calling run: the export run does
    // not exist yet. All of that is authorising, so it runs inside decideChild, which refuses a finished caller only
    // after it (the documented order: a case denial is named before RUN.PARENT_TERMINAL).
    let deniedAt: Phase = 'authorize';
    let inputs: FetchedArtifact[] = [];
    const decided = await this.callers.decideChild(g, async (): Promise<Decision> => {
      for (const phase of EXPORT_PHASES) {
        const d = authorize(policy, request(phase));
        if (d.decision === 'deny') {
          deniedAt = phase;
          return d;
        }
      }
      const fetched = await this.artifacts.fetchAll(req.artifact_ids, g);
      if (!fetched.ok) return { decision: 'deny', code: fetched.code, reason: fetched.reason };
      inputs = fetched.artifacts;
      return { decision: 'allow' };
    });
    if (decided.decision !== 'allow') inputs = [];
    const authz: AuthzDecidedData = authzDecidedOf(decided, at(decided.decision === 'allow' ? EXPORT_PHASES.join(',') : deniedAt));
    const asRun = childScopeOf(g, childRunId);
    // The chain head the export is made under, recorded with the run so a re-run builds the same bytes.
    const auditHead = authz.decision === 'allow' ? (await this.bus.request<{ checkpoint: ChainCheckpoint | null }>(SUBJECTS.auditHead, {}, { timeoutMs: 10_000 })).checkpoint : null;

    const outcome = await runChildOnce<Exported>(
      this.runs,
      {
        created: childRunCreatedOf('export', childRunId, g, {
          input_artifacts: inputs.map((a) => ({ ...a.ref })),
          parameters: { export_id: req.export_id, case_id: req.case_id, artifact_ids: req.artifact_ids, ...(auditHead ? { audit_head: auditHead } : {}) },
          request_hash_sha256: childRequestHash({ export_id: req.export_id, case_id: req.case_id, artifact_ids: req.artifact_ids, governance: { ...g, parent_run_id: undefined } }),
        }),
        authz,
      },
      () => this.assembleAndFinalize(req, childRunId, asRun, inputs),
    );
    return view(childRunId, outcome.state, outcome.replayed);
  }

  private async assembleAndFinalize(req: ExportRequestDto, childRunId: string, g: GovernanceScope, inputs: FetchedArtifact[]): Promise<EffectOutcome<Exported>> {
    // Every export event names its bundle (the export run's id, as the export_bundles record does).
    const bundle_id = childRunId;
    const audit: RunEvent[] = [{ type: 'ExportAuthorized', data: { bundle_id, export_id: req.export_id, case_id: req.case_id, phases: [...EXPORT_PHASES], artifact_count: inputs.length, policy_versions: g.policy_versions } satisfies ExportAuthorizedData }];
    let phase: Phase = 'assemble';
    try {
      // The run's own creation time and recorded audit head: stable across a re-run, so the bytes (and their ids) are too.
      const recorded = (await this.runs.load(childRunId)).state;
      const created_at = recorded.created_at!;
      const audit_head = recorded.run?.parameters.audit_head as ChainCheckpoint | undefined;
      const assembled = assembleExport({ bundle_id: childRunId, case_id: req.case_id, created_at, artifacts: inputs, audit_head });
      const put = (bytes: Uint8Array, kind: string, media_type: string, name: string) => this.artifacts.put(bytes, { kind, media_type, name }, g);
      const manifest_ref = await put(assembled.manifest_bytes, 'export_manifest', 'application/json', `${req.export_id}.manifest.json`);
      audit.push({ type: 'ExportAssembled', data: { bundle_id, export_id: req.export_id, manifest: { ...assembled.manifest }, manifest_sha256: assembled.manifest_sha256, manifest_ref } satisfies ExportAssembledData });

      phase = 'finalize';
      const bundle_ref = await put(assembled.archive, 'export_bundle', 'application/x-tar', `${req.export_id}.tar`);
      const receipt = receiptBytes({ export_id: req.export_id, case_id: req.case_id, bundle_sha256: assembled.bundle_sha256, manifest_sha256: assembled.manifest_sha256, artifact_count: inputs.length, created_at });
      const receipt_ref = await put(receipt, 'export_receipt', 'application/json', `${req.export_id}.receipt.json`);
      const record = await this.recordBundle(req, childRunId, g, created_at, assembled.manifest_sha256, { manifest_ref, bundle_ref, receipt_ref });
      audit.push({
        type: 'ExportFinalized',
        data: { bundle_id, export_id: req.export_id, bundle: bundle_ref, bundle_sha256: assembled.bundle_sha256, receipt_ref, manifest_ref, export_bundles_document_id: record.document_id, db_write_run_id: record.child_run_id } satisfies ExportFinalizedData,
      });
      const result: Exported = { bundle_ref, manifest_ref, receipt_ref, bundle_sha256: assembled.bundle_sha256, manifest_sha256: assembled.manifest_sha256 };
      return { status: 'completed', result, output_artifacts: [bundle_ref, manifest_ref, receipt_ref].map((r) => ({ ...r })), response_hash_sha256: childRequestHash(result), audit };
    } catch (err) {
      // Transient failures propagate: the run stays open and a retry of the same export resumes it.
      if (!(err instanceof AppError) || err.retryable) throw err;
      // A permanent failure still closes every phase in the audit trail: where it failed, and what was not reached.
      const failed = { bundle_id, status: 'failed', error_code: err.code, export_id: req.export_id } satisfies ExportAssembledData & ExportFinalizedData;
      if (phase === 'assemble') audit.push({ type: PHASE_EVENT.assemble, data: failed });
      audit.push({ type: PHASE_EVENT.finalize, data: phase === 'finalize' ? failed : { bundle_id, status: 'not_reached', export_id: req.export_id } });
      return { status: 'failed', error: { error_code: err.code, message: err.message, retryable: false }, audit };
    }
  }

  /** contract §4.6 "export_bundles table (append)": a db_write child run of this export run, lane EXPORT. */
  private async recordBundle(req: ExportRequestDto, childRunId: string, g: GovernanceScope, created_at: string, manifest_sha256: string, refs: { manifest_ref: ArtifactRef; bundle_ref: ArtifactRef; receipt_ref: ArtifactRef }) {
    const result = await this.bus.request<DbResult>(SUBJECTS.dbWrite, {
      write_id: 'export-bundle-record',
      collection: 'export_bundles',
      operation: 'append',
      document: {
        bundle_id: childRunId, case_id: req.case_id, export_run_id: childRunId, contract_version: 'v1', policy_versions: g.policy_versions, created_at, manifest_sha256,
        manifest: refs.manifest_ref, bundle: refs.bundle_ref, receipt: refs.receipt_ref,
      },
      governance: g,
    });
    if (result.status !== 'ok') {
      throw new AppError(result.status === 'denied' ? 'LANE.DENIED' : 'INTERNAL', `The export_bundles record was not written (${result.error?.error_code ?? result.status}).`);
    }
    return { document_id: String((result.document as { document_id?: unknown } | undefined)?.document_id ?? ''), child_run_id: result.child_run_id };
  }
}

/** The reply, from the recorded run only, so a replay answers exactly what the first call answered. */
function view(childRunId: string, state: RunState, replayed: boolean): ExportResult {
  if (state.status === 'completed') return { child_run_id: childRunId, status: 'exported', ...(state.result as Exported), replayed };
  return { child_run_id: childRunId, ...unsuccessfulReply(state, 'export'), replayed };
}

