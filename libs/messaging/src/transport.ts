import { Logger } from '@nestjs/common';
import { CustomTransportStrategy, MessageHandler, Server } from '@nestjs/microservices';
import { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { AckPolicy, ConsumerMessages, jetstream, JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import { lastValueFrom, isObservable } from 'rxjs';
import { AppError, isWireError, toWireError, WireError } from '@runledger/kernel';
import { EventLog, LOG_STREAM, aggregateRef, isBusFault, messageEvents, unreadableReason, type StoredEvent } from '@runledger/event-log';
import { contextFromTraceparent, eventSpanAttributes, extractTraceContext, logSubjectTemplate, messagingAttributes, observeConsumerLag, runledgerMetrics, SpanKind, spansKeepAttributes, withSpan } from '@runledger/telemetry';
import { isInboxSubject } from './callers';
import { decodeBounded, encodeJson, replyHeaders, REQUEST_ID_HEADER } from './codec';
import { ConsumerLease, type HandedPosition } from './consumer-lease';
import { ServiceHealth } from './health';
import { catchUpRange, ensureDurable, MAX_HANDLER_MS, PULL_EXPIRES_MS, redeliveryDelayMs } from './durable-consumer';
import { BatchConsumer, type BatchHost, type CatchUp, type Delivered, type Poisoned } from './batch-consumer';
import { BurstPull } from './burst-pull';

/** A durable's consumption: one delivery at a time (`consume`), or in bursts for a batch consumer. */
type Deliveries = ConsumerMessages | BurstPull;
import { HANDLER_KIND, LogConsumerOptions, MalformedPayload, MAX_REQUEST_BYTES } from './handlers';

export interface TransportDeps {
  service: string;
  nc: NatsConnection;
  /** Where durables are pulled and acked, as their consumer identity (see ServiceRuntime.consumerNc); else `nc`. */
  consumerNc?: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  log: EventLog;
  health?: ServiceHealth;
}

/**
 * The one adapter between NATS and Nest handlers. Request handlers get core NATS request/reply with a queue
 * group per service; log consumers get durable JetStream pull consumers. This is the only place that sees a
 * raw message, and the only place that owns the ack vocabulary (ack, nak with delay, working, term).
 */
export class RunledgerTransport extends Server implements CustomTransportStrategy {
  private readonly subscriptions: Subscription[] = [];
  private readonly consumers: Deliveries[] = [];
  private readonly leases: ConsumerLease[] = [];
  /** Requests and deliveries being handled right now: a graceful stop finishes them (see quiesce). */
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly log = new Logger('Transport');
  /** When a request with a reply subject that is no inbox was last said, per subject (answerable). */
  private readonly foreignReplyWarned = new Map<string, number>();
  private closing = false;

  /** What a batch consumer uses of this transport (see BatchConsumer). */
  private readonly batchHost: BatchHost = {
    log: () => this.deps.log,
    logger: this.log,
    closing: () => this.closing,
    track: (work) => this.track(work),
    invoke: (handler, payload, ctx) => this.invoke(handler, payload, ctx),
    poison: (m, durable, reason, err, settle) => this.poison(m, durable, reason, err, settle),
  };

  constructor(private readonly deps: TransportDeps) {
    super();
  }

  on(): void {
    throw new Error('RunledgerTransport does not emit events');
  }

  unwrap<T>(): T {
    return this.deps.nc as T;
  }

  async listen(callback: (err?: unknown) => void): Promise<void> {
    try {
      this.subscriptions.push(this.deps.nc.subscribe(`rl.health.${this.deps.service}`, { callback: (_e, m) => {
        if (this.answerable(`rl.health.${this.deps.service}`, m)) this.answerHealth(m);
      } }));
      for (const [pattern, handler] of this.messageHandlers) {
        const kind = handler.extras?.kind;
        if (kind === HANDLER_KIND.log) await this.bindLogConsumer(pattern, handler, handler.extras as unknown as LogConsumerOptions);
        else this.bindRequestHandler(pattern, handler);
      }
      callback();
    } catch (err) {
      callback(err);
    }
  }

  /**
   * A graceful stop's first step (SIGTERM: a rolling restart, a scale-in): take no more work, then finish, within
   * `withinMs`, what this instance has taken. A request routed here before the unsubscribe still reaches its handler
   * (the subscriptions drain, they are not dropped), and a request being handled is answered (its caller would
   * otherwise wait out its timeout and ask again); deliveries taken but not started go back at once (nak) for another
   * instance. What is still running after `withinMs` is left to the caller's retry and to redelivery (ack_wait).
   */
  async quiesce(withinMs: number): Promise<void> {
    this.closing = true;
    const finish = async () => {
      await Promise.all(this.subscriptions.map((s) => s.drain().catch(() => undefined)));
      // A consumer closes once its loop has handed back what it was given (and its handlers let the loop go on).
      await Promise.all(this.consumers.map((c) => c.close().catch(() => undefined)));
      while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
      return true;
    };
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([finish(), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), withinMs)))]);
    clearTimeout(timer);
    if (!finished) this.log.warn({ msg: 'stopping with work still in flight: left to retries and redelivery', in_flight: this.inFlight.size, waited_ms: withinMs });
  }

  /** Tracks `work` as in flight until it settles. */
  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work)).catch(() => undefined);
    return work;
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const s of this.subscriptions) if (!s.isClosed()) s.unsubscribe();
    await Promise.all(this.consumers.map((c) => c.close().catch(() => undefined)));
    await Promise.all(this.leases.map((l) => l.release()));
  }

  private answerHealth(m: Msg): void {
    const health = (this.deps.health ?? new ServiceHealth()).summary(!this.deps.nc.isClosed());
    m.respond(encodeJson({ service: this.deps.service, ...health, nats: 'connected' }), { headers: replyHeaders('ok') });
  }

  private bindRequestHandler(subject: string, handler: MessageHandler): void {
    const sub = this.deps.nc.subscribe(subject, {
      queue: this.deps.service,
      callback: (err, msg) => {
        if (!err && !this.answerable(subject, msg)) return;
        // A failure under the reply itself (the bus went away) must not become an unhandled rejection: the caller's
        // request times out and is retried; the process lives on.
        if (!err) this.track(this.onRequest(subject, handler, msg)).catch((e: unknown) => this.log.warn({ msg: 'request not answered', subject, error: (e as Error)?.message }));
      },
    });
    this.subscriptions.push(sub);
  }

  /**
   * A request whose reply subject is no inbox is dropped unprocessed (isInboxSubject: its answer would be published
   * where the asker may not publish, e.g. into the log). Said once a minute per subject, so a flood fills no log.
   */
  private answerable(subject: string, msg: Msg): boolean {
    if (!msg.reply || isInboxSubject(msg.reply)) return true;
    const now = Date.now();
    if ((this.foreignReplyWarned.get(subject) ?? 0) <= now - 60_000) {
      this.foreignReplyWarned.set(subject, now);
      this.log.warn({ msg: 'request dropped: its reply subject is not an inbox', subject, reply: msg.reply.slice(0, 128) });
    }
    return false;
  }

  private async onRequest(subject: string, handler: MessageHandler, msg: Msg): Promise<void> {
    // A client's id of the request (Rl-Request-Id, the same on each of its retries) ties its attempts together in traces.
    const requestId = msg.headers?.get(REQUEST_ID_HEADER).slice(0, 128);
    // Attributes only for spans that keep them (none while only the propagating tracer is installed, as in the bench).
    const attributes = spansKeepAttributes() ? { ...messagingAttributes({ operation: 'process', subject, consumerGroup: this.deps.service }), 'service.handler': this.deps.service, ...(requestId ? { 'rl.request_id': requestId } : {}) } : undefined;
    await withSpan(`process ${subject}`, { kind: SpanKind.CONSUMER, parent: extractTraceContext(msg.headers), attributes }, async (span) => {
      const limit = (handler.extras?.maxBytes as number | undefined) ?? MAX_REQUEST_BYTES;
      if (msg.data.length > limit) {
        return this.reply(msg, 'error', new AppError('REQUEST.TOO_LARGE', `The request is ${msg.data.length} bytes; ${subject} accepts at most ${limit}.`).toWire());
      }
      const decoded = decodeBounded(msg.data);
      if (!decoded.ok && !handler.extras?.acceptMalformed) return this.reply(msg, 'error', new AppError('REQUEST.INVALID', decoded.reason).toWire());
      const payload = decoded.ok ? decoded.value : new MalformedPayload(decoded.reason, msg.data);
      const started = performance.now();
      let outcome = 'ok';
      try {
        const result = await this.invoke(handler, payload, { subject: msg.subject, headers: msg.headers, reply: msg.reply });
        this.reply(msg, 'ok', result);
      } catch (err) {
        const wire = this.toWire(err, subject);
        outcome = wire.code;
        span.setAttribute('rl.error_code', wire.code);
        this.reply(msg, 'error', wire);
      } finally {
        runledgerMetrics().requestDuration.record((performance.now() - started) / 1_000, { 'messaging.destination.template': subject, 'runledger.outcome': outcome });
      }
    });
  }

  private reply(msg: Msg, status: 'ok' | 'error', body: unknown): void {
    if (!msg.reply) return;
    try {
      msg.respond(encodeJson(body), { headers: replyHeaders(status) });
    } catch (err) {
      this.log.warn({ msg: 'reply failed', error: (err as Error).message });
    }
  }

  private async invoke(handler: MessageHandler, payload: unknown, ctx: unknown): Promise<unknown> {
    const out = await handler(payload, ctx);
    return isObservable(out) ? lastValueFrom(out, { defaultValue: undefined }) : out;
  }

  /**
   * Known errors pass through; the bus not answering (nats-server restarting, a leader election) is DEPENDENCY.DOWN,
   * retryable, so the caller asks again; anything else is logged here and answered as INTERNAL, never with its text.
   */
  private toWire(err: unknown, where: string): WireError {
    if (isBusFault(err)) {
      this.log.warn({ msg: 'bus fault: answered as retryable', where, error: (err as Error).message });
      return new AppError('DEPENDENCY.DOWN').toWire();
    }
    if (!(err instanceof AppError) && !isWireError(err)) {
      this.log.error({ msg: 'unhandled error', where, error: (err as Error)?.message, stack: (err as Error)?.stack });
    }
    return toWireError(err);
  }

  private async bindLogConsumer(filterSubject: string, handler: MessageHandler, opts: LogConsumerOptions): Promise<void> {
    const ackWaitMs = opts.ackWaitMs ?? 30_000;
    const maxDeliver = opts.maxDeliver ?? 8;
    await ensureDurable(this.deps.jsm, filterSubject, opts, ackWaitMs);
    observeConsumerLag(opts.durable, async () => {
      const info = await this.deps.jsm.consumers.info(LOG_STREAM, opts.durable);
      return info.num_pending + info.num_ack_pending;
    });
    // One instance at a time (see ConsumerLease): the others stand by without pulling, so the handler sees log order.
    const lease = opts.exclusive ? new ConsumerLease(this.deps.nc, opts.durable) : undefined;
    /** `previous`: how far the lease's last holder had handed the durable over (see catchUpRange). */
    const consume = async (previous: HandedPosition | null): Promise<() => Promise<void>> => {
      let stopped = false;
      let current: Deliveries | undefined;
      const open = async (from: HandedPosition | null) => {
        // The durable's info is read on the service's own connection: its consumer identity may only pull and ack.
        const info = await this.deps.jsm.consumers.info(LOG_STREAM, opts.durable);
        // Read before pulling: what a previous holder took and never settled is ours to handle first (see catchUp).
        const behind = opts.batch ? catchUpRange(info, from) : null;
        const pullNc = this.deps.consumerNc ?? this.deps.nc;
        // A batch consumer pulls in bursts (BurstPull); any other keeps a pull open. `bind` on the consumer identity's
        // connection: the client re-pulls after a missed heartbeat without asking for the consumer's info, which that
        // identity may not.
        const messages: Deliveries = opts.batch
          ? new BurstPull(pullNc, info.name, { batch: opts.batch, lingerMs: opts.lingerMs ?? 0, expiresMs: PULL_EXPIRES_MS })
          : await (pullNc === this.deps.nc ? this.deps.js : jetstream(pullNc)).consumers.getConsumerFromInfo(info).consume({ max_messages: Math.max(8, (opts.concurrency ?? 1) * 2), expires: PULL_EXPIRES_MS, bind: pullNc !== this.deps.nc });
        current = messages;
        this.consumers.push(messages);
        const delivered = { filter: filterSubject, created: info.created, consumerSeq: info.delivered.consumer_seq, streamSeq: info.delivered.stream_seq };
        return { messages, ackAll: info.config.ack_policy === AckPolicy.All, catchUp: behind && { filter: filterSubject, ...behind }, delivered, from };
      };
      // A deferred settlement failed (see BatchSettler): consume again from the ack floor, as a new holder would.
      const reopen = async (from: HandedPosition | null) => {
        for (let attempt = 1; !stopped && !this.closing; attempt++) {
          this.log.warn({ msg: 'a deferred settlement failed: consuming again from the ack floor', durable: opts.durable, attempt });
          try {
            return await open(from);
          } catch (err) {
            this.log.error({ msg: 'consuming again failed, retrying', durable: opts.durable, error: (err as Error)?.message });
            await new Promise((resolve) => setTimeout(resolve, redeliveryDelayMs(attempt)));
          }
        }
        return null;
      };
      const run = ({ messages, ackAll, catchUp, delivered, from }: { messages: Deliveries; ackAll: boolean; catchUp: CatchUp | null; delivered: Delivered; from: HandedPosition | null }): void => {
        if (!(messages instanceof BurstPull)) return this.startHandling(messages, handler, opts, { maxDeliver, ackWaitMs });
        const batches = new BatchConsumer(this.batchHost, handler, { maxDeliver, durable: opts.durable, batch: messages.batch, ackAll, catchUp, delivered, stallMs: 4 * ackWaitMs });
        lease?.follow(() => batches.handedThrough());
        void batches
          .start(messages)
          .then(async (broken) => {
            // From where this consumption got to; one that broke in its catch-up got nowhere: where it started from.
            const again = broken && !stopped && !this.closing ? await reopen(batches.handedThrough() ?? from) : null;
            if (again) run(again);
          })
          .catch((err: unknown) => this.log.error({ msg: 'batch consumer ended', durable: opts.durable, error: (err as Error)?.message }));
      };
      run(await open(previous));
      return () => {
        stopped = true;
        return (current?.close() ?? Promise.resolve()).then(() => undefined, () => undefined);
      };
    };
    if (!lease) {
      await consume(null);
      return;
    }
    this.leases.push(lease);
    void lease.hold(async (previous) => {
      this.log.log({ msg: 'holding the consumer lease: consuming', durable: opts.durable });
      return consume(previous);
    }, () => this.closing).catch((err: unknown) => this.log.error({ msg: 'consumer lease loop ended', durable: opts.durable, error: (err as Error).message }));
  }

  private startHandling(messages: ConsumerMessages, handler: MessageHandler, opts: LogConsumerOptions, { maxDeliver, ackWaitMs }: { maxDeliver: number; ackWaitMs: number }): void {
    const limit = Math.max(1, opts.concurrency ?? 1);
    const inFlight = new Set<Promise<void>>();
    void (async () => {
      for await (const m of messages) {
        // Stopping: a delivery not yet started goes back now, to another instance, instead of after ack_wait.
        if (this.closing) {
          m.nak();
          continue;
        }
        const p = this.track(this.onLogMessage(handler, m, { maxDeliver, ackWaitMs, durable: opts.durable })).finally(() => inFlight.delete(p));
        inFlight.add(p);
        if (inFlight.size >= limit) await Promise.race(inFlight);
      }
    })().catch((err) => this.log.error({ msg: 'consumer loop ended', durable: opts.durable, error: (err as Error).message }));
  }

  private async onLogMessage(handler: MessageHandler, m: JsMsg, opts: { maxDeliver: number; ackWaitMs: number; durable: string }): Promise<void> {
    let events: StoredEvent[];
    try {
      events = messageEvents(m);
    } catch (err) {
      return this.poison(m, opts.durable, unreadableReason(err), err);
    }
    // Checked before handling: a message whose handling crashes or hangs the process never gets to throw.
    if (m.info.deliveryCount > opts.maxDeliver) return this.poison(m, opts.durable, 'delivery budget exhausted', new AppError('INTERNAL'));
    // Keep the message ours while the handler works, but not forever: a hung handler lets it be redelivered.
    const heartbeatUntil = Date.now() + MAX_HANDLER_MS;
    const heartbeat = setInterval(() => Date.now() < heartbeatUntil && m.working(), Math.max(1_000, opts.ackWaitMs / 3));
    try {
      const template = logSubjectTemplate(m.subject);
      await withSpan(`process ${template}`, {
        kind: SpanKind.CONSUMER,
        parent: contextFromTraceparent(events[0].metadata.traceparent, events[0].metadata.tracestate),
        attributes: spansKeepAttributes() ? { ...messagingAttributes({ operation: 'process', subject: m.subject, template, consumerGroup: opts.durable }), ...eventSpanAttributes(events), 'rl.event.type': events.map((e) => e.type).join(',') } : undefined,
      }, async () => {
        // The events of one commit, in order. Handlers see each as its producer wrote it: sealed data opened by the
        // log's codec (README "Erasure"). A failure redelivers the whole commit: handlers are idempotent per event.
        for (const event of events) await this.invoke(handler, await this.deps.log.open(event), { subject: m.subject, deliveryCount: m.info.deliveryCount, streamSequence: m.seq });
      });
      m.ack();
    } catch (err) {
      const retryable = err instanceof AppError ? err.retryable : true;
      if (!retryable || m.info.deliveryCount >= opts.maxDeliver) return this.poison(m, opts.durable, 'handler failed', err);
      this.log.warn({ msg: 'handler failed, will retry', durable: opts.durable, seq: m.seq, delivery: m.info.deliveryCount, error: (err as Error)?.message });
      m.nak(redeliveryDelayMs(m.info.deliveryCount));
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * A poison message is recorded as a dead-letter event (the log keeps everything), then terminated. `settle` runs the
   * term (or the nak, `redelivered`): a batch consumer's runs it in turn, after every delivery before it is settled
   * (BatchSettler).
   */
  private async poison(m: Poisoned, durable: string, reason: string, err: unknown, settle: (action: () => void, redelivered?: boolean) => void = (action) => action()): Promise<void> {
    this.log.error({ msg: 'dead-lettering message', durable, seq: m.seq, reason, error: (err as Error)?.message });
    try {
      await this.deps.log.append(aggregateRef('deadletter', durable), [{
        type: 'MessageDeadLettered',
        data: { durable, stream_seq: m.seq, subject: m.subject, deliveries: m.info.deliveryCount, reason, error_code: toWireError(err).code },
      }], { commandId: `deadletter:${durable}:${m.seq}` });
      runledgerMetrics().deadLetters.add(1, { 'messaging.consumer.group.name': durable });
      // Plain `+TERM`: nats-server 2.9.x ignores a term that carries a reason and redelivers forever.
      // The reason is in the dead-letter record above.
      settle(() => m.term());
    } catch (appendErr) {
      // Without the dead-letter record we must not drop the message: let it come back.
      this.log.error({ msg: 'dead-letter append failed', error: (appendErr as Error).message });
      settle(() => m.nak(redeliveryDelayMs(m.info.deliveryCount)), true);
    }
  }
}
