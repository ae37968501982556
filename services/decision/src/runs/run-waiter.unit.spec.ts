import { headers as natsHeaders } from '@nats-io/transport-node';
import { encodeCommit, type StoredEvent } from '@runledger/event-log';
import type { ServiceRuntime } from '@runledger/messaging';
import type { RunRepository } from '@runledger/runs';
import { POLL_WITHOUT_FEED_MS, RunWaiter } from './run-waiter';

const RUN = 'run-1';
const event = (type: string): StoredEvent => ({ type, data: {}, metadata: { event_id: `${type}-id`, stream_id: RUN } as StoredEvent['metadata'], seq: 7, index: 0, subject: `rl.log.run.decision.${RUN}` });
/** Headers as the client hands them out (the waiter reads the server's stamps off them, the last of each). */
const headers = (h: Record<string, string>) => {
  const out = natsHeaders();
  for (const [k, v] of Object.entries(h)) out.set(k, v);
  return out;
};

/** A RunWaiter over a fake bus (a live subject or none) and a fake log whose run's last event a test sets. */
function waiter(opts: { feed: boolean }) {
  const log: { last: StoredEvent | null; reads: number; fail: boolean } = { last: null, reads: 0, fail: false };
  let deliver: ((m: { data: Uint8Array; headers?: unknown }) => void) | undefined;
  const unsubscribed = { n: 0 };
  const runtime = {
    nc: {
      subscribe: (_subject: string, o: { callback: (err: unknown, m: unknown) => void }) => {
        deliver = (m) => o.callback(null, m);
        return { unsubscribe: () => unsubscribed.n++ };
      },
    },
  } as unknown as ServiceRuntime;
  const runs = {
    log: { liveSubject: async () => (opts.feed ? `rl.live.run.decision.${RUN}` : null), open: (e: StoredEvent) => e },
    lastCommit: async () => {
      log.reads++;
      if (log.fail) throw new Error('nats-server restarting');
      return log.last ? [log.last] : [];
    },
  } as unknown as RunRepository;
  const hear = (types: string[], data?: Uint8Array) =>
    deliver!({ data: data ?? encodeCommit(types.map(event)), headers: headers({ 'Rl-Event-Type': types.join(','), 'Nats-Sequence': '7', 'Nats-Subject': `rl.log.run.decision.${RUN}` }) });
  return { w: new RunWaiter(runtime, runs), log, hear, unsubscribed };
}

const flush = () => new Promise<void>((r) => jest.requireActual<typeof import('timers')>('timers').setImmediate(r));

describe('Issue 21 RunWaiter: an event-driven wait for a run\'s terminal event, one timeout, no loop', () => {
  afterEach(() => jest.useRealTimers());

  it('a terminal event heard on the live feed is the outcome, with no read of the log; the subscription ends', async () => {
    const { w, log, hear, unsubscribed } = waiter({ feed: true });
    const watch = await w.watch(RUN, 60_000, { newRun: true });
    hear(['StepCompleted']);
    hear(['DecisionRecorded', 'RunCompleted']);
    // With the commit that holds it: a task run's decision is recorded beside RunCompleted.
    await expect(watch.outcome).resolves.toMatchObject({ terminal: { type: 'RunCompleted' }, commit: [{ type: 'DecisionRecorded' }, { type: 'RunCompleted' }], heard: true });
    expect(log.reads).toBe(0);
    expect(unsubscribed.n).toBe(1);
  });

  it('an outcome recorded before the watch (a repeated request) is found by the read right after subscribing', async () => {
    const { w, log } = waiter({ feed: true });
    log.last = event('RunFailed');
    const watch = await w.watch(RUN, 60_000);
    await expect(watch.lastAtStart).resolves.toMatchObject({ type: 'RunFailed' });
    await expect(watch.outcome).resolves.toMatchObject({ terminal: { type: 'RunFailed' } });
  });

  it('Issue 22 a watch begun without a read looks when asked (its request turned out a duplicate): a recorded outcome settles it', async () => {
    const { w, log } = waiter({ feed: true });
    const watch = await w.watch(RUN, 60_000, { newRun: true });
    expect(log.reads).toBe(0);
    log.last = event('RunCompleted');
    await expect(watch.look()).resolves.toMatchObject({ type: 'RunCompleted' });
    await expect(watch.outcome).resolves.toMatchObject({ terminal: { type: 'RunCompleted' }, heard: false });
    expect(log.reads).toBe(1);
  });

  it('a terminal event heard whose body does not decode is looked up in the log', async () => {
    const { w, log, hear } = waiter({ feed: true });
    const watch = await w.watch(RUN, 60_000, { newRun: true });
    log.last = event('RunCancelled');
    hear(['RunCancelled'], new TextEncoder().encode('not a commit'));
    await expect(watch.outcome).resolves.toMatchObject({ terminal: { type: 'RunCancelled' } });
  });

  it('at the timeout the run is looked up once more: an outcome the feed lost is found, none is a timeout', async () => {
    jest.useFakeTimers();
    const found = waiter({ feed: true });
    const a = await found.w.watch(RUN, 5_000, { newRun: true });
    found.log.last = event('RunCompleted');
    jest.advanceTimersByTime(5_000);
    await expect(a.outcome).resolves.toMatchObject({ terminal: { type: 'RunCompleted' } });

    const none = waiter({ feed: true });
    const b = await none.w.watch(RUN, 5_000, { newRun: true });
    none.log.fail = true;
    jest.advanceTimersByTime(5_000);
    await expect(b.outcome).resolves.toBe('timeout');
  });

  it('on a log without the live feed the run is looked at every POLL_WITHOUT_FEED_MS; a failed read is "not yet"', async () => {
    jest.useFakeTimers();
    const { w, log } = waiter({ feed: false });
    const watch = await w.watch(RUN, 60_000, { newRun: true });
    log.fail = true;
    jest.advanceTimersByTime(POLL_WITHOUT_FEED_MS);
    await flush();
    log.fail = false;
    log.last = event('StepCompleted');
    jest.advanceTimersByTime(POLL_WITHOUT_FEED_MS);
    await flush();
    log.last = event('RunCompleted');
    jest.advanceTimersByTime(POLL_WITHOUT_FEED_MS);
    await expect(watch.outcome).resolves.toMatchObject({ terminal: { type: 'RunCompleted' } });
    expect(log.reads).toBe(3);
  });

  it('a cancelled watch (its inbox append failed) never settles and looks no more', async () => {
    jest.useFakeTimers();
    const { w, log, unsubscribed } = waiter({ feed: false });
    const watch = await w.watch(RUN, 5_000, { newRun: true });
    watch.cancel();
    log.last = event('RunCompleted');
    jest.advanceTimersByTime(10_000);
    await flush();
    expect(await Promise.race([watch.outcome, Promise.resolve('pending')])).toBe('pending');
    expect([log.reads, unsubscribed.n]).toEqual([0, 0]);
  });
});
