import * as path from 'node:path';
import { createInbox, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { JsMsg } from '@nats-io/jetstream';
import { inboxPrefixOf, LOG_STREAM } from '@runledger/event-log';

/**
 * nats.js makes a JsMsg of a delivery in `toJsMsg`, which its package does not export (3.4): reached through the
 * package's own directory (the pinned version's layout; burst-pull.int.spec.ts fails if it moves).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a file of the package's own, not an entry point
const { toJsMsg } = require(path.join(path.dirname(require.resolve('@nats-io/jetstream')), 'jsmsg.js')) as { toJsMsg(m: Msg, ackTimeoutMs?: number): JsMsg };

/** How long after a pull's own expiry (or a no-wait pull's asking) no answer at all means the server lost it (a restart). */
const LOST_PULL_GRACE_MS = 1_500;
/** Before pulling again after the server refused a pull (409: a leader moving, too many waiting pulls). */
const REFUSED_PULL_DELAY_MS = 250;

export interface BurstPullOptions {
  /** The most deliveries one burst asks for. */
  batch: number;
  /** How long deliveries are left to gather on the server after the first one of a quiet spell (see BurstPull). */
  lingerMs: number;
  /** How long an idle pull waits for a first delivery before it is asked again. */
  expiresMs: number;
}

/**
 * A batch consumer's deliveries, pulled in bursts (issue 22). The client's `consume` keeps a pull open, so the server
 * sends each event the moment it is appended: the audit ledger woke, and nats-server wrote to it, six times a request
 * (with the ledger stopped, sequential requests ran 30 % faster on two cores: `bench/cpu-load.js`, bench/results.md).
 * Here one pull waits for the first delivery of a quiet spell; then nothing is pulled for `lingerMs` while the events
 * gather in the stream, and one no-wait pull takes them all, which the server sends in one go. Under load the pulls
 * are no-wait only, one per linger; a no-wait pull that finds nothing goes back to waiting.
 * Each burst is yielded whole, so its events are one batch of the handler. Every delivery that reaches the inbox is
 * yielded, in order, whichever pull asked for it (an ack-all durable's later ack would settle one dropped here).
 */
export class BurstPull implements AsyncIterable<JsMsg[]> {
  private readonly inboxPrefix: string;
  private readonly sub: Subscription;
  private readonly nextSubject: string;
  private closed = false;
  private pulls = 0;
  /** The pull being waited for: its reply subject and how it ends. */
  private current: { reply: string; wanted: number; got: JsMsg[]; done: (refused: boolean) => void } | null = null;
  /** Deliveries that came while no pull was waited for (one the server answered after it was given up): the next pull's. */
  private readonly early: JsMsg[] = [];

  constructor(private readonly nc: NatsConnection, durable: string, private readonly opts: BurstPullOptions) {
    this.inboxPrefix = createInbox(inboxPrefixOf(nc));
    this.nextSubject = `$JS.API.CONSUMER.MSG.NEXT.${LOG_STREAM}.${durable}`;
    this.sub = nc.subscribe(`${this.inboxPrefix}.*`, { callback: (err, m) => (err ? this.end() : this.onMessage(m)) });
  }

  /** The most deliveries of one burst. */
  get batch(): number {
    return this.opts.batch;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<JsMsg[]> {
    const { batch, lingerMs, expiresMs } = this.opts;
    let busy = false;
    let full = false;
    while (!this.closed) {
      let burst: JsMsg[];
      if (!busy) {
        const first = await this.pull({ batch: 1, expires: expiresMs * 1_000_000 }, expiresMs);
        if (first.refused) await this.sleep(REFUSED_PULL_DELAY_MS);
        if (!first.got.length) continue;
        await this.sleep(lingerMs);
        burst = batch > 1 ? first.got.concat((await this.pull({ batch: batch - 1, no_wait: true }, 0)).got) : first.got;
      } else {
        // A full burst: more are waiting, taken at once. Otherwise the next ones gather for lingerMs first.
        if (!full) await this.sleep(lingerMs);
        const drained = await this.pull({ batch, no_wait: true }, 0);
        if (drained.refused) await this.sleep(REFUSED_PULL_DELAY_MS);
        burst = drained.got;
      }
      // Closed meanwhile: what came is redelivered after the ack wait, as a delivery to a closed `consume` is.
      if (this.closed) return;
      busy = burst.length > 0;
      full = burst.length >= batch;
      if (busy) yield burst;
    }
  }

  /** Takes no more deliveries; one delivered meanwhile is redelivered after the durable's ack wait, as with `consume`. */
  close(): Promise<void> {
    this.end();
    return Promise.resolve();
  }

  private end(): void {
    if (this.closed) return;
    this.closed = true;
    this.sub.unsubscribe();
    this.current?.done(false);
  }

  /**
   * Asks for up to `req.batch` deliveries and resolves with them once the server has answered all
   * of the pull (its batch filled, or a status ends it) or, with no answer past its expiry and a grace, as lost.
   */
  private async pull(req: { batch: number; expires?: number; no_wait?: true }, expiresMs: number): Promise<{ got: JsMsg[]; refused: boolean }> {
    if (this.closed) return { got: [], refused: false };
    const reply = `${this.inboxPrefix}.${++this.pulls}`;
    const got = this.early.splice(0);
    let timer: NodeJS.Timeout | undefined;
    const refused = await new Promise<boolean>((resolve) => {
      this.current = { reply, wanted: req.batch, got, done: resolve };
      timer = setTimeout(() => resolve(false), expiresMs + LOST_PULL_GRACE_MS);
      try {
        this.nc.publish(this.nextSubject, JSON.stringify(req), { reply });
      } catch {
        resolve(true); // the connection is closing or reconnecting: asked again after a pause
      }
    });
    clearTimeout(timer);
    this.current = null;
    return { got, refused };
  }

  /** A delivery joins the pull waited for (or the next one); a status ends the pull it answers. */
  private onMessage(m: Msg): void {
    const code = m.headers?.code ?? 0;
    if (code === 0) {
      const delivered = toJsMsg(m);
      const current = this.current;
      if (!current) return void this.early.push(delivered);
      current.got.push(delivered);
      if (current.got.length >= current.wanted) current.done(false);
      return;
    }
    // 404 (none waiting) and 408 (expired, or a no-wait pull that took fewer than its batch) end a pull; any other
    // status refuses it, and the next is asked after a pause: 409 (a leader moving, too many pulls waiting), 503 (no
    // one answers for the durable: deleted, or its leader being elected). 100 is a heartbeat, which these do not ask for.
    if (this.current?.reply === m.subject && code !== 100) this.current.done(code !== 404 && code !== 408);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}
