import { createInbox, type Msg, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import type { JetStreamManager, StoredMsg } from '@nats-io/jetstream';
import { AppError } from '@runledger/kernel';
import { isNoMessage, readFailed, stalledRead } from './log-errors';

/**
 * Reads without consumers. No identity but the bootstrap may create a consumer (deploy/nats/permissions.yaml): a
 * consumer's body decides whether it pushes, and where, so permission to create one is permission to deliver the log
 * anywhere. Readers use direct gets only (`$JS.API.DIRECT.GET.<stream>`), which answer and change nothing.
 * nats-server 2.9/2.10 has no batched direct get (2.11), so a range is read by many single gets kept in flight on
 * one subscription: with 1 KB commits, 50–65k messages/s on one connection here, an ordered consumer 95–110k
 * (bench/results-scale.md has the replay's figures).
 */

/** One stored message as a direct get hands it out. */
export interface StoredMessage {
  seq: number;
  subject: string;
  data: Uint8Array;
  headers?: MsgHdrs;
  /** The read added the server's stamps (a direct get's answer, a republished copy): see copiedByServer. */
  stamped?: boolean;
  /** writerMessageProblem answered without decoding the headers, where the reader can (see rawWriterProblem). */
  writerProblem?(): string | null;
}

/** A message as @nats-io/jetstream's gets hand it out (its headers under `header`), as a StoredMessage. */
export function storedMessageOf(m: StoredMsg): StoredMessage {
  return { seq: m.seq, subject: m.subject, data: m.data, headers: m.header };
}

/** A sequence read: the message, or none stored there (damaged, or never written: the caller knows which). */
export type SequenceRead = StoredMessage | { seq: number; missing: true };

/** How many direct gets a range read keeps in flight. */
const WINDOW = 512;
/**
 * Gets are asked again once this many answers were handed on, together: one socket write for them instead of one
 * per answer (each answer asking for the next made a write per message; the read's CPU fell by about a tenth).
 */
const REFILL = 64;
/** How long (about: up to a third more) a range read waits for its next answer before it gives up: far above any healthy gap. */
export const READ_IDLE_MS = 30_000;

const encoder = new TextEncoder();

/** The connection a JetStream manager of @nats-io/jetstream 3.x talks over (its requests go through it). */
export function connectionOf(jsm: JetStreamManager): NatsConnection {
  const nc = (jsm as unknown as { nc?: NatsConnection }).nc;
  if (!nc) throw new Error('this JetStreamManager exposes no connection (is @nats-io/jetstream 3.x installed?)');
  return nc;
}

/** Replies must come back on the identity's own inbox prefix (`_INBOX_<identity>`): the only one it may subscribe to. */
export function inboxPrefixOf(nc: NatsConnection): string | undefined {
  return (nc as unknown as { options?: { inboxPrefix?: string } }).options?.inboxPrefix;
}

/**
 * Hands `onRead` every sequence of `stream` in [from, to], in order: each stored message, or `{ missing }` where the
 * server answered that it has none. Gets are kept in flight WINDOW at a time on one subscription and answered in any
 * order (replicas may answer); the reader puts them back in sequence order. A read with no answer for READ_IDLE_MS is
 * DEPENDENCY.DOWN (retryable): never a part of the range handed out as if it were all. Answers are taken in the
 * subscription's callback and handed on at once (an async iterator, or a promise per message, halved the rate); a
 * promise `onRead` returns holds the next message until it settles.
 */
export function readSequences(nc: NatsConnection, stream: string, from: number, to: number, onRead: (read: SequenceRead) => void | Promise<void>, idleMs = READ_IDLE_MS): Promise<void> {
  if (to < from) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const inbox = createInbox(inboxPrefixOf(nc));
    const api = `$JS.API.DIRECT.GET.${stream}`;
    const arrived = new Map<number, SequenceRead>();
    let next = from;
    let asked = from;
    let waiting = false;
    let done = false;
    let answers = 0;
    let idleLooks = 0;
    let lastLook = -1;
    const end = (err?: unknown) => {
      if (done) return;
      done = true;
      clearInterval(looking);
      sub.unsubscribe();
      if (err) reject(err);
      else resolve();
    };
    const ask = () => {
      if (asked <= to && asked - next > WINDOW - REFILL) return;
      try {
        for (; asked <= to && asked < next + WINDOW; asked++) nc.publish(api, encoder.encode(`{"seq":${asked}}`), { reply: `${inbox}.${asked}` });
      } catch {
        end(unanswered()); // the connection closed or is draining: retryable, as any read the log did not answer
      }
    };
    // Hands on what is next in order; stops at a promise and goes on once it settles.
    const pump = () => {
      try {
        for (let r = arrived.get(next); r && !done; r = arrived.get(next)) {
          arrived.delete(next);
          next++;
          const handled = onRead(r);
          if (handled instanceof Promise) {
            waiting = true;
            handled.then(() => {
              waiting = false;
              pump();
            }, end);
            return;
          }
        }
        if (next > to) end();
        else ask();
      } catch (err) {
        end(err);
      }
    };
    const sub = nc.subscribe(`${inbox}.*`, {
      callback: (err, m) => {
        if (done) return;
        // The subscription refused or closed under the read (a permissions violation, the connection ending).
        if (err) return end(unanswered());
        answers++;
        const seq = Number(m.subject.slice(inbox.length + 1));
        try {
          arrived.set(seq, answerOf(m, seq) ?? { seq, missing: true });
        } catch (e) {
          return end(e);
        }
        if (!waiting) pump();
      },
    });
    const looking = setInterval(() => {
      idleLooks = answers === lastLook ? idleLooks + 1 : 0;
      lastLook = answers;
      if (idleLooks >= 3) end(stalledRead());
    }, idleMs / 3);
    ask();
  });
}

const unanswered = () => new AppError('DEPENDENCY.DOWN', 'The event log could not be read; retry.');

/**
 * A direct get's answer: the stored message, or null where the server says it has none. What decides is the server's
 * own stamp (Nats-Sequence, added to every message it hands out), not the status line: a message stored with a status
 * line of its own (`NATS/1.0 404 Message Not Found`, an empty answer an identity had the server publish on a log
 * subject as a request's reply) comes back with that line and the stamp after it (probe). Read as "none", it made a
 * run's version 0 and hid the run; read as a failure (a stored 408 or 503), it failed every read through it for good.
 * `seq`: the sequence asked for, where the reader knows it (a range read).
 */
function answerOf(m: Msg, seq?: number): StoredMessage | null {
  const h = m.headers;
  // The server adds its headers after the stored ones: a stored copy of another message keeps that one's first.
  const stamped = h?.last('Nats-Sequence');
  const subject = h?.last('Nats-Subject');
  if (stamped && subject) return { seq: seq ?? Number(stamped), subject, data: m.data, headers: h, stamped: true };
  if (h?.code === 404) return null;
  // Anything else is the server failing to answer (busy, no leader, bad request): retryable.
  throw unanswered();
}

/** How long a single direct get waits for its answer (the client's default for JetStream API requests). */
const GET_TIMEOUT_MS = 5_000;

/**
 * Single direct gets on one subscription per connection, each answer taken as answerOf takes it. The client's own
 * request path (`jsm.direct.getMessage`) reads the status line alone: a stored 404 is "none", and a stored 503 is
 * rejected as "no responders" before the answer can be looked at.
 */
class DirectGets {
  private readonly inbox: string;
  private readonly waiting = new Map<string, { settle: (m: Msg | Error) => void }>();
  private next = 0;

  constructor(private readonly nc: NatsConnection) {
    this.inbox = createInbox(inboxPrefixOf(nc));
    nc.subscribe(`${this.inbox}.*`, {
      callback: (err, m) => {
        // Refused (a permissions violation on the subscription): every get waiting on it fails, retryably, and the
        // next makes a new one. A get the server refuses to publish is not told here: it waits GET_TIMEOUT_MS.
        if (err) return this.failAll();
        this.waiting.get(m.subject.slice(this.inbox.length + 1))?.settle(m);
      },
    });
    // A closed connection says nothing to its subscriptions: the gets waiting fail now, not at their timers.
    void nc.closed().then(() => this.failAll());
  }

  private failAll(): void {
    if (getters.get(this.nc) === this) getters.delete(this.nc);
    for (const w of [...this.waiting.values()]) w.settle(unanswered());
    this.waiting.clear();
  }

  get(stream: string, query: DirectQuery): Promise<StoredMessage | null> {
    const token = String(++this.next);
    const lastBySubject = 'last_by_subj' in query ? query.last_by_subj : undefined;
    // last_by_subj in the subject, as the client sends it: permissions can then name the subjects an identity may read.
    const api = lastBySubject ? `$JS.API.DIRECT.GET.${stream}.${lastBySubject}` : `$JS.API.DIRECT.GET.${stream}`;
    return new Promise<StoredMessage | null>((resolve, reject) => {
      const timer = setTimeout(() => settle(unanswered()), GET_TIMEOUT_MS);
      const settle = (m: Msg | Error) => {
        clearTimeout(timer);
        this.waiting.delete(token);
        if (m instanceof Error) return reject(m);
        try {
          resolve(answerOf(m));
        } catch (err) {
          reject(err);
        }
      };
      this.waiting.set(token, { settle });
      try {
        this.nc.publish(api, lastBySubject ? new Uint8Array() : encoder.encode(JSON.stringify(query)), { reply: `${this.inbox}.${token}` });
      } catch {
        settle(unanswered()); // the connection closed or is draining
      }
    });
  }
}

const getters = new WeakMap<NatsConnection, DirectGets>();

/** What one direct get asks for: a sequence, the next message of a subject filter from a sequence, or a subject's last. */
export type DirectQuery = { seq: number } | { next_by_subj: string; seq: number } | { last_by_subj: string };

/** One direct get (any replica may answer): the stored message, or null when the server has none (see answerOf). */
export function directGet(jsm: JetStreamManager, stream: string, query: DirectQuery): Promise<StoredMessage | null> {
  const nc = connectionOf(jsm);
  let getter = getters.get(nc);
  if (!getter) getters.set(nc, (getter = new DirectGets(nc)));
  return getter.get(stream, query);
}

/**
 * The first message at or after `seq` whose subject matches `filter` (one get), or null when there is none. For
 * sparse reads (one aggregate, a rare kind of event): the server skips what does not match.
 */
export async function nextMatching(jsm: JetStreamManager, stream: string, filter: string, seq: number): Promise<StoredMessage | null> {
  return directGet(jsm, stream, { next_by_subj: filter, seq });
}

/**
 * As nextMatching, answered by the stream's leader (the message API): for a stream without direct gets (a replicated
 * bucket), or where a lagging replica's "none" is no answer.
 */
export async function nextMatchingOnLeader(jsm: JetStreamManager, stream: string, filter: string, seq: number): Promise<StoredMessage | null> {
  try {
    // nats-server 2.9 answers next_by_subj on the message API too; the client's type only names the direct-get form.
    const m = await jsm.streams.getMessage(stream, { next_by_subj: filter, seq } as unknown as { seq: number });
    return m ? storedMessageOf(m) : null;
  } catch (err) {
    if (isNoMessage(err)) return null;
    throw readFailed(err);
  }
}

/** Whether `subject` matches the NATS subject `filter` (`*` one token, `>` one or more at the end). */
export function subjectMatches(filter: string, subject: string): boolean {
  return subjectMatcher(filter)(subject);
}

/**
 * subjectMatches for one filter and many subjects (a dense read tests every message of the log): a filter without
 * wildcards, or whose only one is the last `>` (the whole log, a kind of aggregate), is a string comparison.
 */
export function subjectMatcher(filter: string): (subject: string) => boolean {
  if (!filter.includes('*')) {
    if (!filter.endsWith('>')) return (subject) => subject === filter;
    const prefix = filter.slice(0, -1);
    if (!prefix.includes('>') && (prefix === '' || prefix.endsWith('.'))) return (subject) => subject.length > prefix.length && subject.startsWith(prefix);
  }
  return (subject) => tokensMatch(filter, subject);
}

function tokensMatch(filter: string, subject: string): boolean {
  if (filter === subject) return true;
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '>') return s.length > i;
    if (i >= s.length || (f[i] !== '*' && f[i] !== s[i])) return false;
  }
  return f.length === s.length;
}
