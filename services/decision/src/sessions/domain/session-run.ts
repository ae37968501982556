import { accountingOf, journalEntryOf, usageOf, type AgentProfile, type AIAgentResult, type JournalEntry, type ToolSpec } from '@runledger/agent-session';
import { deterministicUuid, truncateChars } from '@runledger/kernel';
import type { SessionReply } from '@runledger/contracts';
import type { PolicyVersionsPin, RunCreatedData, RunError, RunState } from '@runledger/runs';

/** Inbox command of a session start (a caller's sessions.start, or decision's own). */
export const SESSION_REQUESTED = 'SessionRequested';
/** Recorded once after the opening: the pinned tool set and XML nonce replay depends on. */
export const SESSION_STARTED = 'SessionStarted';
/** The session's AIAgentResult (without accounting, which is folded from the journal), before the terminal event. */
export const SESSION_FINISHED = 'SessionFinished';

export interface SessionSpec {
  run_id: string;
  root_run_id: string;
  parent_run_id?: string;
  correlation_id: string;
  case_id?: string;
  user_id?: string;
  agent: string;
  version: string;
  profile_sha256: string;
  /** The profile's role: the run's agent_name, which tool calls are authorised as. */
  role: string;
  policy_versions: PolicyVersionsPin;
  prompt: string;
  request_hash_sha256: string;
  /** The caller identity that asked on its sessions.start door (issue 26); absent when a service started the session. */
  requested_by?: string;
}

export interface SessionStartedData {
  tools: ToolSpec[];
  nonce: string;
  /** Tools the profile names that the gateway did not offer at start. */
  missing_tools: string[];
}

export type SessionFinishedData = Omit<AIAgentResult, 'accounting'>;

/**
 * A session's run id: from its request id (or the whole request's hash), within its parent and for its caller; a
 * repeated request joins its session, and the same request id from two callers is two sessions.
 */
export function sessionRunIdOf(requestKey: string, parentRunId: string | undefined, requestedBy?: string): string {
  return deterministicUuid('session', requestKey, parentRunId ?? '', ...(requestedBy ? [requestedBy] : []));
}

/** What RunCreated pins for a session: the profile by id, version and hash; the prompt as the request. */
export function sessionParameters(spec: SessionSpec): Record<string, unknown> {
  return { session: { agent: spec.agent, version: spec.version, profile_sha256: spec.profile_sha256 }, prompt: spec.prompt };
}

export function pinnedOf(run: RunCreatedData): { agent: string; version: string; profile_sha256: string; prompt: string } | undefined {
  const p = run.parameters as { session?: { agent?: string; version?: string; profile_sha256?: string }; prompt?: string };
  if (!p.session?.agent || !p.session.version || typeof p.prompt !== 'string') return undefined;
  return { agent: p.session.agent, version: p.session.version, profile_sha256: p.session.profile_sha256 ?? '', prompt: p.prompt };
}

/**
 * Whether a run is a session (a run of the session kind): its opening pins a profile and its authorization is a
 * session's (`session:<agent>`), which only the session worker records; a governed run's parameters, which its caller
 * writes, cannot make one look like a session.
 */
export function isSessionRun(state: Pick<RunState, 'run' | 'authz'>): boolean {
  const pinned = state.run ? pinnedOf(state.run) : undefined;
  return !!pinned && state.authz?.action === `session:${pinned.agent}`;
}

export function journalOf(events: ReadonlyArray<{ type: string; data: unknown }>): JournalEntry[] {
  return events.flatMap((e) => {
    const entry = journalEntryOf(e);
    return entry ? [entry] : [];
  });
}

/** The terminal event of a finished session: completed when the session succeeded, else failed with why. */
export function terminalOf(result: AIAgentResult): { type: 'RunCompleted'; data: { output_artifacts: []; result: unknown } } | { type: 'RunFailed'; data: { error: RunError } } {
  if (result.success) return { type: 'RunCompleted', data: { output_artifacts: [], result: { success: true, finalReport: result.finalReport } } };
  const code = result.error ? `SESSION.${result.error.kind.toUpperCase()}` : 'SESSION.NO_REPORT';
  // Not the report's text: RunFailed is not sealed (README "Erasure"); the report stays in SessionFinished, sealed.
  const message = truncateChars(result.error?.message ?? (result.finalReport ? 'The session\'s final report says it did not succeed (see its result).' : 'The session ended without a final report.'), 500);
  return { type: 'RunFailed', data: { error: { error_code: code, message, retryable: false } } };
}

/** A caller's sessions.start / sessions.get reply, folded from the run's events. */
export function sessionReplyOf(runId: string, state: RunState, events: ReadonlyArray<{ type: string; data: unknown }>): SessionReply {
  const pinned = state.run ? pinnedOf(state.run) : undefined;
  const status = state.status === 'completed' || state.status === 'failed' || state.status === 'denied' || state.status === 'cancelled' ? state.status : 'running';
  const finished = events.find((e) => e.type === SESSION_FINISHED)?.data as SessionFinishedData | undefined;
  const accounting = accountingOf(journalOf(events));
  return {
    run_id: runId,
    status,
    ...(pinned ? { agent: pinned.agent, profile_version: pinned.version } : {}),
    ...(finished ? { result: { ...finished, accounting } as unknown as SessionReply['result'] } : {}),
    usage: usageOf(accounting),
    ...(state.error ? { error: state.error } : {}),
  };
}

/** INV-DT-001/002 from the recorded ancestry: the chain of session agents from the root down to the parent. */
export function delegationRefusal(chain: readonly string[], agent: string, maxDepth: number): RunError | undefined {
  if (chain.includes(agent)) {
    return { error_code: 'DELEGATION.CYCLE', message: `Circular delegation: ${[...chain, agent].join(' -> ')}.`, retryable: false };
  }
  if (chain.length > maxDepth) {
    return { error_code: 'DELEGATION.DEPTH_EXCEEDED', message: `Delegation depth ${chain.length} exceeds the maximum of ${maxDepth}: ${[...chain, agent].join(' -> ')}.`, retryable: false };
  }
  return undefined;
}

export const DEFAULT_MAX_DELEGATION_DEPTH = 5;
export const maxDepthOf = (profile: AgentProfile): number => profile.maxDelegationDepth ?? DEFAULT_MAX_DELEGATION_DEPTH;
