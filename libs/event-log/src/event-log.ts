import { headers as natsHeaders, MsgHdrs } from '@nats-io/transport-node';
import { JetStreamClient, JetStreamManager, type PubAck, type StreamConfig } from '@nats-io/jetstream';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AppError, Clock, deterministicUuid, LruMap } from '@runledger/kernel';
import { eventSpanAttributes, failedRunOutcome, markRunFailed, messagingAttributes, spansKeepAttributes } from '@runledger/telemetry';
import { AggregateRef } from './aggregate-ref';
import { sealAll, type EventCodec } from './codec';
import { encodeCommit, EventEnvelope, NewEvent, newEnvelope, StoredEvent, storedAt } from './envelope';
import { liveSubjectOf, LOG_STREAM, LOG_SUBJECT_PREFIX } from './stream';
import { storedEvents, tryStoredEvents, writerHeaders } from './stored-event';
import { ConcurrencyError, isNoMessage, jsErrorCode, JS_WRONG_LAST_SEQUENCE, readFailed, UnreadableMessageError } from './log-errors';
import { connectionOf, directGet, nextMatching, nextMatchingOnLeader, readSequences, StoredMessage, storedMessageOf, subjectMatcher } from './direct-reads';
import { readByConsumer } from './consumer-reads';
import { requireAppendedOn, sameCommit, versionSlotId } from './commit-identity';

export interface AppendOptions {
  /**
   * Aggregate version the decision was made on (0: the aggregate must not exist yet). Omit it only where order
   * carries no meaning (an inbox of independent commands, dead letters); every aggregate append states it.
   */
  expectedVersion?: number;
  /** The command that produced these events: event ids derive from it and the expected version (the msgID from it without a version), so a retried command deduplicates. */
  commandId: string;
}

export interface AppendResult {
  /** The aggregate version after the append. */
  version: number;
  events: StoredEvent[];
  /** True when every event was already in the log (a retried command). */
  duplicate: boolean;
}

const tracer = trace.getTracer('runledger.event-log');

/**
 * The append-only log on JetStream. An append is one message, a commit of its events (see appendInSpan), idempotent
 * (msgID) and serialised per aggregate with `expect.lastSubjectSequence`; reads and replays go through direct gets (no
 * consumer: see direct-reads.ts; the admin's ranges through one, see consumer-reads.ts) and hand out events, each at its
 * position (stream sequence, index in the commit).
 */
export class EventLog {
  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    /**
     * `mayCreateConsumers`: this identity may create consumers on the log (the bootstrap admin alone may): a range of
     * the log is read through one (consumer-reads.ts) as far as it can be, the rest by direct gets as readers read.
     */
    private readonly opts: { producer: string; clock: Clock; stream?: string; codec?: EventCodec; mayCreateConsumers?: boolean },
  ) {}

  /** The service this log appends as (every event's metadata.producer). */
  get producer(): string {
    return this.opts.producer;
  }

  /** The clock the log stamps commits with (time is data: folds read it from recorded_at, never from a clock). */
  get clock(): Clock {
    return this.opts.clock;
  }

  /** A read event as producers wrote it (sealed data opened; erased data as the erased marker). */
  open<E extends EventEnvelope>(event: E): E | Promise<E> {
    return this.opts.codec ? this.opts.codec.open(event) : event;
  }

  private get stream(): string {
    return this.opts.stream ?? LOG_STREAM;
  }

  async append(ref: AggregateRef, events: NewEvent[], options: AppendOptions): Promise<AppendResult> {
    // The subject with its id as `{id}` (rl.log.run.decision.{id}): a bounded span name whatever the aggregate.
    const template = ref.subject.endsWith(`.${ref.id}`) ? `${ref.subject.slice(0, -ref.id.length)}{id}` : `${LOG_SUBJECT_PREFIX}.${ref.kind}.{id}`;
    const span = tracer.startSpan(`publish ${template}`, {
      kind: SpanKind.PRODUCER,
      // One message whatever the number of events (no messaging batch): the commit's size is an attribute of its own.
      ...(spansKeepAttributes() ? { attributes: { ...messagingAttributes({ operation: 'publish', subject: ref.subject, template }), 'rl.commit.event_count': events.length } } : {}),
    });
    // The span that carries this write (a request's, a consumer's): a run it ends failed or denied marks it too.
    const carrier = trace.getActiveSpan();
    try {
      const result = await context.with(trace.setSpan(context.active(), span), () => this.appendInSpan(ref, events, options));
      if (span.isRecording()) span.setAttributes(eventSpanAttributes(result.events));
      const failed = failedRunOutcome(result.events);
      if (failed) for (const s of [span, carrier]) markRunFailed(s, failed);
      return result;
    } catch (err) {
      span.recordException(err as Error);
      throw err;
    } finally {
      span.end();
    }
  }

  /**
   * One append is one message, a commit of all its events (LOG_FORMAT): stored whole or not at all, under the
   * aggregate's expected version (`expect.lastSubjectSequence`, with a msgID per version: see versionSlotId). Event
   * ids derive from the command, so a retried command is recognised and answered with what the log holds.
   */
  private async appendInSpan(ref: AggregateRef, events: NewEvent[], options: AppendOptions): Promise<AppendResult> {
    if (!events.length) return { version: options.expectedVersion ?? (await this.version(ref)), events: [], duplicate: false };
    const carrier: Record<string, string> = {};
    propagation.inject(context.active(), carrier);
    const stamp = { stream_id: ref.id, command_id: options.commandId, producer: this.opts.producer, recorded_at: this.opts.clock.now().toISOString(), traceparent: carrier.traceparent, tracestate: carrier.tracestate };
    // Event ids derive from the command and the version it is appended on, so a retry makes the same ones, and one id
    // names one event in the log: a command id used again on a later version (a repeated label) makes other ids, never a
    // second event under an id the audit chain has already recorded with other data.
    const at = options.expectedVersion === undefined ? [] : [options.expectedVersion];
    const envelopes = events.map((event, index) => newEnvelope(event, deterministicUuid(options.commandId, ref.subject, ...at, index), stamp));
    const codec = this.opts.codec;
    const written = codec ? await sealAll(codec, envelopes) : envelopes;
    const headers = natsHeaders();
    for (const [k, v] of Object.entries(carrier)) headers.set(k, v);
    writerHeaders(envelopes.map((e) => e.type), headers);
    const version = options.expectedVersion;
    const expect = version !== undefined ? { lastSubjectSequence: version } : undefined;
    let ack: PubAck;
    try {
      ack = await this.js.publish(ref.subject, encodeCommit(written), { msgID: version !== undefined ? versionSlotId(ref.subject, version) : envelopes[0].metadata.event_id, headers, ...(expect ? { expect } : {}) });
    } catch (err) {
      if (jsErrorCode(err) !== JS_WRONG_LAST_SEQUENCE || version === undefined) throw err;
      // Someone took the version first: this command itself (an earlier attempt whose acknowledgement was lost), or another.
      const next = await nextMatching(this.jsm, this.stream, ref.subject, version + 1);
      const taken = next ? await this.openAll(tryStoredEvents(next)) : [];
      if (next && sameCommit(taken, envelopes)) return { version: next.seq, events: taken, duplicate: true };
      throw new ConcurrencyError(ref.subject, version);
    }
    if (!ack.duplicate) return { version: ack.seq, events: envelopes.map((envelope, index) => storedAt(envelope, ack.seq, index, ref.subject)), duplicate: false };
    // A duplicate is whatever the log already holds under that id, not what this caller sent now. It must be this
    // command's commit, event for event: another command's commit on the same version, or a message that holds other
    // events under the first one's id (a prefix stored by a format-1 release, one event per message), is a conflict to
    // decide again on, never this append's outcome.
    const stored = await this.commitAt(ack.seq);
    if (!sameCommit(stored, envelopes)) throw new ConcurrencyError(ref.subject, version ?? -1);
    return { version: ack.seq, events: stored, duplicate: true };
  }

  /** The events of the message at `seq` as the log holds them (sealed data opened); a failed read is an error, never a guess. */
  private async commitAt(seq: number): Promise<StoredEvent[]> {
    const msg = await this.jsm.streams.getMessage(this.stream, { seq }).catch(readFailed);
    if (!msg) throw new AppError('DEPENDENCY.DOWN', 'The event log did not answer with a stored commit; retry.');
    return this.openAll(storedEvents(storedMessageOf(msg)));
  }

  /** Events as producers wrote them; no microtask per event when nothing is sealed. */
  private async openAll(events: StoredEvent[]): Promise<StoredEvent[]> {
    if (!this.opts.codec) return events;
    return Promise.all(events.map((e) => this.open(e)));
  }

  /** The aggregate version: the stream sequence of its last event, 0 if it has none. */
  async version(ref: AggregateRef | string): Promise<number> {
    return (await this.lastMessage(ref))?.seq ?? 0;
  }

  /** The aggregate's last event (the last of its last commit), in the same one get (the leader answers); null if it has none. */
  async last(ref: AggregateRef | string): Promise<StoredEvent | null> {
    const event = (await this.lastEvents(ref)).pop();
    return event ? this.open(event) : null;
  }

  /**
   * Every event of the aggregate's last commit, in one get (the leader answers); none if it has no events.
   * `sealed`: the events as stored, sealed fields left sealed (a reader of ids, types and unsealed fields only).
   */
  async lastCommit(ref: AggregateRef | string, opts: { sealed?: boolean } = {}): Promise<StoredEvent[]> {
    const events = await this.lastEvents(ref);
    return opts.sealed ? events : this.openAll(events);
  }

  /**
   * The events of the aggregate's last commit, sealed as stored. When the subject's last message holds none (no
   * writer made it: see writerMessageProblem), the commit before it is read: a message the server stored after a
   * run's terminal event must not hide that the run ended. Rare: the subject is read from its start once, then only
   * past what was read (a flood of stored answers on one subject costs a get or two each, probe finding: rereading
   * the audit chain from its start for each one kept the ledger from ever appending again).
   */
  private async lastEvents(ref: AggregateRef | string): Promise<StoredEvent[]> {
    const msg = await this.lastMessage(ref);
    if (!msg) return [];
    const events = tryStoredEvents(msg);
    if (events.length) return events;
    // Remembered per subject: a message stored after a run ended stays its last for good, and would have every later
    // read of it read the whole run (anyone with JetStream API rights can cause it). The log never changes behind.
    const known = this.beforeForeign.get(msg.subject);
    if (known && known.through >= msg.seq) return [...known.commit]; // a copy: callers take events off the list
    let found = known?.commit ?? [];
    for (let m = await this.nextOnSubject(msg.subject, (known?.through ?? 0) + 1); m && m.seq < msg.seq; m = await this.nextOnSubject(msg.subject, m.seq + 1)) {
      const commit = tryStoredEvents(m);
      if (commit.length) found = commit;
    }
    this.beforeForeign.set(msg.subject, { through: msg.seq, commit: [...found] });
    return found;
  }

  /** Per subject: how far it was read (through a foreign last message) and the last writer's commit up to there (see lastEvents). */
  private readonly beforeForeign = new LruMap<string, { through: number; commit: StoredEvent[] }>(1_000);

  /** The next message of `subject` from `seq`: any replica's answer, the leader's where a replica has none (it may lag). */
  private async nextOnSubject(subject: string, seq: number): Promise<StoredMessage | null> {
    return (await nextMatching(this.jsm, this.stream, subject, seq)) ?? this.leaderNext(subject, seq);
  }

  private async lastMessage(ref: AggregateRef | string): Promise<StoredMessage | null> {
    const subject = typeof ref === 'string' ? ref : ref.subject;
    // A single-copy log answers a direct get itself: no API request, no advisory, no leader to ask. With replicas,
    // only the leader's answer is the aggregate's version (a lagging replica's would let a stale decision through).
    if (!(await this.replicated())) return directGet(this.jsm, this.stream, { last_by_subj: subject });
    try {
      const msg = await this.jsm.streams.getMessage(this.stream, { last_by_subj: subject });
      return msg ? storedMessageOf(msg) : null;
    } catch (err) {
      if (isNoMessage(err)) return null;
      throw readFailed(err);
    }
  }

  private logConfig?: Promise<StreamConfig | null>;

  /**
   * The log's settings as provisioned, read once per process (replicas and the live feed are set when the log is
   * created, and services restart with it); null while the read fails (asked again next time).
   */
  private config(): Promise<StreamConfig | null> {
    this.logConfig ??= this.jsm.streams.info(this.stream).then((i) => i.config, () => {
      this.logConfig = undefined;
      return null;
    });
    return this.logConfig;
  }

  /** The subject the server republishes an aggregate's stored commits on, or null (see liveSubjectOf: a follower then polls). */
  async liveSubject(ref: AggregateRef | string): Promise<string | null> {
    return liveSubjectOf((await this.config())?.republish, typeof ref === 'string' ? ref : ref.subject);
  }

  /** Whether the log has replicas (a direct get may then be answered by one that lags); a failed look says yes. */
  private async replicated(): Promise<boolean> {
    const config = await this.config();
    return config ? (config.num_replicas ?? 1) > 1 : true;
  }

  /** The aggregate's first event (its creation record), in one direct get; null if it has none. */
  async first(ref: AggregateRef | string): Promise<StoredEvent | null> {
    const subject = typeof ref === 'string' ? ref : ref.subject;
    // null means "no such aggregate" only when the server said so; a read failure is retryable, never "absent".
    const msg = await directGet(this.jsm, this.stream, { next_by_subj: subject, seq: 1 });
    if (!msg) {
      // Any replica may answer a direct get: one that lags says "none" for an aggregate the leader has. Only the
      // leader's "none" is an answer (a run's caller check would otherwise record a permanent UNKNOWN_CALLER).
      if ((await this.replicated()) && (await this.version(subject)) > 0) throw new AppError('DEPENDENCY.DOWN', 'The event log replica is behind; retry.');
      return null;
    }
    // A message no writer made before the creation record (stored on a predictable subject ahead of it) is skipped:
    // it must not hide who created the aggregate. Nor may a damaged creation record: the commit read first names it.
    for (let m: StoredMessage | null = msg, previous = 0; m; previous = m.seq, m = await this.nextOnSubject(subject, m.seq + 1)) {
      requireAppendedOn(m, previous);
      const [event] = tryStoredEvents(m);
      if (event) return this.open(event);
    }
    return null;
  }

  /**
   * Every event of one aggregate, in order (optionally from a sequence: read only the tail after a snapshot), by
   * direct gets, one round trip per commit (readers create no consumer: see direct-reads.ts). The gets end at the
   * version the stream leader gave; with replicas, one that lags (direct gets may be answered by any replica) is
   * noticed and the leader answers the rest.
   */
  async read(ref: AggregateRef | string, fromSeq = 1): Promise<StoredEvent[]> {
    return (await this.readAggregate(ref, fromSeq)).events;
  }

  /**
   * The aggregate's events (as `read`) and its version as read: the sequence of the subject's last message, which a
   * decision on these events appends after. That is the last event's, unless the last message holds no events: a
   * JetStream API answer or acknowledgement an identity had the server store there as a request's reply subject (the
   * bus cannot refuse that, probe finding). Its own sequence then: an append expecting the last event's would
   * conflict for good, and the aggregate could never move again.
   */
  async readAggregate(ref: AggregateRef | string, fromSeq = 1): Promise<{ events: StoredEvent[]; version: number }> {
    const subject = typeof ref === 'string' ? ref : ref.subject;
    const last = await this.version(subject);
    const out: StoredEvent[] = [];
    // Per subject: a filter with a wildcard reads several aggregates (a run under each owner's name), each its own chain.
    const previousOf = new Map<string, number>();
    for (let next = fromSeq; next <= last;) {
      const msg = await this.nextOnSubject(subject, next);
      // A run decided on a prefix of itself could repeat an effect or miss a terminal event: short is an error.
      if (!msg || msg.seq > last) throw new AppError('DEPENDENCY.DOWN', 'The event log answered part of an aggregate; retry.');
      // Read from its start, an aggregate's first commit was appended on version 0 (see requireAppendedOn).
      const previous = previousOf.get(msg.subject) ?? (fromSeq === 1 ? 0 : undefined);
      if (previous !== undefined) requireAppendedOn(msg, previous);
      previousOf.set(msg.subject, msg.seq);
      // Read as the scan reads: sealed data opened by the log's codec.
      for (const event of await this.openAll(tryStoredEvents(msg))) out.push(event);
      next = msg.seq + 1;
    }
    return { events: out, version: last };
  }

  /** The next message of `subject` from `seq` as the stream leader has it (a replica answered none); null when the log is not replicated. */
  private async leaderNext(subject: string, seq: number): Promise<StoredMessage | null> {
    return (await this.replicated()) ? nextMatchingOnLeader(this.jsm, this.stream, subject, seq) : null;
  }

  /**
   * Folds every event matching `filter` (default: the whole log) from `fromSeq` up to the log's current end. The
   * fold is the same function live processing uses, so replay equals live. `sparse` (the default for a filter): one
   * get per matching message, the server skipping the rest; otherwise every message is read (pipelined) and
   * filtered here, the fast way through most of the log.
   */
  async replay<S>(fold: (state: S, event: StoredEvent) => S, initial: S, opts: { filter?: string; fromSeq?: number; sparse?: boolean } = {}): Promise<{ state: S; lastSeq: number }> {
    const info = await this.jsm.streams.info(this.stream).catch(readFailed);
    const end = info.state.last_seq;
    let state = initial;
    let lastSeq = 0;
    if (end >= (opts.fromSeq ?? 1) && info.state.messages > 0) {
      const from = Math.max(opts.fromSeq ?? 1, info.state.first_seq);
      await this.scan(opts.filter ?? `${LOG_SUBJECT_PREFIX}.>`, from, end, (event) => {
        state = fold(state, event);
        lastSeq = event.seq;
      }, opts.sparse ?? opts.filter !== undefined);
    }
    return { state, lastSeq };
  }

  /**
   * The events matching `filter` whose stream sequence is in [fromSeq, toSeq], in log order; never a part of them. A
   * message that is not events holds none (see tryStoredEvents): `onUndecodable` hears of each, in log order.
   */
  async range(filter: string, fromSeq: number, toSeq: number, onUndecodable?: (m: StoredMessage, err: unknown) => void): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    await this.scan(filter, fromSeq, toSeq, (e) => out.push(e), false, onUndecodable);
    return out;
  }

  /**
   * The stored messages of [fromSeq, untilSeq] matching `filter`, in log order, each once, by direct gets; a sequence
   * the log cannot hand out (it never deletes: damaged) is UnreadableMessageError, never skipped. Sparse: one get per
   * matching message (the server finds the next; it cannot tell a damaged message from another subject's).
   */
  async messages(filter: string, fromSeq: number, untilSeq: number, onMessage: (m: StoredMessage) => void | Promise<void>, sparse = false): Promise<void> {
    if (sparse) {
      for (let next = fromSeq; next <= untilSeq;) {
        const msg = await nextMatching(this.jsm, this.stream, filter, next);
        if (!msg || msg.seq > untilSeq) return;
        const handled = onMessage(msg);
        if (handled instanceof Promise) await handled;
        next = msg.seq + 1;
      }
      return;
    }
    // Past the log's end nothing is stored: a sequence there is no damage, so the range ends where the log does.
    const last = (await this.jsm.streams.info(this.stream).catch(readFailed)).state.last_seq;
    const until = Math.min(untilSeq, last);
    const matches = subjectMatcher(filter);
    const from = this.opts.mayCreateConsumers ? await readByConsumer(this.jsm, this.stream, fromSeq, until, (m) => (matches(m.subject) ? onMessage(m) : undefined)) : fromSeq;
    // No promise per message unless a handler needs one: a replay reads millions.
    await readSequences(connectionOf(this.jsm), this.stream, from, until, (read) => {
      if ('missing' in read) return this.leaderAt(read.seq).then((msg) => (matches(msg.subject) ? onMessage(msg) : undefined));
      return matches(read.subject) ? onMessage(read) : undefined;
    });
  }

  /** The message at `seq` as the stream leader has it (a direct get answered none); none at all is a damaged log. */
  private async leaderAt(seq: number): Promise<StoredMessage> {
    const m = await this.jsm.streams.getMessage(this.stream, { seq }).catch((err: unknown) => {
      if (isNoMessage(err)) return null;
      throw readFailed(err);
    });
    if (!m) throw new UnreadableMessageError(seq);
    return storedMessageOf(m);
  }

  /** The events of `messages`, opened (a message that is not events, published by mistake, holds none: readers skip it). */
  private async scan(filter: string, fromSeq: number, untilSeq: number, onEvent: (e: StoredEvent) => void, sparse: boolean, onUndecodable?: (m: StoredMessage, err: unknown) => void): Promise<void> {
    await this.messages(filter, fromSeq, untilSeq, (m) => this.each(tryStoredEvents(m, onUndecodable && ((err) => onUndecodable(m, err))), onEvent), sparse);
  }

  /** Hands each event on opened, in order; a promise only once an event's sealed data must be waited for. */
  each(events: StoredEvent[], onEvent: (e: StoredEvent) => void): void | Promise<void> {
    for (let i = 0; i < events.length; i++) {
      const opened = this.open(events[i]); // without sealed fields nothing to wait for (no microtask per event)
      if (opened instanceof Promise) {
        return opened.then(async (first) => {
          onEvent(first);
          for (let j = i + 1; j < events.length; j++) onEvent(await this.open(events[j]));
        });
      }
      onEvent(opened);
    }
  }
}

export type { MsgHdrs };
