import { createInbox, nuid, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, type JetStreamManager } from '@nats-io/jetstream';
import type { StoredMessage } from './direct-reads';
import { connectionOf, inboxPrefixOf, READ_IDLE_MS } from './direct-reads';
import { stalledRead } from './log-errors';
import { rawWriterProblem, writerMessageProblem } from './stored-event';

/**
 * Whole-range reads through one consumer, for the one identity allowed to create consumers (the bootstrap `admin`,
 * deploy/nats/permissions.yaml: the rebuild of `runledger replay`, the bench). Readers may not create any (issue 23:
 * the request's body, not its subject, decides durable or push, and where to), so they read by direct gets
 * (direct-reads.ts): one request and one answer per message, where one pull here answers PULL_BATCH of them. The
 * consumer is an ephemeral pull consumer with no acks, in memory, on the whole log (no filter: every sequence comes,
 * as by direct gets, and the caller filters), deleted once read (and by the server after READ_IDLE_MS unused).
 */

/** How many messages one pull asks for; a second pull is asked for while the first is handed on (two in flight). */
const PULL_BATCH = 1024;

/**
 * Hands `onMessage` the stored messages of [from, to] in sequence order through one consumer; returns the first
 * sequence it did not hand out: to + 1 once it read the whole range, less when the consumer could not be created
 * (this identity may not: the server refused) or a sequence did not come in its turn (a gap: damage, or a stall).
 * The caller reads the rest by direct gets, which tell a damaged message from an unanswered read. A promise
 * `onMessage` returns holds the next message until it settles; its rejection is this read's.
 */
export async function readByConsumer(jsm: JetStreamManager, stream: string, from: number, to: number, onMessage: (m: StoredMessage) => void | Promise<void>, idleMs = READ_IDLE_MS): Promise<number> {
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
  try {
    return await pullRange(connectionOf(jsm), stream, name, from, to, onMessage, idleMs);
  } finally {
    await jsm.consumers.delete(stream, name).catch(() => undefined);
  }
}

/**
 * The pulls themselves, on a subscription of our own with a callback (issue 22): the client's `consume()` hands each
 * message through an async iterator (a promise and a microtask per message) and parses all of its delivery info; a
 * replay reads millions. Deliveries are handed on in the callback as they come, queued only while a handler's promise
 * holds the read. PULL_BATCH more are asked for whenever no more than one pull's worth is left ahead, so the server
 * sends the next batch while this one is decoded and folded.
 */
function pullRange(nc: NatsConnection, stream: string, consumer: string, from: number, to: number, onMessage: (m: StoredMessage) => void | Promise<void>, idleMs: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const inbox = createInbox(inboxPrefixOf(nc));
    const api = `$JS.API.CONSUMER.MSG.NEXT.${stream}.${consumer}`;
    const expires = Math.max(1_000, Math.min(30_000, idleMs)) * 1_000_000;
    const total = to - from + 1;
    const queue: Msg[] = [];
    let head = 0;
    let next = from;
    let asked = 0; // messages asked for by all pulls (less what expired undelivered)
    let waiting = false; // a handler's promise holds the read
    let closing = false; // the consumer can give no more: hand on what came, then stop
    let done = false;
    // Ends the read: with `failed`, this read's error; without, the direct gets go on from `next`.
    const stop = (failed?: { err: unknown }) => {
      if (done) return;
      done = true;
      clearInterval(watchdog);
      sub.unsubscribe();
      if (failed) reject(failed.err);
      else resolve(next);
    };
    const ask = () => {
      // Handed on so far: next - from; at most two pulls' worth asked ahead of that.
      if (asked >= total || asked - (next - from) > PULL_BATCH) return;
      const batch = Math.min(PULL_BATCH, total - asked);
      asked += batch;
      try {
        nc.publish(api, `{"batch":${batch},"expires":${expires}}`, { reply: inbox });
      } catch {
        stop(); // the connection closed or is draining: the direct gets say whether the log can be read
      }
    };
    // Hands on what came, in order; stops at a promise and goes on once it settles.
    const pump = () => {
      try {
        while (head < queue.length && !done) {
          const m = queue[head];
          queue[head++] = undefined as unknown as Msg;
          const seq = streamSeqOf(m.reply ?? '');
          if (seq !== next) return stop(); // a gap (or a repeat): the direct gets take over from `next`
          const handled = onMessage(new ConsumedMessage(m, seq));
          if (handled instanceof Promise) {
            waiting = true;
            handled.then(() => {
              waiting = false;
              next++;
              if (next > to) stop();
              else pump();
            }, (err: unknown) => stop({ err }));
            return;
          }
          next++;
          if (next > to) return stop();
        }
        queue.length = head = 0;
        if (closing) stop();
        else ask();
      } catch (err) {
        stop({ err });
      }
    };
    const sub = nc.subscribe(inbox, {
      callback: (err, m) => {
        if (done) return;
        // The subscription refused or closed under the read: the direct gets go on (and fail if the log cannot be read).
        if (err) closing = true;
        else if (m.reply) queue.push(m);
        else if (!pullEnded(m)) closing = true; // a status: the consumer is gone, or refused the pull
        else asked -= Number(m.headers?.get('Nats-Pending-Messages') ?? 0) || 0; // expired undelivered: asked again
        if (!waiting) pump();
      },
    });
    // No progress for idleMs: the consumer stalled (the direct gets go on from `next`), or a handler holds the read,
    // which fails as a direct-get read does when nothing comes for that long (DEPENDENCY.DOWN, retryable).
    let lastNext = next;
    const watchdog = setInterval(() => {
      if (next === lastNext) stop(waiting ? { err: stalledRead() } : undefined);
      lastNext = next;
    }, idleMs);
    ask();
  });
}

/** A pull that expired before all it asked for came (408: nothing more to send yet); anything else ends the read. */
function pullEnded(status: Msg): boolean {
  return status.headers?.code === 408;
}

/**
 * The stream sequence of a delivery, from its reply subject (`$JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.
 * <consumer seq>.<time>.<pending>`, or with a domain and an account hash after `$JS.ACK` and perhaps a token at the
 * end): the only part of the delivery info a read needs.
 */
function streamSeqOf(reply: string): number {
  // Scanned, not split: no array and nine strings per message.
  let dots = 0;
  for (let i = reply.indexOf('.'); i !== -1; i = reply.indexOf('.', i + 1)) dots++;
  let start = -1;
  for (let k = dots === 8 ? 5 : 7; k > 0; k--) start = reply.indexOf('.', start + 1);
  let seq = 0;
  for (let i = start + 1; i < reply.length; i++) {
    const digit = reply.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return i > start + 1 && reply.charCodeAt(i) === 46 ? seq : Number.NaN;
    seq = seq * 10 + digit;
  }
  return Number.NaN;
}

/** The message as a direct get hands it out; its headers decoded only if asked for (a replay reads none). */
class ConsumedMessage implements StoredMessage {
  readonly subject: string;
  readonly data: Uint8Array;

  constructor(private readonly m: Msg, readonly seq: number) {
    this.subject = m.subject;
    this.data = m.data;
  }

  get headers() {
    return this.m.headers;
  }

  /** Read off the raw header block when the client keeps it as @nats-io/nats-core 3.x does; decoded otherwise. */
  writerProblem(): string | null {
    const raw = this.m as unknown as { _rdata?: Uint8Array; _msg?: { hdr?: number } };
    const end = raw._msg?.hdr;
    if (!(raw._rdata instanceof Uint8Array) || typeof end !== 'number') return writerMessageProblem({ seq: this.seq, subject: this.subject, data: this.data, headers: this.headers });
    return rawWriterProblem(end > -1 ? raw._rdata.subarray(0, end) : undefined);
  }
}
