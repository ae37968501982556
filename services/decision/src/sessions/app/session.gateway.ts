import { Inject, Injectable, Logger } from '@nestjs/common';
import { isCallerScopedUser, SessionGetRequestDto, SessionReply, SessionStartRequest, SessionStartRequestDto } from '@runledger/contracts';
import { aggregateRef, EventLog } from '@runledger/event-log';
import { canonicalJson, type CallerGrants } from '@runledger/governance';
import { AppError, sha256Hex } from '@runledger/kernel';
import { type IdempotentRequestOptions, retryTransient, validateMessage } from '@runledger/messaging';
import { CALLER_GRANTS, PolicyCatalog } from '@runledger/policy-catalog';
import { isCallersRun, isTerminal, loadUnlessForged, RunRepository } from '@runledger/runs';
import { RunWaiter } from '../../runs/run-waiter';
import { callerStartRefusal, startCaseRefusal } from '../../shared/caller-starts';
import { DOOR_USER_REFUSAL } from '../../task-assistant/caller-scope';
import { DECISION_INBOX } from '../../task-assistant/task-run.types';
import { isSessionRun, SESSION_REQUESTED, sessionReplyOf, sessionRunIdOf, type SessionSpec } from '../domain/session-run';
import { ProfileCatalog } from '../infra/profile-catalog';

export const SESSION_REPLY_TIMEOUT_MS = Symbol('SESSION_REPLY_TIMEOUT_MS');

/**
 * rl.caller.<caller>.sessions.start: validates the request, resolves the agent profile (current or a published version) and
 * the pins, queues the session in the durable decision inbox and answers with the AIAgentResult once the run is
 * terminal. The run id derives from request_id (or the whole request), so a repeated request joins its session.
 * Over the bus only callers start sessions, each on its own door (a session in a case its role does not cover, its
 * own or its parent's, is CASE.NOT_GRANTED); decision starts its own in process (startOwn).
 */
@Injectable()
export class SessionGateway {
  private readonly logger = new Logger('Sessions');

  constructor(
    private readonly log: EventLog,
    private readonly runs: RunRepository,
    private readonly policies: PolicyCatalog,
    private readonly profiles: ProfileCatalog,
    private readonly waiter: RunWaiter,
    @Inject(SESSION_REPLY_TIMEOUT_MS) private readonly replyTimeoutMs: number,
    @Inject(CALLER_GRANTS) private readonly grants: CallerGrants,
  ) {}

  /** `caller`: the identity of the door the request came on (callerOf), recorded in RunCreated; it alone reads the session. */
  start(raw: unknown, caller: string): Promise<SessionReply> {
    const unattributed = callerStartRefusal(this.grants, caller);
    if (unattributed) throw new AppError(unattributed.code, unattributed.reason);
    return this.open(validateMessage(SessionStartRequestDto, raw), caller, this.replyTimeoutMs);
  }

  /**
   * A session decision starts itself (a sub-agent, a reasoner step, a campaign proposal), recorded for no caller: in
   * process, never over the bus, where only callers start sessions. Retried like a bus request.
   */
  startOwn(req: SessionStartRequest, opts: Pick<IdempotentRequestOptions, 'retryDelayMs' | 'signal'> & { waitMs?: number }): Promise<SessionReply> {
    const dto = validateMessage(SessionStartRequestDto, req);
    // As over the bus: the answer comes at SESSION_REPLY_TIMEOUT_MS at the latest (status running past it).
    return retryTransient(() => this.open(dto, undefined, Math.min(opts.waitMs ?? Infinity, this.replyTimeoutMs)), opts);
  }

  /** Whether an agent profile (at that version, when named) exists: a session campaign naming none is refused at create. */
  async hasProfile(agent: string, version?: string): Promise<boolean> {
    return Boolean(await this.profiles.resolve(agent, version));
  }

  private async open(req: SessionStartRequestDto, requestedBy: string | undefined, waitMs: number): Promise<SessionReply> {
    const { spec, parentEnded } = await this.prepare(req, requestedBy);
    const existing = await this.runs.load(spec.run_id);
    if (existing.state.run && (existing.state.run.request_hash_sha256 !== spec.request_hash_sha256 || existing.state.run.requested_by !== spec.requested_by)) {
      // As the task assistant answers a request_id used again for another request (one code for it across the doors).
      throw new AppError('REQUEST.CONFLICT', 'run_id (or request_id) already names a session of a different request.');
    }
    // A finished run (completed, failed, denied, cancelled) parents nothing new: its outcome is already recorded. A
    // session it parented before it ended is answered as it is (a retry).
    if (!existing.state.run && parentEnded) throw new AppError('RUN.PARENT_TERMINAL', 'parent_run_id names a finished run; it cannot start new child sessions.');
    if (isTerminal(existing.state)) return sessionReplyOf(spec.run_id, existing.state, existing.events);
    const watch = await this.waiter.watch(spec.run_id, waitMs);
    try {
      await this.log.append(aggregateRef('inbox', DECISION_INBOX), [{
        type: SESSION_REQUESTED, data: { spec },
        metadata: { run_id: spec.run_id, root_run_id: spec.root_run_id, correlation_id: spec.correlation_id, ...(spec.case_id ? { case_id: spec.case_id } : {}), ...(spec.user_id ? { user_id: spec.user_id } : {}), ...(spec.parent_run_id ? { parent_run_id: spec.parent_run_id } : {}) },
      }], { commandId: `session:${spec.run_id}` });
    } catch (err) {
      watch.cancel();
      throw err;
    }
    if ((await watch.outcome) === 'timeout') this.logger.warn({ msg: 'session reply timeout; session continues', run_id: spec.run_id });
    return this.get({ run_id: spec.run_id }, requestedBy);
  }

  /**
   * A session a caller started is its own, and so are the sessions decision started under it (its sub-agents: their
   * root is the caller's session); another identity asking gets RUN.NOT_FOUND (caller-scoped reads, issue 26), and so
   * does every caller for a session decision started for itself (a campaign's proposal) and for a run that is no
   * session (a governed run: rl.caller.<caller>.runs.get reads those). `asker` undefined: decision's own read.
   */
  async get(raw: unknown, asker?: string): Promise<SessionReply> {
    const { run_id } = validateMessage(SessionGetRequestDto, raw);
    const { state, events } = await this.runs.load(run_id);
    if (!state.run || !isSessionRun(state) || (asker !== undefined && !(await isCallersRun(this.runs, state.run, asker)))) throw new AppError('RUN.NOT_FOUND', 'No session with that run id.');
    return sessionReplyOf(run_id, state, events);
  }

  /** The session's spec, and whether the parent it names has ended (see open). */
  private async prepare(req: SessionStartRequestDto, requestedBy: string | undefined): Promise<{ spec: SessionSpec; parentEnded: boolean }> {
    const pinned = await this.profiles.resolve(req.agent, req.version);
    if (!pinned) throw new AppError('REQUEST.INVALID', `There is no agent profile ${req.agent}${req.version ? ` version ${req.version}` : ''}.`);
    // A child session inherits its parent's tree, case and policy pins; a top-level one pins the current policy.
    const parentState = req.parent_run_id ? (await loadUnlessForged(this.runs, req.parent_run_id))?.state : undefined;
    const parent = parentState?.run;
    // A caller's session joins only a tree of its own (a run it started, or a sub-agent under one): another's run, a
    // user's task run or no run at all are refused alike, so nobody grafts onto another tree or learns it exists.
    if (req.parent_run_id && (!parent || (requestedBy !== undefined && !(await isCallersRun(this.runs, parent, requestedBy))))) {
      throw new AppError('REQUEST.INVALID', requestedBy !== undefined ? 'parent_run_id names no run of this caller.' : 'parent_run_id names no run.');
    }
    if (parent?.case_id && req.case_id && parent.case_id !== req.case_id) throw new AppError('CASE.CROSS_CASE_DENIED', 'A child session stays in its parent\'s case.');
    const case_id = parent?.case_id ?? req.case_id;
    const notGranted = requestedBy ? startCaseRefusal(this.grants, requestedBy, case_id) : null;
    if (notGranted) throw new AppError(notGranted.code, notGranted.reason);
    // A session names its user as sent, on any door: a caller door's user (rl.caller.<identity>.…) is that door's alone
    // (its data key, its erasure), so no session may take it as its own (review finding).
    if (req.user_id !== undefined && isCallerScopedUser(req.user_id)) throw new AppError('REQUEST.INVALID', DOOR_USER_REFUSAL);
    const user_id = parent?.user_id ?? req.user_id;
    const { profile, sha256 } = pinned;
    const request = { agent: profile.id, version: profile.version, profile_sha256: sha256, prompt: req.prompt, parent_run_id: req.parent_run_id ?? null, case_id: case_id ?? null, user_id: user_id ?? null };
    const hash = sha256Hex(canonicalJson(request));
    const run_id = req.run_id ?? sessionRunIdOf(req.request_id ?? hash, req.parent_run_id, requestedBy);
    const root_run_id = parent?.root_run_id ?? run_id;
    const spec: SessionSpec = {
      run_id, root_run_id, correlation_id: req.correlation_id ?? parent?.correlation_id ?? root_run_id,
      ...(req.parent_run_id ? { parent_run_id: req.parent_run_id } : {}), ...(case_id ? { case_id } : {}), ...(user_id ? { user_id } : {}),
      agent: profile.id, version: profile.version, profile_sha256: sha256, role: profile.role,
      policy_versions: parent?.policy_versions ?? this.policies.currentVersions(), prompt: req.prompt, request_hash_sha256: hash,
      ...(requestedBy ? { requested_by: requestedBy } : {}),
    };
    return { spec, parentEnded: parentState !== undefined && isTerminal(parentState) };
  }
}
