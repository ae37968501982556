import { Inject, Injectable, Logger, OnApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import { RunsListRequest, RunsListResult, RunsResolveResult, RunSummary, SUBJECTS } from '@runledger/contracts';
import { ConcurrencyError } from '@runledger/event-log';
import { Clock, settingNumber } from '@runledger/kernel';
import { Bus, CLOCK } from '@runledger/messaging';
import { isTerminal, liveClaim, RunLifecycleViolation, RunRepository, RunSession } from '@runledger/runs';
import { resolveAbandoned, runView, RunView } from './domain/resolution';

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
}

export function resolverSettingsFrom(env: NodeJS.ProcessEnv): ResolverSettings {
  return { idleMs: settingNumber('RL_RESOLVER_IDLE_MS', env), graceMs: settingNumber('RL_RESOLVER_GRACE_MS', env), intervalMs: settingNumber('RL_RESOLVER_INTERVAL_MS', env) };
}

type SweepResult = RunsResolveResult;
type ResolvedRun = SweepResult['resolved'][number];

/** Parents before children: a write resolves as completed when its tool did (resolution.ts), so tools go first. */
const DEPTH: Record<string, number> = { tool_gateway: 1, db_write: 2 };
const OPEN_STATUSES: RunsListRequest['status'][] = ['created', 'authorized', 'running'];

/**
 * Finds runs left open that no worker carries any more (idle past `idleMs`, listed by the runs index) and ends each
 * with the outcome its log supports (domain/resolution.ts). It never races a live worker into two terminal events:
 * it appends with the version it decided on, so a worker that advanced the run meanwhile wins and the run is left to it.
 * Two decision instances may sweep at once: the same command id and expected version make the second a no-op.
 */
@Injectable()
export class RunResolver implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('RunResolver');
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<SweepResult>;

  constructor(private readonly runs: RunRepository, private readonly bus: Bus, @Inject(CLOCK) private readonly clock: Clock, @Inject(RESOLVER_SETTINGS) private readonly settings: ResolverSettings) {}

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
    for (const row of idle) {
      // A forged run, or one whose tree holds one (issue 23: not its owner's), is no run to resolve; audit verify names it.
      const done = await this.resolve(row.run_id, idleMs).catch((err: unknown) => {
        if ((err as { code?: string }).code === 'RUN.FORGED') return null;
        throw err;
      });
      if (done === 'left') result.left_to_worker++;
      else if (done) result.resolved.push(done);
    }
    if (result.resolved.length) this.logger.warn({ msg: 'resolved abandoned runs', requested_by: requestedBy, count: result.resolved.length, runs: result.resolved });
    return result;
  }

  /** Decides on the log's own view of the run (the index only pointed at it) and appends on that version. */
  private async resolve(runId: string, idleMs: number): Promise<ResolvedRun | 'left' | null> {
    const { state, version, events } = await this.runs.load(runId);
    if (!state.run || isTerminal(state)) return null;
    // An effect whose claim's lease still holds is being executed by a live owner: it is carried, however quiet.
    if (liveClaim(state, this.clock.now())) return 'left';
    const idleFor = this.clock.now().getTime() - Date.parse(state.updated_at ?? '');
    const parent = state.run.parent_run_id ? await this.view(state.run.parent_run_id) : undefined;
    const rootEnded = state.run.root_run_id !== runId && isTerminal(parent?.run_id === state.run.root_run_id ? parent.state : (await this.runs.load(state.run.root_run_id)).state);
    if (idleFor < (rootEnded ? Math.min(idleMs, this.settings.graceMs) : idleMs)) return 'left';
    const view = runView(runId, state, events);
    const childIds = (await this.list({ root_run_id: state.run.root_run_id })).filter((r) => r.parent_run_id === runId).map((r) => r.run_id);
    const children = await Promise.all([...new Set([...childIds, ...state.child_run_ids])].map((id) => this.view(id)));
    const why = rootEnded ? 'its root run has ended and nobody carries it' : 'nobody has carried it';
    const resolution = resolveAbandoned(view, { parent, children }, `no event for ${Math.round(idleFor / 1000)} s; ${why}`);
    if (!resolution) return null;
    try {
      await new RunSession(this.runs, state.run, state, version).decide({ type: 'Resolve', events: resolution.events }, 'resolved');
    } catch (err) {
      if (err instanceof ConcurrencyError) return 'left'; // a worker advanced the run: it is not abandoned
      // A resolution the lifecycle refuses is a bug in it for this one run: logged, and the sweep goes on with the rest.
      if (err instanceof RunLifecycleViolation) {
        this.logger.error({ msg: 'resolution refused by the run lifecycle; run left open', run_id: runId, error: err.message });
        return 'left';
      }
      throw err;
    }
    return { run_id: runId, run_kind: state.run.run_kind, outcome: resolution.outcome, basis: resolution.basis };
  }

  private async view(runId: string): Promise<RunView> {
    const { state, events } = await this.runs.load(runId);
    return runView(runId, state, events);
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
