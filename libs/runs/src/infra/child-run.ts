import { randomUUID } from 'node:crypto';
import { ConcurrencyError } from '@runledger/event-log';
import { AppError } from '@runledger/kernel';
import type { ArtifactRefLike, AuthzDecidedData, RunCreatedData, RunError, RunEvent } from '../domain/run-events';
import { EffectClaimHeld, type RunCommand } from '../domain/run.decider';
import { isTerminal, liveClaim, RunState } from '../domain/run-state';
import { DATA_ERASED_ERROR, isDataErased } from '../app/run-engine';
import { RunRepository } from './run-repository';
import type { RunSession } from './run-session';

export interface ChildRunSpec {
  created: RunCreatedData;
  /** Decided from the policy versions pinned in `created`. */
  authz: AuthzDecidedData;
}

/**
 * Who executes the effect, and for how long its claim holds: a second request for the same child run (a caller's
 * retry while the first attempt is still executing, on this instance or another) waits for the first attempt's
 * outcome instead of running the effect again; a claim whose lease ran out is a crashed owner's, and is taken over.
 * The lease must outlast the effect's own timeout, or a slow but live owner would be overtaken.
 */
export interface EffectClaimOptions {
  owner: string;
  leaseMs: number;
  now: () => Date;
  /** How often a waiting request reads the child run again (default 100 ms, doubling to 1 s). */
  pollMs?: number;
}

export interface EffectOutcome<T> {
  status: 'completed' | 'failed';
  result?: T;
  error?: RunError;
  /** Audit events of the effect (ToolCallAudited, DbWriteAudited …), appended with the terminal event. */
  audit: RunEvent[];
  output_artifacts?: ArtifactRefLike[];
  response_hash_sha256?: string;
}

export interface ChildRunOutcome<T> {
  child_run_id: string;
  status: 'completed' | 'failed' | 'denied';
  result?: T;
  error?: RunError;
  /** The outcome was already in the log: the effect did not run again. */
  replayed: boolean;
  state: RunState;
}

/** How many times a write that lost an optimistic-concurrency race is decided again on fresh state. */
const CONFLICT_ATTEMPTS = 5;

/**
 * Runs one governed child run (tool_gateway, db_write, promotion, export) at most once per id:
 * the recorded outcome is looked up before the effect runs, authorization is recorded before it,
 * and the audit events and terminal outcome are appended together after it. With `claim`, the effect is
 * claimed on the log first (EffectClaimed), so a concurrent request waits for the first attempt instead of
 * executing it again. Without a claim the effect must be idempotent (derived ids): a crash between effect and
 * append re-runs it; with one, that re-run waits until the crashed owner's lease has run out.
 */
export async function runChildOnce<T>(repo: RunRepository, spec: ChildRunSpec, effect: () => Promise<EffectOutcome<T>>, claim?: EffectClaimOptions): Promise<ChildRunOutcome<T>> {
  const runId = spec.created.run_id;
  let waited = 0;
  for (let conflicts = 0; conflicts < CONFLICT_ATTEMPTS;) {
    // Each attempt claims under its own owner. A claim made with the opening has the same msgID for every attempt
    // (`open@0`), and a later claim's id names the version it was decided on: an attempt whose claim turns out to be
    // a duplicate of another attempt's sees that attempt's owner in the log (below) and waits instead of running.
    const attemptOwner = claim && `${claim.owner}/${randomUUID()}`;
    const firstPass = conflicts === 0 && waited === 0;
    const session = (firstPass && (await openNewChild(repo, spec, claim && attemptOwner ? claimCommand(claim, attemptOwner) : undefined))) || (await repo.session(spec.created));
    // The id derives from (parent, action id): the same id with another request is a caller bug, never a replay.
    if (session.state.run && session.state.run.request_hash_sha256 !== spec.created.request_hash_sha256) {
      throw new AppError('REQUEST.INVALID', 'That action id was already used for a different request.');
    }
    if (isTerminal(session.state)) return outcomeOf<T>(runId, session.state, true);
    try {
      await session.decide(openCommand(spec), `open@${session.state.event_count}`);
      if (isTerminal(session.state)) return outcomeOf<T>(runId, session.state, false);
      // Only a run the log shows as authorised may have its effect run.
      if (session.state.status !== 'running' || session.state.authz?.decision !== 'allow') {
        throw new AppError('INTERNAL', 'The child run is not in a state to run its effect.');
      }
      // A new child run was claimed with its opening (same append); any other claims now.
      if (claim && attemptOwner && session.state.effect_claim?.owner !== attemptOwner) {
        const now = claim.now();
        if (liveClaim(session.state, now)) throw new EffectClaimHeld(session.state.effect_claim!);
        await session.decide(claimCommand(claim, attemptOwner, now), `claim@${session.version}:${attemptOwner}`);
        if (session.state.effect_claim?.owner !== attemptOwner) throw new EffectClaimHeld(session.state.effect_claim!);
      }
      const out = await runClaimed(session, effect, attemptOwner);
      return await closeChild<T>(repo, spec, session, out);
    } catch (err) {
      if (err instanceof EffectClaimHeld) {
        // Another attempt is executing the effect: its outcome (or its lease running out) is what we wait for.
        await sleep(Math.min(1_000, (claim?.pollMs ?? 100) * 2 ** Math.min(waited++, 4)));
        continue;
      }
      // Someone else advanced this child run (or claimed its effect first): look again.
      if (err instanceof ConcurrencyError) {
        conflicts++;
        continue;
      }
      throw err;
    }
  }
  throw new ConcurrencyError(repo.refOf(spec.created).subject, -1);
}

/**
 * Records the outcome of an effect that has run: its audit events and terminal event. The effect never runs again
 * from here: a close that loses a race (an operator's cancel request landed while the effect ran) is decided again
 * on the run as the log holds it, and a run someone else ended meanwhile is answered as it ended.
 */
async function closeChild<T>(repo: RunRepository, spec: ChildRunSpec, session: RunSession, out: EffectOutcome<T>): Promise<ChildRunOutcome<T>> {
  const runId = spec.created.run_id;
  let close: RunCommand = out.status === 'completed'
    ? { type: 'Complete', data: { output_artifacts: out.output_artifacts ?? [], result: out.result, ...(out.response_hash_sha256 ? { response_hash_sha256: out.response_hash_sha256 } : {}) }, audit: out.audit }
    : { type: 'Fail', data: { error: out.error ?? { error_code: 'INTERNAL', message: 'The action failed.', retryable: true } }, audit: out.audit };
  for (let conflicts = 0; ; conflicts++) {
    try {
      // The label names the version the close is decided on: a close that an earlier attempt cut short after its
      // audit event is decided again without that event (the decider drops an audit the run holds), and under the
      // same label its RunCompleted would get the stored audit event's id and be taken for its duplicate.
      await session.decide(close, `close@${session.version}`);
      // Never answer a run that is still open as failed: its outcome is unknown (the caller asks again).
      if (!isTerminal(session.state)) throw new AppError('DEPENDENCY.DOWN', 'The action\'s outcome could not be recorded yet; retry.');
      return outcomeOf<T>(runId, session.state, false);
    } catch (err) {
      // The owner's data was erased while the effect ran: its result can no longer be stored (sealed), so the run
      // ends failed with DATA.ERASED (its audit events hold no sealed field) and the caller is told so.
      if (isDataErased(err) && close.type !== 'Fail') {
        close = { type: 'Fail', data: { error: DATA_ERASED_ERROR }, audit: out.audit };
        continue;
      }
      if (!(err instanceof ConcurrencyError) || conflicts + 1 >= CONFLICT_ATTEMPTS) throw err;
      session = await repo.session(spec.created);
      if (isTerminal(session.state)) return outcomeOf<T>(runId, session.state, false);
    }
  }
}

function openCommand(spec: ChildRunSpec): RunCommand {
  const denial = { error_code: spec.authz.code ?? 'LANE.DENIED', message: spec.authz.reason ?? 'Denied by policy.', retryable: false };
  return { type: 'Open', data: { created: spec.created, authz: spec.authz, denial } };
}

function claimCommand(claim: EffectClaimOptions, owner: string, now = claim.now()): RunCommand {
  return { type: 'ClaimEffect', data: { owner, now: now.toISOString(), lease_ms: claim.leaseMs } };
}

/**
 * A child run id is new except on a retry, so the first pass opens it at version 0 without a lookup, and an allowed
 * one with an effect to claim is claimed in the same append (no round trip between them). The log refuses that when
 * the run exists (wrong last sequence) or recognises it (every event a duplicate: a retry within the duplicate
 * window, whose claim is the earlier attempt's); then null, and the run is loaded as it is, so a recorded outcome is
 * never run again and a claim held by another attempt is waited for.
 */
async function openNewChild(repo: RunRepository, spec: ChildRunSpec, claim?: RunCommand): Promise<RunSession | null> {
  const session = repo.fresh(spec.created);
  try {
    await session.decide(claim && spec.authz.decision === 'allow' ? [openCommand(spec), claim] : openCommand(spec), 'open@0');
  } catch (err) {
    if (err instanceof ConcurrencyError) return null;
    throw err;
  }
  return session;
}

/** Runs the effect under the claim; an effect that throws gives the claim back, so a retry need not wait out the lease. */
async function runClaimed<T>(session: Awaited<ReturnType<RunRepository['session']>>, effect: () => Promise<EffectOutcome<T>>, owner?: string): Promise<EffectOutcome<T>> {
  try {
    return await effect();
  } catch (err) {
    if (owner) {
      await session.decide({ type: 'ReleaseEffect', data: { owner, reason: (err as Error)?.name ?? 'error' } }, `release@${session.version}`).catch(() => undefined);
    }
    throw err;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What the log says about a child run whose reply was lost (a restart, a crash mid-call): its recorded outcome;
 * `absent` when it never started (so its effect never ran); `open` when it started and has no outcome yet, which
 * means "unknown", never "failed": the caller asks again (the same id resumes the same run) until it is resolved.
 */
export async function childOutcomeFromLog<T>(repo: RunRepository, runId: string): Promise<ChildRunOutcome<T> | 'absent' | 'open'> {
  const { state } = await repo.load(runId);
  if (state.status === 'none') return 'absent';
  return isTerminal(state) ? outcomeOf<T>(runId, state, true) : 'open';
}

function outcomeOf<T>(runId: string, state: RunState, replayed: boolean): ChildRunOutcome<T> {
  const status = state.status === 'completed' ? 'completed' : state.status === 'denied' ? 'denied' : 'failed';
  return { child_run_id: runId, status, result: state.result as T, error: state.error, replayed, state };
}
