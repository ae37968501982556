import { Inject, Injectable } from '@nestjs/common';
import type { CallerRun, CallerRunEvents, RunCancelResult } from '@runledger/contracts';
import type { StoredEvent } from '@runledger/event-log';
import { RUNTIME, ServiceRuntime } from '@runledger/messaging';
import { isTerminal, LoadedRun, loadCallersRun, RunRepository } from '@runledger/runs';
import { RunCancellation } from './run-cancellation';

/** Events in one answer of a follow request when the caller names no limit. */
const DEFAULT_EVENTS_LIMIT = 200;

/**
 * What a caller may do with the runs it started (issue 26; rl.caller.<identity>.runs.*): read one, follow it, cancel
 * it. Every entry goes through loadCallersRun: a run whose RunCreated does not record this caller is RUN.NOT_FOUND.
 *
 * Following is a request, not a subscription: the live feed (rl.live.run.*) carries every run of every caller, so
 * callers get no subscription on it. A follow request answers with the run's events after a log position; when there
 * are none yet it waits (long poll, at most wait_ms) on the feed here, in decision, for the run's next commit.
 */
@Injectable()
export class CallerRuns {
  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime, private readonly runs: RunRepository, private readonly cancellation: RunCancellation) {}

  async get(caller: string, runId: string): Promise<CallerRun> {
    return viewOf(await loadCallersRun(this.runs, runId, caller));
  }

  async events(caller: string, q: { run_id: string; after?: number; wait_ms?: number; limit?: number }): Promise<CallerRunEvents> {
    const after = q.after ?? 0;
    let loaded = await loadCallersRun(this.runs, q.run_id, caller);
    if (!loaded.events.some((e) => e.seq > after) && !isTerminal(loaded.state) && q.wait_ms) {
      // Subscribed before the second read: a commit stored between the two is either read or heard.
      const live = await this.runs.log.liveRunSubject(q.run_id);
      const sub = live ? this.runtime.nc.subscribe(live, { max: 1 }) : null;
      try {
        loaded = await this.runs.load(q.run_id);
        if (sub && !loaded.events.some((e) => e.seq > after)) {
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([
            (async () => { for await (const _m of sub) return; })(),
            new Promise<void>((resolve) => (timer = setTimeout(resolve, q.wait_ms))),
          ]);
          clearTimeout(timer);
          loaded = await this.runs.load(q.run_id);
        }
      } finally {
        sub?.unsubscribe();
      }
    }
    const events = upToLimit(loaded.events.filter((e) => e.seq > after), q.limit ?? DEFAULT_EVENTS_LIMIT);
    const next = events.length ? events[events.length - 1].seq : after;
    return {
      run_id: q.run_id,
      events: events.map((e) => ({ seq: e.seq, index: e.index, type: e.type, data: e.data, recorded_at: e.metadata.recorded_at })),
      next,
      // Ended, and the caller has been given everything up to the end.
      terminal: isTerminal(loaded.state) && next >= loaded.version,
      status: loaded.state.status,
    };
  }

  async cancel(caller: string, runId: string, reason: string | undefined): Promise<RunCancelResult> {
    await loadCallersRun(this.runs, runId, caller);
    return this.cancellation.request(runId, reason ?? `cancelled by caller ${caller}`, `caller:${caller}`);
  }
}

/** At most `limit` events, but never part of a commit: the next request starts after a whole commit. */
function upToLimit(events: StoredEvent[], limit: number): StoredEvent[] {
  if (events.length <= limit) return events;
  const lastSeq = events[limit - 1].seq;
  return events.filter((e) => e.seq <= lastSeq);
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
