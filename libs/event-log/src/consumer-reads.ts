import { nuid } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import type { StoredMessage } from './direct-reads';
import { READ_IDLE_MS } from './direct-reads';
import { stalledRead } from './log-errors';

/**
 * Whole-range reads through one consumer, for the one identity allowed to create consumers (the bootstrap `admin`,
 * deploy/nats/permissions.yaml: the rebuild of `runledger replay`, the bench). Readers may not create any (issue 23:
 * the request's body, not its subject, decides durable or push, and where to), so they read by direct gets
 * (direct-reads.ts): one request and one answer per message, where one pull here answers PULL_BATCH of them. The
 * consumer is an ephemeral pull consumer with no acks, in memory, on the whole log (no filter: every sequence comes,
 * as by direct gets, and the caller filters), deleted once read (and by the server after READ_IDLE_MS unused).
 */

/** What a handler's wait is raced against: the watchdog saw no progress. */
const STALLED = Symbol('stalled');

/** How many messages one pull asks for (the client asks again at three quarters). */
const PULL_BATCH = 1024;

/**
 * Hands `onMessage` the stored messages of [from, to] in sequence order through one consumer; returns the first
 * sequence it did not hand out: to + 1 once it read the whole range, less when the consumer could not be created
 * (this identity may not: the server refused) or a sequence did not come in its turn (a gap: damage, or a stall).
 * The caller reads the rest by direct gets, which tell a damaged message from an unanswered read. A promise
 * `onMessage` returns holds the next message until it settles; its rejection is this read's.
 */
export async function readByConsumer(js: JetStreamClient, jsm: JetStreamManager, stream: string, from: number, to: number, onMessage: (m: StoredMessage) => void | Promise<void>, idleMs = READ_IDLE_MS): Promise<number> {
  if (to < from) return from;
  const name = `rl_read_${nuid.next()}`;
  try {
    await jsm.consumers.add(stream, {
      name,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: from,
      ack_policy: AckPolicy.None,
      mem_storage: true,
      num_replicas: 1,
      inactive_threshold: idleMs * 1_000_000,
    });
  } catch {
    return from; // refused (no permission) or not answered: the direct gets read the range and say what is wrong
  }
  let next = from;
  let failed: { err: unknown } | undefined;
  try {
    const consumer = await js.consumers.get(stream, name);
    const messages = await consumer.consume({ max_messages: PULL_BATCH, expires: Math.max(1_000, Math.min(30_000, idleMs)) });
    let lastNext = next;
    // No progress for idleMs: the consumer stalled (the direct gets go on from `next`), or a handler holds the read,
    // which fails as a direct-get read does when nothing comes for that long (DEPENDENCY.DOWN, retryable).
    // `stall` resolves at the next tick without progress (a fresh one after each: a wait races only what comes after it).
    let stalled!: () => void;
    let stall!: Promise<typeof STALLED>;
    const armStall = () => (stall = new Promise((resolve) => (stalled = () => resolve(STALLED))));
    armStall();
    const watchdog = setInterval(() => {
      if (next === lastNext) {
        stalled();
        armStall();
        void messages.close();
      }
      lastNext = next;
    }, idleMs);
    try {
      for await (const m of messages) {
        if (m.seq !== next) break; // a gap (or a repeat): the direct gets take over from `next`
        try {
          const handled = onMessage(new ConsumedMessage(m, next));
          if (handled instanceof Promise && (await Promise.race([handled, stall])) === STALLED) {
            handled.catch(() => undefined); // settles after this read gave up on it
            failed = { err: stalledRead() };
            break;
          }
        } catch (err) {
          failed = { err };
          break;
        }
        next++;
        if (next > to) break;
      }
    } finally {
      clearInterval(watchdog);
      await messages.close().catch(() => undefined);
    }
  } catch {
    // The consumer went away or the connection failed under the read: the direct gets go on from `next`.
  } finally {
    await jsm.consumers.delete(stream, name).catch(() => undefined);
  }
  if (failed) throw failed.err;
  return next;
}

/** The message as a direct get hands it out; its headers decoded only if asked for (a replay reads none). */
class ConsumedMessage implements StoredMessage {
  readonly subject: string;
  readonly data: Uint8Array;

  constructor(private readonly m: JsMsg, readonly seq: number) {
    this.subject = m.subject;
    this.data = m.data;
  }

  get headers() {
    return this.m.headers;
  }
}
