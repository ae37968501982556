/**
 * `runledger runs tail`: follows run events as the log stores them, from the moment it was asked, reading the log in
 * order (an operator creates no consumer: direct gets). The live feed (rl.live.run.*.*: the server's copy of each stored
 * commit of decision's runs) says when to read on; a tick reads on without it, for the choke points' child runs,
 * which the log does not copy (LIVE_RUNS_REPUBLISHED), and for logs with no feed. Each run's summary is folded as its
 * events arrive (the runs-index fold), so the filters see the agent, case and user of runs created before the tail
 * started too (their first event is read once).
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { EventLog, LIVE_RUN_PREFIX, LOG_STREAM, LOG_SUBJECT_PREFIX, tryStoredEvents, type StoredEvent } from '@runledger/event-log';
import { evolveRunSummary, initialRunSummary, RunSummary } from '../../libs/runs/src/domain/run-summary';
import { SUBJECTS } from '../../libs/contracts/src/subjects';
import { eventDetail, printable, sealedErrorOf, terminalJson, time } from './format';
import { ConnectionRefused } from './connection';
import { ask } from './operator';

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

/**
 * The event's detail as `runs show` prints it: a run's failure text is sealed on the log (the operator holds no data
 * keys), so it is read from rl.runs.get, which opens it, as `runs show` does; if that is not answered, it stays "[sealed]".
 */
async function detailOpened(nc: NatsConnection, event: StoredEvent): Promise<string> {
  if (event.type !== 'RunFailed' || !sealedErrorOf(event)) return eventDetail(event);
  const run = await ask<{ error?: unknown }>(nc, SUBJECTS.runsGet, { run_id: event.metadata.stream_id }, 5_000).catch(() => null);
  return run?.error ? eventDetail({ ...event, data: { ...(event.data as object), error: run.error } }) : eventDetail(event);
}

/** How far before its own start a tail begins: the moment it was asked includes the shell starting the process. */
const ASKED_GRACE_MS = 1_000;

export async function tailRuns(nc: NatsConnection, o: TailOptions, since = new Date(performance.timeOrigin - ASKED_GRACE_MS)): Promise<number> {
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const log = new EventLog(js, jsm, { producer: 'runledger-cli', clock: { now: () => new Date() } });
  const runs = new Map<string, RunSummary>();
  const messages = nc.subscribe(`${LIVE_RUN_PREFIX}.*.*`); // rl.live.run.<owner>.<run_id> (issue 23)
  await nc.flush(); // subscribed: everything stored from now on arrives on the live feed
  let interrupted = false;
  const stop = () => {
    interrupted = true;
    messages.unsubscribe();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (!o.json) process.stderr.write('following runs (Ctrl-C to stop)\n');

  const show = async (event: StoredEvent) => {
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
    if (!tailMatches(summary, event, o)) return;
    if (o.json) process.stdout.write(`${terminalJson({ run_id: runId, seq: event.seq, index: event.index, type: event.type, recorded_at: event.metadata.recorded_at, data: event.data, run: summary })}\n`);
    else process.stdout.write(`${printable(`${time(event.metadata.recorded_at)}  ${runId}  ${summary.agent_name ?? '-'}  ${event.type}`)}${await detailOpened(nc, event)}\n`);
  };

  // The tail follows from the moment it was asked (the process's start, less a second), not from when it got connected.
  const info = await jsm.streams.info(LOG_STREAM);
  let next = info.state.messages > 0 ? await firstSeqSince(jsm, since, info.state.first_seq, info.state.last_seq) : info.state.last_seq + 1;
  let unread = false; // a copy came while the log was being read: read on at once
  let wake: (() => void) | undefined;
  let stopped = false;
  void (async () => {
    for await (const _copy of messages) {
      unread = true;
      wake?.();
    }
    stopped = true;
    wake?.();
  })();
  let failing = false;
  while (!stopped) {
    unread = false;
    try {
      const stored: StoredEvent[] = [];
      let readTo = next - 1;
      // Run messages only, each found by the server from `next` on (a few per read: the tail is near the log's end).
      // Not a commit of events (none then): the consumers dead-letter such messages.
      await log.messages(`${LOG_SUBJECT_PREFIX}.run.>`, next, Number.MAX_SAFE_INTEGER, (m) => {
        readTo = m.seq;
        stored.push(...tryStoredEvents(m));
      }, true);
      failing = false;
      // On past each commit once it is shown: a failure part-way reads on from the commit it stopped in.
      for (let i = 0; i < stored.length; i++) {
        await show(stored[i]);
        if (stored[i + 1]?.seq !== stored[i].seq) next = stored[i].seq + 1;
      }
      next = Math.max(next, readTo + 1);
    } catch (err) {
      // The bus is away (a nats-server restart): read on from the same place once it answers.
      if (!failing) process.stderr.write(`${printable(`the log did not answer (${(err as Error).message}); still following`)}\n`);
      failing = true;
    }
    if (stopped || unread) continue;
    await new Promise<void>((resolve) => {
      const tick = setTimeout(resolve, READ_ON_MS);
      wake = () => (clearTimeout(tick), resolve());
    });
    wake = undefined;
  }
  // Not asked to stop: the connection closed for good (it reconnects through restarts; see connectCli `follows`).
  if (!interrupted) throw new ConnectionRefused('the connection to NATS closed; the tail stopped');
  return 0;
}

/** How long the tail waits, with no copy on the live feed, before it reads the log on (child runs are not copied). */
const READ_ON_MS = 500;

/**
 * The first log sequence stored at or after `since`: a binary search on the messages' stored times (nats-server
 * before 2.11 has no get by time), a handful of direct gets however long the log.
 */
async function firstSeqSince(jsm: JetStreamManager, since: Date, first: number, last: number): Promise<number> {
  let lo = first;
  let hi = last + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const m = await jsm.streams.getMessage(LOG_STREAM, { seq: mid }).catch(() => null);
    if (m && m.time.getTime() < since.getTime()) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
