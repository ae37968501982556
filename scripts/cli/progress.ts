/**
 * Long operator reads (replay, audit verify, audit coverage) walk the log with a progress bar and a rate on
 * stderr, so stdout stays the result. On a terminal the bar redraws in place; otherwise one line a second.
 * There is no overall time limit: a large log simply takes longer, and the bar says how much longer.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { EventLog, LOG_STREAM, StoredEvent, tryStoredEvents } from '@runledger/event-log';

export class Progress {
  private readonly started = Date.now();
  private lastDraw = 0;
  private done = 0;

  constructor(private readonly label: string, private readonly total: number, private readonly out: NodeJS.WriteStream = process.stderr) {}

  /** `position` is how far through `total` we are (log sequence), `count` how many items were handled. */
  update(position: number, count: number, force = false): void {
    this.done = count;
    const now = Date.now();
    if (!force && now - this.lastDraw < (this.out.isTTY ? 100 : 1_000)) return;
    this.lastDraw = now;
    const fraction = this.total > 0 ? Math.min(1, position / this.total) : 1;
    const width = 30;
    const filled = Math.round(fraction * width);
    const rate = count / Math.max(0.001, (now - this.started) / 1_000);
    const line = `${this.label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}%  ${count.toLocaleString('en')} events  ${Math.round(rate).toLocaleString('en')} events/s`;
    this.out.write(this.out.isTTY ? `\r${line}` : `${line}\n`);
  }

  finish(position: number): void {
    this.update(position, this.done, true);
    if (this.out.isTTY) this.out.write('\n');
  }
}

/**
 * Reads every event matching `filter` from the start of the log up to its end as it is now (the horizon), by
 * direct gets (an operator creates no consumer), calling `onEvent` for each and drawing progress. Returns the
 * horizon. A stored message the log cannot hand out is UnreadableMessageError (LOG.UNREADABLE), with its sequence.
 * `mayCreateConsumers`: the command runs as the admin (a rebuild), who reads through one consumer (EventLog).
 */
export async function scanLog(nc: NatsConnection, filter: string, label: string, onEvent: (e: StoredEvent) => unknown, opts: { mayCreateConsumers?: boolean } = {}): Promise<{ horizon: number; count: number }> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(LOG_STREAM);
  const horizon = info.state.last_seq;
  const progress = new Progress(label, horizon);
  const log = new EventLog(jetstream(nc), jsm, { producer: 'runledger-cli', clock: { now: () => new Date() }, mayCreateConsumers: opts.mayCreateConsumers });
  let count = 0;
  if (info.state.messages > 0) {
    await log.messages(filter, info.state.first_seq, horizon, (m) => {
      // Not a writer's commit of events: nothing to fold (the consumers dead-letter such messages).
      const events = tryStoredEvents(m);
      // A callback may return a promise (opening sealed data): events are folded one at a time, in order, and a
      // message costs no promise when none does.
      for (let i = 0; i < events.length; i++) {
        const folded = onEvent(events[i]);
        count++;
        if (folded instanceof Promise) {
          return folded.then(async () => {
            for (let j = i + 1; j < events.length; j++, count++) await onEvent(events[j]);
            progress.update(m.seq, count);
          });
        }
      }
      progress.update(m.seq, count);
    });
  }
  progress.finish(horizon);
  return { horizon, count };
}
