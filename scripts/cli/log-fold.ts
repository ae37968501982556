/**
 * A fold of the log kept by an operator process (the console's pending approvals, its token spend): the first read
 * replays the matching events from the start, each later one only what the log added since. One read at a time:
 * two folding the same events into one state could interleave. The operator is one of the log's readers (direct
 * gets, no consumer).
 */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { EventLog, type StoredEvent } from '@runledger/event-log';

export class LogFold<S> {
  private log?: EventLog;
  private from = 1;
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly nc: NatsConnection, private readonly filter: string, private readonly fold: (state: S, event: StoredEvent) => S, private state: S) {}

  read(): Promise<S> {
    const next = this.last.then(() => this.readOnce(), () => this.readOnce());
    this.last = next;
    return next;
  }

  private async readOnce(): Promise<S> {
    this.log ??= new EventLog(jetstream(this.nc), await jetstreamManager(this.nc), { producer: 'runledger-cli', clock: { now: () => new Date() } });
    const { state, lastSeq } = await this.log.replay(this.fold, this.state, { filter: this.filter, fromSeq: this.from });
    this.state = state;
    this.from = Math.max(this.from, lastSeq + 1);
    return state;
  }
}
