import { Inject, Injectable } from '@nestjs/common';
import type { CallerRun, CallerRunEvents, RunCancelResult } from '@runledger/contracts';
import type { StoredEvent } from '@runledger/event-log';
import { AppError, settingNumber } from '@runledger/kernel';
import { RUNTIME, ServiceRuntime } from '@runledger/messaging';
import { callersRun, isCallersRun, isTerminal, LoadedRun, loadCallersRun, notCallers, RunRepository } from '@runledger/runs';
import { forCaller } from '../task-assistant/caller-scope';
import { RunCancellation } from './run-cancellation';

/** A follow request (rl.caller.<caller>.runs.events). */
type FollowQuery = { run_id: string; after?: number; wait_ms?: number; limit?: number };

/** Events in one answer of a follow request when the caller names no limit. */
const DEFAULT_EVENTS_LIMIT = 200;

/**
 * What a caller may do with the runs it started (issue 26; rl.caller.<identity>.runs.*): read one, follow it, cancel
 * it. Every entry goes through loadCallersRun: a run that is not this caller's (its RunCreated, or its root's for a
 * run decision started inside the caller's tree, records another caller or none) is RUN.NOT_FOUND.
 *
 * Following is a request, not a subscription: the live feed (rl.live.run.*) carries every run of every caller, so
 * callers get no subscription on it. A follow request answers with the run's events after a log position; when there
 * are none yet it waits (long poll, at most wait_ms) on the feed here, in decision, for the run's next commit. A wait
 * holds a subscription and a run in memory: one caller may have RL_CALLER_WAITS of them at once and decision
 * RL_CALLER_WAITS_TOTAL (a caller asking 16,000 at once ran it out of memory); beyond, REQUEST.RATE_LIMITED.
 */
@Injectable()
export class CallerRuns {
  /** Follow requests waiting now, per caller and in all (see waitingFor). */
  private readonly waiting = new Map<string, number>();
  private waitingTotal = 0;

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime, private readonly runs: RunRepository, private readonly cancellation: RunCancellation) {}

  async get(caller: string, runId: string): Promise<CallerRun> {
    const loaded = await loadCallersRun(this.runs, runId, caller);
    // A door's task run: its decision's tool calls name the user as the caller sent it, as the reply did.
    return forCaller(viewOf(loaded), loaded.state.run?.user_id, caller);
  }

  /**
   * The run's events after `after`. With wait_ms, an answer that would be empty waits for the run's next commit; so
   * does one for a run not in the log yet (a caller following the run it just asked for, before its worker opened
   * it): it is checked once it has its opening, and a run that never comes, or is not the caller's, is RUN.NOT_FOUND.
   */
  events(caller: string, q: FollowQuery): Promise<CallerRunEvents> {
    // Counted before anything is read, whether it waits or not: whether it would wait says which runs exist.
    return q.wait_ms ? this.waitingFor(caller, () => this.eventsAfter(caller, q)) : this.eventsAfter(caller, q);
  }

  /** Runs `wait` as one of `caller`'s waiting follow requests, or refuses it when too many wait already. */
  private async waitingFor<T>(caller: string, wait: () => Promise<T>): Promise<T> {
    const mine = this.waiting.get(caller) ?? 0;
    if (mine >= settingNumber('RL_CALLER_WAITS') || this.waitingTotal >= settingNumber('RL_CALLER_WAITS_TOTAL')) {
      throw new AppError('REQUEST.RATE_LIMITED', 'Too many follow requests are waiting; retry once one is answered.');
    }
    this.waiting.set(caller, mine + 1);
    this.waitingTotal++;
    try {
      return await wait();
    } finally {
      this.waitingTotal--;
      const left = (this.waiting.get(caller) ?? 1) - 1;
      if (left) this.waiting.set(caller, left);
      else this.waiting.delete(caller);
    }
  }

  private async eventsAfter(caller: string, q: FollowQuery): Promise<CallerRunEvents> {
    const after = q.after ?? 0;
    let loaded = await this.runs.load(q.run_id);
    // Another caller's run is answered as one that does not exist: after the wait an unknown id would get.
    if (loaded.state.run && !(await isCallersRun(this.runs, loaded.state.run, caller))) {
      if (q.wait_ms) await new Promise((resolve) => setTimeout(resolve, q.wait_ms));
      throw notCallers();
    }
    if (!loaded.events.some((e) => e.seq > after) && !isTerminal(loaded.state) && q.wait_ms) loaded = await this.nextCommit(q.run_id, after, q.wait_ms);
    await callersRun(this.runs, loaded, caller);
    const events = upToLimit(loaded.events.filter((e) => e.seq > after), q.limit ?? DEFAULT_EVENTS_LIMIT);
    const next = events.length ? events[events.length - 1].seq : after;
    return {
      run_id: q.run_id,
      events: forCaller(events.map((e) => ({ seq: e.seq, index: e.index, type: e.type, data: e.data, recorded_at: e.metadata.recorded_at })), loaded.state.run?.user_id, caller),
      next,
      // Ended, and the caller has been given everything up to the end.
      terminal: isTerminal(loaded.state) && next >= loaded.version,
      status: loaded.state.status,
    };
  }

  /** The run once it has a commit after `after`, or as it is when wait_ms passes first. */
  private async nextCommit(runId: string, after: number, waitMs: number): Promise<LoadedRun> {
    // Subscribed before the read: a commit stored in between is either read or heard.
    // A caller's runs are agent runs, decision's own (permissions.yaml: the live feed is per owner).
    const live = await this.runs.log.liveSubject(RunRepository.ref(runId, 'decision'));
    const sub = live ? this.runtime.nc.subscribe(live, { max: 1 }) : null;
    try {
      const loaded = await this.runs.load(runId);
      if (!sub || loaded.events.some((e) => e.seq > after)) return loaded;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        (async () => { for await (const _m of sub) return; })(),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs))),
      ]);
      clearTimeout(timer);
      return await this.runs.load(runId);
    } finally {
      sub?.unsubscribe();
    }
  }

  async cancel(caller: string, runId: string, reason: string | undefined): Promise<RunCancelResult> {
    await loadCallersRun(this.runs, runId, caller);
    return this.cancellation.request(runId, reason ?? `cancelled by caller ${caller}`, `caller:${caller}`);
  }
}

/**
 * The whole commits that fit in `limit` events, and never part of a commit, so the next request (`after`: the last
 * commit answered) loses and repeats nothing, whatever the client: a first commit larger than `limit` comes alone.
 */
export function upToLimit(events: readonly StoredEvent[], limit: number): StoredEvent[] {
  if (events.length <= limit) return [...events];
  let end = 0;
  for (let i = 0; i < events.length; i++) {
    const commitEnds = i + 1 === events.length || events[i + 1].seq !== events[i].seq;
    if (!commitEnds) continue;
    if (i + 1 > limit && end > 0) break;
    end = i + 1;
    if (end >= limit) break;
  }
  return events.slice(0, end);
}

function viewOf({ state, version }: LoadedRun): CallerRun {
  const run = state.run!;
  return {
    run_id: run.run_id, version, status: state.status as CallerRun['status'], agent_name: run.agent_name,
    ...(run.case_id ? { case_id: run.case_id } : {}), root_run_id: run.root_run_id,
    input_artifacts: run.input_artifacts as CallerRun['input_artifacts'], output_artifacts: state.output_artifacts as CallerRun['output_artifacts'],
    child_run_ids: state.child_run_ids,
    ...(state.result !== undefined && state.result !== null ? { result: state.result as CallerRun['result'] } : {}),
    ...(state.error ? { error: state.error as CallerRun['error'] } : {}),
    ...(state.created_at ? { created_at: state.created_at } : {}),
    ...(state.updated_at ? { updated_at: state.updated_at } : {}),
  };
}
