import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { readSequences } from '@runledger/event-log';

const decoder = new TextDecoder();

/**
 * Every current value of a NATS KV collection, kept in memory and brought up to date by reading only what its
 * bucket's stream stored since the last read (direct gets by sequence: no consumer, which no service may create).
 * The first read costs a pass over the stream; each later one only the writes in between, whoever made them (another
 * ledger instance, a restart), so a list over 10,000 rows no longer reads 10,000 keys every time.
 */
export class KvMirror<T> {
  private readonly rows = new Map<string, T>();
  private next = 0;
  private jsm?: Promise<JetStreamManager>;
  /** One catch-up at a time; callers arriving meanwhile share the next one. */
  private running: Promise<T[]> | null = null;
  private queued: Promise<T[]> | null = null;

  /** `stream` is the bucket's stream, `subjectPrefix` its key subjects' prefix (`$KV.<bucket>.`). */
  constructor(private readonly nc: NatsConnection, private readonly stream: string, private readonly subjectPrefix: string) {}

  /** The current values, as of a read begun after this call. */
  values(): Promise<T[]> {
    if (!this.running) return (this.running = this.catchUp().finally(() => (this.running = null)));
    this.queued ??= this.running.then(() => undefined, () => undefined).then(() => {
      this.queued = null;
      return this.values();
    });
    return this.queued;
  }

  private async catchUp(): Promise<T[]> {
    this.jsm ??= jetstreamManager(this.nc);
    const { state } = await (await this.jsm).streams.info(this.stream);
    // A bucket never written to says first_seq 0 (no message has that sequence): nothing to read until it is written.
    const from = Math.max(this.next, state.first_seq, 1);
    if (state.messages === 0 || from > state.last_seq) return [...this.rows.values()];
    await readSequences(this.nc, this.stream, from, state.last_seq, (read) => {
      if ('missing' in read || !read.subject.startsWith(this.subjectPrefix)) return; // an older revision, since replaced
      const key = read.subject.slice(this.subjectPrefix.length);
      const op = read.headers?.get('KV-Operation');
      if (op === 'DEL' || op === 'PURGE') this.rows.delete(key);
      else this.rows.set(key, JSON.parse(decoder.decode(read.data)) as T);
    });
    this.next = Math.max(this.next, state.last_seq + 1);
    return [...this.rows.values()];
  }
}
