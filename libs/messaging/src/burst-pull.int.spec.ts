import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import { aggregateRef, ensureLogStream, EventLog, LOG_STREAM } from '@runledger/event-log';
import { useNatsServer, waitUntil } from '@runledger/testing';
import { BurstPull } from './burst-pull';

jest.setTimeout(60_000);

describe('Issue 22 BurstPull: a batch consumer is sent what gathered in the stream in one go, not each event as it is appended', () => {
  const nats = useNatsServer();
  let n = 0;

  /** A fresh ack-all durable on its own subjects, an EventLog to append to it, and a tap counting the pulls asking it. */
  async function durable(config: { max_waiting?: number } = {}) {
    const name = `burst-${++n}`;
    const jsm = await jetstreamManager(nats.nc);
    await ensureLogStream(jsm);
    await jsm.consumers.add(LOG_STREAM, { durable_name: name, filter_subject: `rl.log.${name}.*`, ack_policy: AckPolicy.All, deliver_policy: DeliverPolicy.New, ack_wait: 600_000_000_000, ...config });
    const log = new EventLog(jetstream(nats.nc), jsm, { producer: 'test', clock: { now: () => new Date() } });
    let appended = 0;
    const append = () => log.append(aggregateRef(name, 'a'), [{ type: 'Plain', data: { n: ++appended } }], { commandId: `${name}-${appended}` });
    // Each pull as asked, and when the tap saw it (a lower bound on the gaps between pulls: load only lengthens them).
    const pulls: Array<{ batch: number; no_wait?: boolean; seenAt: number }> = [];
    const tap = nats.nc.subscribe(`$JS.API.CONSUMER.MSG.NEXT.${LOG_STREAM}.${name}`, { callback: (_e, m) => void pulls.push({ ...m.json<{ batch: number; no_wait?: boolean }>(), seenAt: performance.now() }) });
    await nats.nc.flush();
    return { name, jsm, append, pulls, stop: () => tap.unsubscribe() };
  }

  /** Reads bursts in the background until stopped. */
  function read(pull: BurstPull) {
    const bursts: JsMsg[][] = [];
    const done = (async () => {
      for await (const burst of pull) bursts.push(burst);
    })();
    return { bursts, seqs: () => bursts.map((b) => b.map((m) => m.seq)), done };
  }

  it('Issue 22: events appended while the first one of a quiet spell waits its linger come in one burst, for one wait and one no-wait pull', async () => {
    const d = await durable();
    const pull = new BurstPull(nats.nc, d.name, { batch: 16, lingerMs: 1_000, expiresMs: 5_000 });
    const reader = read(pull);
    try {
      const first = (await d.append()).version;
      const rest: number[] = [];
      for (let i = 0; i < 4; i++) rest.push((await d.append()).version);
      await waitUntil(() => reader.bursts.length >= 1, { timeoutMs: 30_000, description: 'the first burst' });
      expect(reader.seqs()[0]).toEqual([first, ...rest]);
      expect(d.pulls.slice(0, 2)).toEqual([expect.objectContaining({ batch: 1 }), expect.objectContaining({ batch: 15, no_wait: true })]);
      // Delivered as JetStream messages: acking the last settles the burst on an ack-all durable.
      reader.bursts[0][4].ack();
      await waitUntil(async () => (await d.jsm.consumers.info(LOG_STREAM, d.name)).ack_floor.stream_seq === rest[3], { timeoutMs: 30_000, description: 'the burst acked' });
    } finally {
      await pull.close();
      await reader.done;
      d.stop();
    }
  });

  it('Issue 22: a full burst is followed by the next at once; every delivery comes once, in log order', async () => {
    const d = await durable();
    const seqs: number[] = [];
    for (let i = 0; i < 10; i++) seqs.push((await d.append()).version);
    const pull = new BurstPull(nats.nc, d.name, { batch: 4, lingerMs: 200, expiresMs: 5_000 });
    const reader = read(pull);
    try {
      await waitUntil(() => reader.bursts.flat().length >= 10, { timeoutMs: 30_000, description: 'every delivery' });
      expect(reader.seqs()).toEqual([seqs.slice(0, 4), seqs.slice(4, 8), seqs.slice(8)]);
    } finally {
      await pull.close();
      await reader.done;
      d.stop();
    }
  });

  it('Issue 22: a pull the server lost (nats-server restarted under it) is asked again: events appended after the restart still come', async () => {
    const d = await durable();
    const pull = new BurstPull(nats.nc, d.name, { batch: 4, lingerMs: 25, expiresMs: 1_000 });
    const reader = read(pull);
    try {
      const before = (await d.append()).version;
      await waitUntil(() => reader.bursts.length >= 1, { timeoutMs: 30_000, description: 'the burst before the restart' });
      await nats.server.restart();
      await waitUntil(async () => (await d.append().then(() => true, () => false)), { timeoutMs: 30_000, description: 'an append after the restart' });
      await waitUntil(() => reader.bursts.flat().length >= 2, { timeoutMs: 30_000, description: 'the event appended after the restart' });
      expect(reader.bursts.flat()[0].seq).toBe(before);
    } finally {
      await pull.close();
      await reader.done;
      d.stop();
    }
  });

  it('a pull the server refuses (409: too many pulls waiting) is asked again after a pause, not in a tight loop', async () => {
    const d = await durable({ max_waiting: 1 });
    // Another pull waits on the durable: every one of BurstPull's is refused while it does.
    const other = nats.nc.subscribe(`_INBOX.other.${d.name}`);
    nats.nc.publish(`$JS.API.CONSUMER.MSG.NEXT.${LOG_STREAM}.${d.name}`, JSON.stringify({ batch: 1, expires: 30_000_000_000 }), { reply: `_INBOX.other.${d.name}` });
    await nats.nc.flush();
    const pull = new BurstPull(nats.nc, d.name, { batch: 4, lingerMs: 25, expiresMs: 5_000 });
    const reader = read(pull);
    try {
      // The other one's pull, then three of BurstPull's, each refused: the next is asked a pause (REFUSED_PULL_DELAY_MS,
      // 250 ms) after the refusal, never at once (without the pause they came a millisecond apart, hundreds a second).
      await waitUntil(() => d.pulls.length >= 4, { timeoutMs: 30_000, description: 'three refused pulls' });
      const [, first, second, third] = d.pulls;
      expect(Math.min(second.seenAt - first.seenAt, third.seenAt - second.seenAt)).toBeGreaterThanOrEqual(200);
    } finally {
      await pull.close();
      await reader.done;
      other.unsubscribe();
      d.stop();
    }
  });

  it('close ends the reading at once, even while a pull waits for a first delivery', async () => {
    const d = await durable();
    const pull = new BurstPull(nats.nc, d.name, { batch: 4, lingerMs: 25, expiresMs: 30_000 });
    const reader = read(pull);
    await waitUntil(() => d.pulls.length >= 1, { timeoutMs: 30_000, description: 'the waiting pull' });
    await pull.close();
    await reader.done;
    expect(reader.bursts).toEqual([]);
    d.stop();
  });
});
