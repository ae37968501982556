/**
 * `runledger runs tail`: follows new run events live on the log's live feed (rl.live.run.*: the server republishes
 * each stored run event there; an operator creates no consumer). Each run's summary is folded as its events arrive (the runs-index fold), so the
 * filters see the agent, case and user of runs created before the tail started too (their first event is read once).
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { EventLog, LIVE_RUN_PREFIX, liveEvents } from '@runledger/event-log';
import { evolveRunSummary, initialRunSummary, RunSummary } from '../../libs/runs/src/domain/run-summary';
import { eventDetail, time } from './format';

export interface TailOptions {
  agent?: string;
  case?: string;
  user?: string;
  failed: boolean;
  all: boolean;
  events: boolean;
  json: boolean;
}

const LIFECYCLE = new Set(['RunCreated', 'RunStarted', 'RunCancelRequested', 'RunCompleted', 'RunFailed', 'RunDenied', 'RunCancelled']);

export function tailMatches(s: RunSummary, e: { type: string }, o: TailOptions): boolean {
  if (!o.all && s.parent_run_id) return false;
  if (o.agent && s.agent_name !== o.agent) return false;
  if (o.case && s.case_id !== o.case) return false;
  if (o.user && s.user_id !== o.user) return false;
  if (o.failed) return s.failed && (e.type === 'RunFailed' || e.type === 'RunDenied');
  return o.events || LIFECYCLE.has(e.type);
}

export async function tailRuns(nc: NatsConnection, o: TailOptions): Promise<number> {
  const js = jetstream(nc);
  const log = new EventLog(js, await jetstreamManager(nc), { producer: 'runledger-cli', clock: { now: () => new Date() } });
  const runs = new Map<string, RunSummary>();
  const messages = nc.subscribe(`${LIVE_RUN_PREFIX}.*`);
  await nc.flush(); // subscribed before "following" is said: nothing stored from then on is missed
  const stop = () => messages.unsubscribe();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (!o.json) process.stderr.write('following runs (Ctrl-C to stop)\n');
  for await (const m of messages) {
    // Not a commit of events (none then): the consumers dead-letter such messages.
    for (const event of liveEvents(m)) {
      const runId = event.metadata.stream_id;
      let summary = runs.get(runId);
      if (!summary) {
        summary = initialRunSummary(runId);
        // A run created before the tail started: its RunCreated carries the agent, case and user.
        const first = event.type === 'RunCreated' ? null : await log.first(event.subject);
        if (first) summary = evolveRunSummary(summary, first);
      }
      summary = evolveRunSummary(summary, event);
      runs.set(runId, summary);
      if (!tailMatches(summary, event, o)) continue;
      if (o.json) process.stdout.write(`${JSON.stringify({ run_id: runId, seq: event.seq, index: event.index, type: event.type, recorded_at: event.metadata.recorded_at, data: event.data, run: summary })}\n`);
      else process.stdout.write(`${time(event.metadata.recorded_at)}  ${runId}  ${summary.agent_name ?? '-'}  ${event.type}${eventDetail(event)}\n`);
    }
  }
  return 0;
}
