import { Inject, Injectable, Logger, OnApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import { RunsListRequest, RunsListResult, RunsResolveResult, RunSummary, SUBJECTS } from '@runledger/contracts';
import { Clock, settingNumber } from '@runledger/kernel';
import { Bus, CLOCK } from '@runledger/messaging';
import { resolveAbandonedRun, RunRepository, type AbandonedRunOutcome, type RunOwner } from '@runledger/runs';
import { RunControlClient } from '@runledger/service-clients';

export const RESOLVER_SETTINGS = Symbol('RESOLVER_SETTINGS');

export interface ResolverSettings {
  /** A run whose last event is older than this is abandoned: longer than any worker keeps retrying (the inbox redelivers for about 6 min). */
  idleMs: number;
  /**
   * A run whose root run has ended is abandoned sooner, once idle this long: nobody asks for a finished run's calls
   * again (RUN.PARENT_TERMINAL), so only a handler still busy with it (bounded by its timeouts) could advance it.
   */
  graceMs: number;
  /**
   * How often the resolver sweeps on its own; 0: only on request (rl.runs.resolve). A sweep reads the whole runs index
   * (on NATS KV every row), so it is not frequent: an abandoned run is found within idle time + this.
   */
  intervalMs: number;
  /** The least idle/grace time a run owner resolves a run after (RL_RESOLVER_MIN_IDLE_MS; owners apply it too), and rl.runs.resolve's floor. */
  minIdleMs: number;
}

/** The resolver's settings; idle and grace under the owners' floor would have every owner refuse, so they stop the start. */
export function resolverSettingsFrom(env: NodeJS.ProcessEnv): ResolverSettings {
  const settings = {
    idleMs: settingNumber('RL_RESOLVER_IDLE_MS', env), graceMs: settingNumber('RL_RESOLVER_GRACE_MS', env),
    intervalMs: settingNumber('RL_RESOLVER_INTERVAL_MS', env), minIdleMs: settingNumber('RL_RESOLVER_MIN_IDLE_MS', env),
  };
  for (const name of ['idleMs', 'graceMs'] as const) {
    if (settings[name] < settings.minIdleMs) throw new Error(`RL_RESOLVER_${name === 'idleMs' ? 'IDLE' : 'GRACE'}_MS is under RL_RESOLVER_MIN_IDLE_MS (${settings.minIdleMs}): run owners would refuse every resolution.`);
  }
  return settings;
}

type SweepResult = RunsResolveResult;
type ResolvedRun = SweepResult['resolved'][number];

/** Parents before children: a write resolves as completed when its tool did (resolution.ts), so tools go first. */
const DEPTH: Record<string, number> = { tool_gateway: 1, db_write: 2 };
const OPEN_STATUSES: RunsListRequest['status'][] = ['created', 'authorized', 'running'];

/**
 * Finds runs left open that no worker carries any more (idle past `idleMs`, listed by the runs index) and has each
 * ended with the outcome its log supports (libs/runs resolveAbandonedRun), by its owner (issue 23: only the owner
 * appends to its runs): decision's own runs here, every other owner's on rl.runs.control.<owner>, where the owner
 * decides again on its own log view. It never races a live worker into two terminal events: the resolution is
 * appended with the version it was decided on, so a worker that advanced the run meanwhile wins and the run is left
 * to it. An owner that is down (DEPENDENCY.DOWN) leaves its run open for the next sweep.
 */
@Injectable()
export class RunResolver implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('RunResolver');
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<SweepResult>;

  constructor(
    private readonly runs: RunRepository, private readonly bus: Bus, private readonly control: RunControlClient,
    @Inject(CLOCK) private readonly clock: Clock, @Inject(RESOLVER_SETTINGS) private readonly settings: ResolverSettings,
  ) {}

  onApplicationBootstrap(): void {
    if (this.settings.intervalMs <= 0) return;
    this.timer = setInterval(() => {
      this.sweep(this.settings.idleMs).catch((err: unknown) => this.logger.warn({ msg: 'resolver sweep failed; next one retries', error: (err as Error).message }));
    }, this.settings.intervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** One sweep at a time per process; a request arriving during a sweep waits for it and sweeps again. */
  async sweep(idleMs: number, requestedBy = 'schedule'): Promise<SweepResult> {
    while (this.sweeping) await this.sweeping.catch(() => undefined);
    this.sweeping = this.sweepOnce(idleMs, requestedBy);
    try {
      return await this.sweeping;
    } finally {
      this.sweeping = undefined;
    }
  }

  private async sweepOnce(idleMs: number, requestedBy: string): Promise<SweepResult> {
    const open = (await Promise.all(OPEN_STATUSES.map((status) => this.list({ status, include_children: true })))).flat();
    const now = this.clock.now().getTime();
    const idle = open.filter((r) => now - Date.parse(r.updated_at ?? r.created_at ?? '') >= Math.min(idleMs, this.settings.graceMs));
    idle.sort((a, b) => (DEPTH[a.run_kind ?? ''] ?? 0) - (DEPTH[b.run_kind ?? ''] ?? 0));
    const result: SweepResult = { open: open.length, resolved: [], left_to_worker: 0 };
    // Owners that did not answer in this sweep: not asked again until the next (each ask of a hung owner waits its timeout).
    const unreachable = new Set<RunOwner>();
    for (const row of idle) {
      const done = await this.resolve(row, idleMs, unreachable).catch((err: unknown) => {
        const code = (err as { code?: string }).code;
        // A forged run, or one whose tree holds one (issue 23: not its owner's), is no run to resolve; audit verify names it.
        if (code === 'RUN.FORGED') return null;
        // The runs index did not answer: the run stays open, and the next sweep looks again.
        if (isUnanswered(err)) return 'left' as const;
        throw err;
      });
      if (done === 'left') result.left_to_worker++;
      else if (done) result.resolved.push(done);
    }
    if (unreachable.size) this.logger.warn({ msg: 'run owners did not answer; their runs are left for the next sweep', owners: [...unreachable] });
    if (result.resolved.length) this.logger.warn({ msg: 'resolved abandoned runs', requested_by: requestedBy, count: result.resolved.length, runs: result.resolved });
    return result;
  }

  /** Has the run's owner decide on the log's own view of the run (the index only pointed at it) and append on that version. */
  private async resolve(row: RunSummary, idleMs: number, unreachable: Set<RunOwner>): Promise<ResolvedRun | 'left' | null> {
    const owner = await this.runs.ownerOf(row.run_id);
    if (!owner) {
      await this.runs.events(row.run_id); // RUN.FORGED when forged
      return null;
    }
    if (unreachable.has(owner)) return 'left';
    const root = row.root_run_id ?? row.run_id;
    const childRunIds = (await this.list({ root_run_id: root })).filter((r) => r.parent_run_id === row.run_id).map((r) => r.run_id);
    const after = { idleMs, graceMs: this.settings.graceMs };
    if (owner === 'decision') {
      const done = await resolveAbandonedRun(this.runs, row.run_id, { ...after, clock: this.clock, owner, childRunIds });
      if (done.outcome !== 'resolved' && done.refused) this.logger.error({ msg: 'resolution refused by the run lifecycle; run left open', run_id: row.run_id, error: done.refused });
      return outcomeOf(done);
    }
    // Decided on the version the owner reads: the same command twice is answered as it was the first time.
    const { version } = await this.runs.load(row.run_id);
    const answer = await this.control.send(owner, { type: 'resolve_abandoned', command_id: `resolve@${version}`, run_id: row.run_id, idle_ms: idleMs, grace_ms: this.settings.graceMs, child_run_ids: childRunIds }).catch((err: unknown) => {
      // Its owner is down or hung: this run and the owner's others stay open for the next sweep.
      if (!isUnanswered(err)) throw err;
      unreachable.add(owner);
      return null;
    });
    if (!answer) return 'left';
    if (answer.outcome === 'resolved' && answer.resolution) return { run_id: row.run_id, ...answer.resolution };
    return answer.outcome === 'left' ? 'left' : null;
  }

  private async list(q: RunsListRequest): Promise<RunSummary[]> {
    const rows: RunSummary[] = [];
    let cursor: string | null = null;
    do {
      const page: RunsListResult = await this.bus.request<RunsListResult>(SUBJECTS.runsList, { ...q, limit: 500, ...(cursor ? { cursor } : {}) }, { timeoutMs: 30_000 });
      rows.push(...page.runs);
      cursor = page.next_cursor;
    } while (cursor);
    return rows;
  }
}

/** No answer: nobody serves the subject (DEPENDENCY.DOWN) or the server did not answer in time (RUN.TIMEOUT). */
function isUnanswered(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'DEPENDENCY.DOWN' || code === 'RUN.TIMEOUT';
}

function outcomeOf(done: AbandonedRunOutcome): ResolvedRun | 'left' | null {
  return done.outcome === 'resolved' ? done.resolved : done.outcome === 'left' ? 'left' : null;
}
