/**
 * What the console reads and does, each through the operator subjects the CLI uses (so the console can do nothing
 * its NATS identity could not do with the CLI): rl.runs.list / get / cancel, rl.deadletters.list / retry,
 * agents.campaign.answer, rl.audit.verify / coverage, and the log itself (the operator is one of its readers) for
 * the campaign items waiting for a person.
 */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { DeadLetter, DeadLettersListResult, RunCancelResult, RunsListRequest, RunsListResult } from '../../../libs/contracts/src/generated';
import { SUBJECTS } from '../../../libs/contracts/src/subjects';
import { EventLog, type StoredEvent } from '@runledger/event-log';
import { ask } from '../operator';
import { loadTree, type RunNode } from '../runs';

export interface PendingApproval {
  campaign_id: string;
  item_id: string;
  kind: string;
  cycle: number | null;
  proposal: unknown;
  requested_at: string;
  expires_at: string;
}

/** Campaign items waiting for a person (ApprovalRequested, not yet decided or expired), folded from rl.log.campaign.*. Pure. */
export function evolvePendingApprovals(pending: Map<string, PendingApproval>, event: StoredEvent): Map<string, PendingApproval> {
  const d = (event.data ?? {}) as Record<string, unknown>;
  const key = `${event.metadata.stream_id}:${String(d.item_id)}`;
  if (event.type === 'ApprovalRequested') {
    pending.set(key, {
      campaign_id: event.metadata.stream_id, item_id: String(d.item_id), kind: String(d.kind ?? ''), cycle: typeof d.cycle === 'number' ? d.cycle : null,
      proposal: d.proposal ?? null, requested_at: event.metadata.recorded_at, expires_at: String(d.expires_at ?? ''),
    });
  } else if (event.type === 'ApprovalDecided' || event.type === 'ApprovalExpired') pending.delete(key);
  return pending;
}

export interface Approver {
  id: string;
  role: string;
}

export class ConsoleApi {
  private log?: EventLog;
  /** Pending approvals folded so far, and the log sequence to go on from (each page reads only what is new). */
  private approvals = { state: new Map<string, PendingApproval>(), from: 1 };

  constructor(private readonly nc: NatsConnection, readonly approver: Approver) {}

  runs(q: RunsListRequest): Promise<RunsListResult> {
    return ask<RunsListResult>(this.nc, SUBJECTS.runsList, q);
  }

  tree(runId: string): Promise<RunNode> {
    return loadTree(this.nc, runId);
  }

  cancel(runId: string, reason: string | undefined): Promise<RunCancelResult> {
    return ask<RunCancelResult>(this.nc, SUBJECTS.runsCancel, { run_id: runId, requested_by: this.approver.id, ...(reason ? { reason } : {}) });
  }

  async deadLetters(): Promise<DeadLetter[]> {
    return (await ask<DeadLettersListResult>(this.nc, SUBJECTS.deadLettersList, {})).dead_letters;
  }

  retry(id: string): Promise<DeadLetter> {
    return ask<DeadLetter>(this.nc, SUBJECTS.deadLettersRetry, { id, requested_by: this.approver.id });
  }

  async pendingApprovals(): Promise<PendingApproval[]> {
    this.log ??= new EventLog(jetstream(this.nc), await jetstreamManager(this.nc), { producer: 'runledger-console', clock: { now: () => new Date() } });
    const { state, lastSeq } = await this.log.replay(evolvePendingApprovals, this.approvals.state, { filter: 'rl.log.campaign.*', fromSeq: this.approvals.from });
    this.approvals = { state, from: Math.max(this.approvals.from, lastSeq + 1) };
    return [...state.values()].sort((a, b) => a.requested_at.localeCompare(b.requested_at));
  }

  answer(a: { campaign_id: string; item_id: string; decision: 'approved' | 'rejected' | 'answered'; answer?: string }): Promise<unknown> {
    return ask(this.nc, SUBJECTS.campaignAnswer, { ...a, approver: this.approver }, 120_000);
  }

  verify(): Promise<{ ok: boolean; length: number; head_hash?: string | null; first_broken_seq?: number | null; reason?: string | null }> {
    return ask(this.nc, SUBJECTS.auditVerify, {}, 300_000);
  }

  coverage(): Promise<{ ok: boolean; runs_checked: number; in_progress: unknown[]; violations: Array<{ run_id: string; missing: string }> }> {
    return ask(this.nc, SUBJECTS.auditCoverage, {}, 300_000);
  }
}
