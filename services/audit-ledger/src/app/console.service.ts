import { Injectable } from '@nestjs/common';
import type { DeadLetter, RunsListRequest, RunSummary } from '@runledger/contracts';
import { aggregateRef, EventLog, StoredEvent } from '@runledger/event-log';
import { evolvePendingApprovals, PendingApproval } from '../domain/pending-approvals';
import { AuditLedgerService } from './audit-ledger.service';
import { AuditVerifier } from './audit-verifier';
import { DeadLettersService } from './dead-letters.service';
import { RunsIndexService } from './runs-index.service';

export interface RunNode {
  summary: RunSummary | null;
  run_id: string;
  events: StoredEvent[];
  children: RunNode[];
}

/** What the operator console shows, read from the same read models and log the CLI uses. */
@Injectable()
export class ConsoleService {
  constructor(
    private readonly log: EventLog,
    readonly runs: RunsIndexService,
    private readonly ledger: AuditLedgerService,
    private readonly verifier: AuditVerifier,
    private readonly deadLetters: DeadLettersService,
  ) {}

  list(q: RunsListRequest) {
    return this.runs.list(q);
  }

  /** Runs per agent and status over the whole index (what the runs.started/ended metrics count). */
  async perAgent(): Promise<Map<string, Record<string, number>>> {
    const out = new Map<string, Record<string, number>>();
    let cursor: string | undefined;
    do {
      const page = await this.runs.list({ include_children: true, limit: 500, ...(cursor ? { cursor } : {}) });
      for (const r of page.runs) {
        const counts = out.get(r.agent_name ?? 'unknown') ?? {};
        counts[r.status] = (counts[r.status] ?? 0) + 1;
        out.set(r.agent_name ?? 'unknown', counts);
      }
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    return out;
  }

  /** A run and its child runs (from the runs index), each with its events from the log. */
  async tree(runId: string): Promise<RunNode | null> {
    const own = await this.log.read(aggregateRef('run', runId));
    if (!own.length) return null;
    const rows = (await this.runs.list({ root_run_id: (own[0].metadata.root_run_id ?? runId), include_children: true, limit: 500 })).runs;
    const build = async (id: string, events: StoredEvent[], depth: number): Promise<RunNode> => {
      const children = depth > 8 ? [] : await Promise.all(rows.filter((r) => r.parent_run_id === id).sort((a, b) => (a.created_at ?? '').localeCompare(b.created_at ?? ''))
        .map(async (r) => build(r.run_id, await this.log.read(aggregateRef('run', r.run_id)), depth + 1)));
      return { run_id: id, summary: rows.find((r) => r.run_id === id) ?? null, events, children };
    };
    return build(runId, own, 0);
  }

  verify() {
    return this.verifier.verify();
  }

  coverage() {
    return this.ledger.coverage();
  }

  async deadLetterList(): Promise<DeadLetter[]> {
    return (await this.deadLetters.list()).dead_letters;
  }

  async pendingApprovals(): Promise<PendingApproval[]> {
    const { state } = await this.log.replay(evolvePendingApprovals, new Map<string, PendingApproval>(), { filter: 'rl.log.campaign.*' });
    return [...state.values()];
  }
}
