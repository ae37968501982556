/**
 * `runledger runs tail`: follows new run events live through an ordered consumer on rl.log.run.* that starts
 * at the end of the log. Each run's summary is folded as its events arrive (the runs-index fold), so the
 * filters see the agent, case and user of runs created before the tail started too (their first event is read once).
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { EventLog, LOG_STREAM, messageEvents, StoredEvent } from '@runledger/event-log';
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
  const consumer = await js.consumers.get(LOG_STREAM, { filter_subjects: 'rl.log.run.*', deliver_policy: DeliverPolicy.New });
  const messages = await consumer.consume({ max_messages: 256 });
  const stop = () => void messages.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (!o.json) process.stderr.write('following runs (Ctrl-C to stop)\n');
  for await (const m of messages) {
    let events: StoredEvent[];
    try {
      events = messageEvents(m);
    } catch {
      continue; // not a commit of events; the consumers dead-letter it
    }
    for (const event of events) {
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
