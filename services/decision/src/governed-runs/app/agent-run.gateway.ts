import { Inject, Injectable, Logger } from '@nestjs/common';
import { AgentRunRequestDto, AgentRunResponse, ArtifactRef, ArtifactStoredData } from '@runledger/contracts';
import { aggregateRef, EventLog } from '@runledger/event-log';
import { AppError, canonicalUuid, deterministicUuid, isUuid, sha256Hex } from '@runledger/kernel';
import { MalformedPayload, validateMessage } from '@runledger/messaging';
import { CALLER_GRANTS, PolicyCatalog } from '@runledger/policy-catalog';
import type { CallerGrants } from '@runledger/governance';
import { artifactStored, DATA_ERASED_ERROR, isCallersRun, isDataErased, loadUnlessForged, isTerminal, RunRepository, RunState } from '@runledger/runs';
import { RunWaiter } from '../../runs/run-waiter';
import { callerStartRefusal, startCaseRefusal } from '../../shared/caller-starts';
import { DECISION_INBOX } from '../../task-assistant/task-run.types';
import { inputRefProblem } from '../domain/input-refs';
import { rejectedResponse, responseOf } from '../domain/response';
import { parametersProblem, resolvePins } from '../domain/request-pins';
import { AgentRunSpec, deriveRunId, HashableRequest, hashRequest } from '../domain/run-spec';
import { recordedAsSent, sentRunId } from './recorded-as-sent';
import { AGENT_RUN_REPLY_TIMEOUT_MS, AGENT_RUN_REQUESTED, AgentRunRequested } from '../governed-runs.types';

/**
 * rl.caller.<caller>.runs.start: validates a §2.1 request at the boundary, resolves its pins (policy versions, run id,
 * root, correlation), queues it in the durable decision inbox and replies with the §2.2 response once the
 * run's terminal event is in the log. A request refused here (REQUEST.UNATTRIBUTED, CASE.NOT_GRANTED, INVALID_INPUT,
 * an input that is not the stored artifact's reference (ARTIFACT.NOT_FOUND, ARTIFACT.HASH_MISMATCH, INVALID_INPUT),
 * CASE.CROSS_CASE_DENIED for a parent of another case, DATA.ERASED for an erased case …) never becomes a run.
 */
/** A run_id naming a run of another request (another caller's, or one no caller asked for): one answer for all. */
const FOREIGN_RUN_ID = 'run_id already names a run of a different request.';

@Injectable()
export class AgentRunGateway {
  private readonly logger = new Logger('AgentRuns');

  constructor(
    private readonly log: EventLog,
    private readonly runs: RunRepository,
    private readonly policies: PolicyCatalog,
    private readonly waiter: RunWaiter,
    @Inject(AGENT_RUN_REPLY_TIMEOUT_MS) private readonly replyTimeoutMs: number,
    @Inject(CALLER_GRANTS) private readonly grants: CallerGrants,
  ) {}

  /** `caller`: the identity of the door the request came on (callerOf); it is recorded in RunCreated. */
  async start(raw: unknown, caller: string): Promise<AgentRunResponse> {
    const prepared = await this.prepare(raw, caller);
    if ('rejected' in prepared) return prepared.rejected;
    const spec = prepared.spec;
    const state = prepared.existing ?? (await this.runs.load(spec.run_id)).state;
    // Another caller's run (or one no caller asked for) is not this caller's to retry or read the outcome of.
    if (state.run && (state.run.request_hash_sha256 !== spec.request_hash_sha256 || state.run.requested_by !== spec.requested_by)) {
      return rejectedResponse(spec.agent_name, spec.run_id, FOREIGN_RUN_ID);
    }
    if (isTerminal(state)) return responseOf(spec.agent_name, spec.run_id, state);
    try {
      return responseOf(spec.agent_name, spec.run_id, await this.enqueueAndWait(spec));
    } catch (err) {
      // An erased case (or user) takes no new run: its command is refused before it is stored, and answered as §2.2
      // like the other refusals. A failure, not a deny: no policy said no (DENY_CODES), and a run that meets the
      // erasure once open ends failed with the same code (DATA_ERASED_ERROR). Only the refused append says "nothing
      // recorded": an erasure met later (reading the run's outcome) is an error of that run, not a refusal.
      if (err instanceof ErasedBeforeQueued) return rejectedResponse(spec.agent_name, spec.run_id, DATA_ERASED_ERROR.message, DATA_ERASED_ERROR.error_code);
      throw err;
    }
  }

  /**
   * Queues a resolved spec in the durable decision inbox (a caller's runs.start, and rl.runs.fork's forks) and, with
   * `wait`, returns the run's state once its terminal event is in the log (or reports it running at the timeout).
   */
  async enqueueAndWait(spec: AgentRunSpec, wait = true): Promise<RunState | Pick<RunState, 'status' | 'output_artifacts' | 'child_run_ids'>> {
    const watch = wait ? await this.waiter.watch(spec.run_id, this.replyTimeoutMs) : undefined;
    try {
      const command: AgentRunRequested = { spec };
      await this.log.append(aggregateRef('inbox', DECISION_INBOX), [{
        type: AGENT_RUN_REQUESTED, data: command,
        metadata: { run_id: spec.run_id, root_run_id: spec.root_run_id, case_id: spec.case_id, correlation_id: spec.correlation_id, ...(spec.parent_run_id ? { parent_run_id: spec.parent_run_id } : {}) },
      }], { commandId: `agent-run:${spec.run_id}` });
    } catch (err) {
      watch?.cancel();
      throw isDataErased(err) ? new ErasedBeforeQueued() : err;
    }
    if (!watch || (await watch.outcome) !== 'timeout') return (await this.runs.load(spec.run_id)).state;
    this.logger.warn({ msg: 'agent run reply timeout; run continues', run_id: spec.run_id });
    return { status: 'running', output_artifacts: [], child_run_ids: [] };
  }

  /** The run's spec, or the §2.2 refusal of a request that cannot become a run. */
  private async prepare(raw: unknown, requestedBy: string): Promise<{ spec: AgentRunSpec; existing?: RunState } | { rejected: AgentRunResponse }> {
    const fallbackId = fallbackRunId(raw);
    // Only a caller of the grants starts runs: any other identity is refused before anything else.
    const unattributed = callerStartRefusal(this.grants, requestedBy);
    if (unattributed) {
      this.logger.warn({ msg: 'agent run refused', code: unattributed.code, requested_by: requestedBy });
      return { rejected: rejectedResponse(agentNameOf(raw), fallbackId, unattributed.reason, unattributed.code) };
    }
    // §2.2: every request is answered with the response shape, even one that is not bounded JSON (the transport says why).
    if (raw instanceof MalformedPayload) return { rejected: rejectedResponse(agentNameOf({}), fallbackId, raw.reason) };
    let dto: AgentRunRequestDto;
    try {
      dto = validateMessage(AgentRunRequestDto, raw);
    } catch (err) {
      const detail = err instanceof AppError ? (err.details ?? []).slice(0, 5).join('; ') || err.message : 'invalid request';
      return { rejected: rejectedResponse(agentNameOf(raw), fallbackId, `The request is not valid: ${detail}`) };
    }
    // Through JSON: the hash covers plain data, exactly as the log will hold it.
    const plain = JSON.parse(JSON.stringify(dto)) as AgentRunRequestDto;
    const reject = (message: string, code?: string, runId = plain.run_id ?? fallbackId) => ({ rejected: rejectedResponse(plain.agent_name, runId, message, code) });
    // A caller (policy/callers.yaml) starts runs only in the cases its role covers, as it ingests only into those.
    const notGranted = startCaseRefusal(this.grants, requestedBy, plain.case_id);
    if (notGranted) {
      this.logger.warn({ msg: 'agent run refused', code: notGranted.code, requested_by: requestedBy, case_id: plain.case_id });
      return reject(notGranted.reason, notGranted.code);
    }
    // Each input is the stored artifact as the store recorded it, not as the caller labelled it: steps pick their
    // inputs by kind, and case isolation reads case_id.
    const badInput = await this.inputProblem(plain.input_artifacts, plain.case_id);
    if (badInput) {
      this.logger.warn({ msg: 'agent run refused', code: badInput.code, requested_by: requestedBy, case_id: plain.case_id });
      return reject(badInput.reason, badInput.code);
    }

    // The pins come from the log (domain/request-pins.ts): a retry keeps its run's, a child inherits its parent's,
    // new top-level work gets the current policy — never an older, looser version the caller picked.
    let existing = plain.run_id ? (await this.runs.load(plain.run_id)).state : undefined;
    // Upgrade: a run recorded before run ids were read in lower case keeps the id it was sent with; a retry finds it
    // under that id (nothing new is started) rather than missing it under the lower-case one.
    const asSent = plain.run_id && !existing?.run ? await recordedAsSent(this.runs, plain.run_id, sentRunId(raw)) : undefined;
    if (asSent) [plain.run_id, existing] = [asSent.run_id, asSent.loaded.state];
    // Another caller's run (or a service's own, a campaign's write) is refused in one sentence, whatever differs: the
    // answer tells nothing of it (its parent, its pins). Probe finding: a run with a parent read differently.
    if (existing?.run && !(await isCallersRun(this.runs, existing.run, requestedBy))) return reject(FOREIGN_RUN_ID);
    // A failure strategy is checked for a new run only: a run recorded before it was, with another one, is retried.
    const badParameters = parametersProblem(plain.parameters, { recorded: Boolean(existing?.run) });
    if (badParameters) return reject(badParameters);
    const named = plain.parent_run_id && !existing?.run ? (await loadUnlessForged(this.runs, plain.parent_run_id))?.state : undefined;
    // A caller's run joins only a tree of its own: another caller's run reads as no run at all (not finished, not of
    // another case: nothing is learned of it).
    const parentState = named?.run && (await isCallersRun(this.runs, named.run, requestedBy)) ? named : undefined;
    const parent = parentState?.run;
    const pins = resolvePins(
      { case_id: plain.case_id, ...(plain.parent_run_id ? { parent_run_id: plain.parent_run_id } : {}), ...(plain.policy_versions ? { policy_versions: plain.policy_versions } : {}) },
      { ...(existing?.run ? { existing: existing.run } : {}), ...(parent ? { parent } : {}), current: this.policies.currentVersions() },
    );
    if (!pins.ok) {
      if (pins.code !== 'INVALID_INPUT') this.logger.warn({ msg: 'agent run refused', code: pins.code, parent_run_id: plain.parent_run_id, case_id: plain.case_id });
      return reject(pins.message, pins.code);
    }
    const versions = pins.policy_versions;
    try {
      await this.policies.resolve(versions);
    } catch {
      return reject(`Unknown policy versions lanes ${versions.lanes} / roles ${versions.roles}.`);
    }
    const request: HashableRequest = {
      agent_name: plain.agent_name, case_id: plain.case_id, policy_versions: versions,
      ...(plain.taxonomy_versions ? { taxonomy_versions: plain.taxonomy_versions } : {}), input_artifacts: plain.input_artifacts, parameters: plain.parameters,
    };
    let hash: string;
    try {
      hash = hashRequest(request);
    } catch {
      return reject('parameters must be JSON data (no NaN, Infinity or non-plain values).');
    }
    const runId = plain.run_id ?? deriveRunId(plain.case_id, plain.parent_run_id, hash, requestedBy);
    if (plain.request_hash_sha256 !== undefined && plain.request_hash_sha256 !== hash) {
      return reject('request_hash_sha256 does not match the normalised request hash (§2.1).', undefined, runId);
    }
    // The root is derived, never taken on trust: a stated root only confirms it (else the run joins another tree).
    const root = pins.root_run_id ?? runId;
    if (plain.root_run_id !== undefined && plain.root_run_id !== canonicalUuid(root)) return reject('root_run_id is not the root this run derives from its parent (or itself).', undefined, runId);
    // A finished run (completed, failed, denied, cancelled) parents nothing new: its outcome is already recorded.
    if (parentState && isTerminal(parentState)) return reject('parent_run_id names a finished run; it cannot start new child runs.', 'RUN.PARENT_TERMINAL', runId);
    // A retry carries its run's recorded parent (the same id, in the case it was recorded in).
    const parentRunId = existing?.run ? existing.run.parent_run_id ?? undefined : plain.parent_run_id;
    return {
      ...(existing ? { existing } : {}),
      spec: {
        ...request, run_id: runId, ...(parentRunId ? { parent_run_id: parentRunId } : {}),
        root_run_id: root, correlation_id: plain.correlation_id ?? root, request_hash_sha256: hash,
        requested_by: requestedBy,
      },
    };
  }

  /**
   * The first input that is not the artifact the store recorded under its id, as it recorded it (inputRefProblem).
   * Read from the store's own record in the log (artifactStored: one direct get per input, no bytes moved), not
   * through rl.artifacts.get, which reads and hashes the whole artifact and answers only a recorded run, and no run
   * exists yet. The bytes are still checked against the reference whenever a step reads them. A reference stating
   * another case than the run's is not looked up: the run's case rule refuses it and records the refusal
   * (CASE.CROSS_CASE_DENIED), as for any cross-case input, and a lookup would tell whether that case holds it.
   */
  private async inputProblem(refs: readonly ArtifactRef[], caseId: string | undefined): Promise<ReturnType<typeof inputRefProblem>> {
    const problems = await Promise.all(refs.map(async (ref) => {
      if (ref.case_id !== undefined && ref.case_id !== caseId) return null;
      const stored = await artifactStored(this.log, ref.artifact_id);
      return inputRefProblem(ref, (stored?.data as ArtifactStoredData | undefined)?.artifact_ref);
    }));
    return problems.find((p) => p !== null) ?? null;
  }
}

/**
 * The §2.2 agent_name of a refused request: the one sent when it is a string, as sent up to the schema's 64
 * characters (in well-formed text: a cut never leaves half a surrogate pair); '' when none or another type was sent.
 */
function agentNameOf(raw: unknown): string {
  const name = (raw as { agent_name?: unknown } | null)?.agent_name;
  return typeof name === 'string' ? (name.slice(0, AGENT_NAME_MAX) as unknown as { toWellFormed(): string }).toWellFormed() : '';
}

/** The agent_name bound of the §2.1 request and §2.2 response schemas (`^[A-Z][A-Z0-9_]{1,63}$`, maxLength 64). */
const AGENT_NAME_MAX = 64;

/**
 * The §2.2 run_id of a request refused before it became a run (nothing is recorded under it): the run_id the request
 * names, else one derived from the request itself (its bytes when it is not bounded JSON), so a retry gets the same
 * id and two different requests never share one.
 */
function fallbackRunId(raw: unknown): string {
  if (raw instanceof MalformedPayload) return deterministicUuid('agent-run-rejected', 'bytes', sha256Hex(raw.bytes));
  const given = (raw as { run_id?: unknown } | null)?.run_id;
  // In lower case, as a valid request's is read (IsRunId): the refusal is the same in either case.
  if (isUuid(given)) return canonicalUuid(given);
  let text: string;
  try {
    text = JSON.stringify(raw) ?? 'null';
  } catch {
    text = 'unserialisable';
  }
  return deterministicUuid('agent-run-rejected', sha256Hex(text));
}

/** DATA.ERASED from the inbox append itself: the command was refused before it was stored (nothing is recorded). */
class ErasedBeforeQueued extends AppError {
  constructor() {
    super('DATA.ERASED', DATA_ERASED_ERROR.message);
  }
}
