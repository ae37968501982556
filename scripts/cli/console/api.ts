/**
 * What the console reads and does, each through the operator subjects the CLI uses (so the console can do nothing
 * its NATS identity could not do with the CLI): rl.runs.list / get / cancel / fork, rl.deadletters.list / retry,
 * agents.campaign.answer, rl.audit.verify / coverage, and the log itself (the operator is one of its readers) for
 * the campaign items waiting for a person.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { DeadLetter, DeadLettersListResult, RunCancelResult, RunForkRequest, RunForkResult, RunsListRequest, RunsListResult } from '../../../libs/contracts/src/generated';
import { SUBJECTS } from '../../../libs/contracts/src/subjects';
import { answerItem, type Approver, type Decision, type PendingApproval, PendingApprovals } from '../approvals';
import { ask } from '../operator';
import { loadTree, type RunNode } from '../runs';
import { type BulkCancelSummary, type BulkSelection, cancelEach, selectOpenRuns, selectShown, type ShownSelection } from '../runs-bulk';

export class ConsoleApi {
  /** Kept for the console's life: each approvals page reads only what the log added since the last. */
  private readonly approvals: PendingApprovals;

  constructor(readonly nc: NatsConnection, readonly approver: Approver) {
    this.approvals = new PendingApprovals(nc);
  }

  runs(q: RunsListRequest): Promise<RunsListResult> {
    return ask<RunsListResult>(this.nc, SUBJECTS.runsList, q);
  }

  tree(runId: string): Promise<RunNode> {
    return loadTree(this.nc, runId);
  }

  cancel(runId: string, reason: string | undefined): Promise<RunCancelResult> {
    return ask<RunCancelResult>(this.nc, SUBJECTS.runsCancel, { run_id: runId, requested_by: this.approver.id, ...(reason ? { reason } : {}) });
  }

  /** The open runs a filter matches (every page), for a bulk cancel. */
  selectOpen(filter: RunsListRequest): Promise<BulkSelection> {
    return selectOpenRuns(this.nc, filter);
  }

  /** The open runs of a selection shown before, or null when the filter no longer matches exactly those runs. */
  selectShown(filter: RunsListRequest, shown: ShownSelection): Promise<BulkSelection | null> {
    return selectShown(this.nc, filter, shown);
  }

  /** One rl.runs.cancel per run, as this console's operator. */
  cancelEach(runIds: string[], reason: string, matched: number): Promise<BulkCancelSummary> {
    return cancelEach(this.nc, runIds, reason, this.approver.id, matched);
  }

  /** rl.runs.fork, waiting for the fork's outcome (the reply comes at its end, or with status running after decision's reply timeout). */
  fork(req: Omit<RunForkRequest, 'requested_by' | 'wait'>): Promise<RunForkResult> {
    return ask<RunForkResult>(this.nc, SUBJECTS.runsFork, { ...req, requested_by: this.approver.id, wait: true }, 180_000);
  }

  async deadLetters(): Promise<DeadLetter[]> {
    return (await ask<DeadLettersListResult>(this.nc, SUBJECTS.deadLettersList, {})).dead_letters;
  }

  retry(id: string): Promise<DeadLetter> {
    return ask<DeadLetter>(this.nc, SUBJECTS.deadLettersRetry, { id, requested_by: this.approver.id });
  }

  pendingApprovals(): Promise<PendingApproval[]> {
    return this.approvals.read();
  }

  answer(a: { campaign_id: string; item_id: string; decision: Decision; answer?: string }): Promise<unknown> {
    return answerItem(this.nc, this.approver, a);
  }

  verify(): Promise<{ ok: boolean; length: number; head_hash?: string | null; first_broken_seq?: number | null; reason?: string | null }> {
    return ask(this.nc, SUBJECTS.auditVerify, {}, 300_000);
  }

  coverage(): Promise<{ ok: boolean; runs_checked: number; in_progress: unknown[]; violations: Array<{ run_id: string; missing: string }> }> {
    return ask(this.nc, SUBJECTS.auditCoverage, {}, 300_000);
  }
}
