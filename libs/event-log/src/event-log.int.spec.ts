import { connect, NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, JetStreamManager } from '@nats-io/jetstream';
import { FixedClock } from '@runledger/kernel';
import { startNatsServer, NatsServerHandle, waitUntil } from '@runledger/testing';
import { aggregateRef, ConcurrencyError, Decider, encodeEnvelope, ensureLogStream, EventEnvelope, EventLog, ForeignMessageError, handleCommand, LOG_STREAM, storedEvents, storedMessageOf, writerHeaders } from './index';

// Generous: the suite must hold while the machine is busy with other loads (waits are on conditions, not time).
jest.setTimeout(60_000);

describe('EventLog on a real nats-server', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let log: EventLog;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect(server.connectOptions());
    jsm = await jetstreamManager(nc);
    await ensureLogStream(jsm);
    log = new EventLog(jetstream(nc), jsm, { producer: 'spec', clock: new FixedClock(new Date('2026-01-01T00:00:00Z')) });
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it('Effects happen once: a retried command (same command id) appends nothing new', async () => {
    const ref = aggregateRef('run', 'idem-1');
    const first = await log.append(ref, [{ type: 'A', data: { n: 1 } }, { type: 'B', data: { n: 2 } }], { commandId: 'cmd-1', expectedVersion: 0 });
    const retry = await log.append(ref, [{ type: 'A', data: { n: 1 } }, { type: 'B', data: { n: 2 } }], { commandId: 'cmd-1', expectedVersion: 0 });
    expect(retry.duplicate).toBe(true);
    expect(retry.events.map((e) => e.seq)).toEqual(first.events.map((e) => e.seq));
    expect((await log.read(ref)).map((e) => e.type)).toEqual(['A', 'B']);
  });

  it('Optimistic concurrency: an append on a stale version is refused with ConcurrencyError', async () => {
    const ref = aggregateRef('run', 'occ-1');
    const v1 = await log.append(ref, [{ type: 'A', data: {} }], { commandId: 'c1', expectedVersion: 0 });
    await log.append(ref, [{ type: 'B', data: {} }], { commandId: 'c2', expectedVersion: v1.version });
    await expect(log.append(ref, [{ type: 'C', data: {} }], { commandId: 'c3', expectedVersion: v1.version })).rejects.toBeInstanceOf(ConcurrencyError);
    await expect(log.append(ref, [{ type: 'C', data: {} }], { commandId: 'c3b', expectedVersion: 0 })).rejects.toBeInstanceOf(ConcurrencyError);
    expect((await log.read(ref)).map((e) => e.type)).toEqual(['A', 'B']);
  });

  describe('One commit per append: the events of one command are one message, stored whole or not at all', () => {
    it('an append of several events is one message; each event is at (stream sequence, index in the commit) and the version is that sequence', async () => {
      const ref = aggregateRef('run', 'commit-1');
      const before = (await jsm.streams.info(LOG_STREAM)).state.messages;
      const result = await log.append(ref, ['A', 'B', 'C', 'D'].map((type) => ({ type, data: {} })), { commandId: 'commit-1', expectedVersion: 0 });
      expect((await jsm.streams.info(LOG_STREAM)).state.messages).toBe(before + 1);
      expect(result.events.map((e) => [e.type, e.seq, e.index])).toEqual(['A', 'B', 'C', 'D'].map((type, index) => [type, result.version, index]));
      expect((await log.read(ref)).map((e) => [e.type, e.seq, e.index])).toEqual(result.events.map((e) => [e.type, e.seq, e.index]));
      expect((await log.last(ref))?.type).toBe('D');
      expect((await log.first(ref))?.type).toBe('A');
    });

    it('metadata an event does not share with the commit round-trips, including a key only some events have', async () => {
      const ref = aggregateRef('run', 'commit-meta');
      await log.append(ref, [
        { type: 'A', data: { n: 1 }, metadata: { run_id: 'commit-meta', case_id: 'case-1' } },
        { type: 'B', data: { n: 2 }, metadata: { run_id: 'commit-meta', causation_id: 'other-cause' } },
      ], { commandId: 'commit-meta', expectedVersion: 0 });
      const [a, b] = await log.read(ref);
      expect(a.metadata).toMatchObject({ run_id: 'commit-meta', case_id: 'case-1', causation_id: 'commit-meta' });
      expect(b.metadata).toMatchObject({ run_id: 'commit-meta', causation_id: 'other-cause' });
      expect(b.metadata).not.toHaveProperty('case_id');
      expect(a.metadata.event_id).not.toBe(b.metadata.event_id);
    });

    it('a retry whose first event id finds a format-1 prefix of itself (one event per message) conflicts: the prefix is never taken for the whole commit', async () => {
      const ref = aggregateRef('run', 'format1-prefix');
      // What a format-1 release stored of a 3-event append before it crashed: its first event, under the same id.
      const first = await log.append(ref, [{ type: 'Alpha', data: {} }], { commandId: 'prefixed', expectedVersion: 0 });
      await expect(log.append(ref, ['Alpha', 'Beta', 'Gamma'].map((type) => ({ type, data: {} })), { commandId: 'prefixed', expectedVersion: 0 })).rejects.toBeInstanceOf(ConcurrencyError);
      expect((await log.read(ref)).map((e) => e.type)).toEqual(['Alpha']);
      expect(first.events[0].metadata.event_id).toBeTruthy();
    });

    it('messages of log format 1 (one event each, written before commits) and commits read as one aggregate, in order', async () => {
      const ref = aggregateRef('run', 'mixed-formats');
      const legacy = (type: string, n: number): EventEnvelope => ({ type, data: { n }, metadata: { event_id: `00000000-0000-4000-8000-00000000000${n}`, stream_id: 'mixed-formats', schema_version: 1, contract_version: 'v1', producer: 'release-c732176', recorded_at: '2026-11-26T00:00:00.000Z' } });
      const js = jetstream(nc);
      // As release c732176 published them: one event each, its type in the writer's header.
      await js.publish(ref.subject, encodeEnvelope(legacy('Old1', 1)), { headers: writerHeaders('Old1') });
      const v = (await js.publish(ref.subject, encodeEnvelope(legacy('Old2', 2)), { headers: writerHeaders('Old2') })).seq;
      await log.append(ref, [{ type: 'New1', data: {} }, { type: 'New2', data: {} }], { commandId: 'mixed', expectedVersion: v });
      const events = await log.read(ref);
      expect(events.map((e) => [e.type, e.index])).toEqual([['Old1', 0], ['Old2', 0], ['New1', 0], ['New2', 1]]);
      expect(events[1].metadata.producer).toBe('release-c732176');
      const { state } = await log.replay<string[]>((acc, e) => (acc.push(e.type), acc), [], { filter: ref.subject });
      expect(state).toEqual(['Old1', 'Old2', 'New1', 'New2']);
    });

    it('appends racing on one aggregate: every event of the winner is contiguous, the losers conflict and append nothing', async () => {
      const ref = aggregateRef('run', 'pipe-race');
      const writers = [jetstream(nc), jetstream(await connect(server.connectOptions())), jetstream(await connect(server.connectOptions()))];
      const logs = writers.map((js) => new EventLog(js, jsm, { producer: 'spec', clock: new FixedClock(new Date()) }));
      const outcomes = await Promise.allSettled(logs.map((l, w) => l.append(ref, [1, 2, 3].map((n) => ({ type: `W${w}`, data: { n } })), { commandId: `race-${w}`, expectedVersion: 0 })));
      const winners = outcomes.filter((o) => o.status === 'fulfilled');
      expect(winners).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === 'rejected').every((o) => (o as PromiseRejectedResult).reason instanceof ConcurrencyError)).toBe(true);
      const types = (await log.read(ref)).map((e) => e.type);
      expect(types).toHaveLength(3);
      expect(new Set(types).size).toBe(1);
    });
  });

  it('Envelope: metadata carries event id, stream id, causation, versions, producer and the time as data', async () => {
    const ref = aggregateRef('run', 'meta-1');
    await log.append(ref, [{ type: 'A', data: { x: 1 }, metadata: { run_id: 'meta-1', correlation_id: 'corr' } }], { commandId: 'cmd-m' });
    const [e] = await log.read(ref);
    expect(e.metadata).toMatchObject({ stream_id: 'meta-1', run_id: 'meta-1', correlation_id: 'corr', causation_id: 'cmd-m', schema_version: 1, contract_version: 'v1', producer: 'spec', recorded_at: '2026-01-01T00:00:00.000Z' });
    expect(e.metadata.event_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('Codec: every read path (short and long reads, first, replay) hands back opened events', async () => {
    // A reversible stand-in for issue 9's sealing codec: what is stored differs from what callers see.
    const codec = {
      seal: (e: EventEnvelope) => ({ ...e, data: { sealed: Buffer.from(JSON.stringify(e.data)).toString('base64') } }),
      open: <E extends EventEnvelope>(e: E): E => ({ ...e, data: JSON.parse(Buffer.from((e.data as { sealed: string }).sealed, 'base64').toString()) }),
    };
    const sealedLog = new EventLog(jetstream(nc), jsm, { producer: 'spec', clock: new FixedClock(new Date()), codec });
    const short = aggregateRef('run', 'codec-short');
    const long = aggregateRef('run', 'codec-long');
    await sealedLog.append(short, [{ type: 'A', data: { secret: 'short' } }], { commandId: 'codec-s' });
    await sealedLog.append(long, Array.from({ length: 40 }, (_, i) => ({ type: 'A', data: { secret: `long-${i}` } })), { commandId: 'codec-l' });
    expect((await log.read(short))[0].data).not.toEqual({ secret: 'short' }); // stored sealed
    expect((await sealedLog.read(short)).map((e) => e.data)).toEqual([{ secret: 'short' }]);
    expect((await sealedLog.read(long)).map((e) => (e.data as { secret: string }).secret)).toEqual(Array.from({ length: 40 }, (_, i) => `long-${i}`));
    expect((await sealedLog.first(long))?.data).toEqual({ secret: 'long-0' });
    const { state } = await sealedLog.replay<string[]>((acc, e) => [...acc, (e.data as { secret: string }).secret], [], { filter: short.subject });
    expect(state).toEqual(['short']);
  });

  it('Issue 23 reads create no consumer: a range and a replay of the whole log, longer than the gets kept in flight, come by direct gets in order, each message once', async () => {
    const ref = aggregateRef('run', 'dense-1');
    const versions: number[] = [];
    for (let i = 0; i < 700; i++) versions.push((await log.append(ref, [{ type: 'A', data: { i } }], { commandId: `dense-${i}` })).version);
    const range = await log.range('rl.log.run.*', versions[0], versions[versions.length - 1]);
    expect(range.map((e) => (e.data as { i: number }).i)).toEqual(versions.map((_, i) => i));
    const { state } = await log.replay<number[]>((acc, e) => (e.subject === ref.subject ? [...acc, e.seq] : acc), [], { fromSeq: versions[0] });
    expect(state).toEqual(versions);
    expect((await log.read(ref)).length).toBe(700);
    const consumers: string[] = [];
    for await (const c of jsm.consumers.list(LOG_STREAM)) consumers.push(c.name);
    expect(consumers).toEqual([]);
  });

  it('Issue 23 tamper named: a sequence the stream cannot hand out inside a read range, or a commit of an aggregate, is LOG.UNREADABLE with its sequence, never skipped or waited on', async () => {
    // A stream that allows a message delete stands for a store file edited on disk (nats-server then has no message there).
    await jsm.streams.add({ name: 'DAMAGED', subjects: ['damaged.>'], allow_direct: true });
    const js = jetstream(nc);
    for (let i = 1; i <= 3; i++) await js.publish(`damaged.${i}`, encodeEnvelope({ type: 'A', data: { i }, metadata: {} } as unknown as EventEnvelope));
    await jsm.streams.deleteMessage('DAMAGED', 2);
    const damaged = new EventLog(js, jsm, { producer: 'spec', clock: new FixedClock(new Date()), stream: 'DAMAGED' });
    const seen: number[] = [];
    await expect(damaged.messages('damaged.>', 1, 3, (m) => void seen.push(m.seq))).rejects.toMatchObject({ code: 'LOG.UNREADABLE', seq: 2, retryable: false });
    expect(seen).toEqual([1]);
    // One aggregate read commit by commit: each commit names the version it was appended on, so the one not handed
    // out is named too (the server's next-by-subject would step over it).
    for (let i = 1, version = 0; i <= 3; i++) version = (await js.publish('damaged.agg', encodeEnvelope({ type: 'A', data: { i }, metadata: {} } as unknown as EventEnvelope), { expect: { lastSubjectSequence: version } })).seq;
    const middle = (await jsm.streams.getMessage('DAMAGED', { last_by_subj: 'damaged.agg' }))!.seq - 1;
    await jsm.streams.deleteMessage('DAMAGED', middle);
    await expect(damaged.read('damaged.agg')).rejects.toMatchObject({ code: 'LOG.UNREADABLE', seq: middle });
    await jsm.streams.delete('DAMAGED');
  });

  it('Issue 23 tamper named (probe): an aggregate whose first commit cannot be handed out is LOG.UNREADABLE with its sequence, never an aggregate without its creation record', async () => {
    await jsm.streams.add({ name: 'DAMAGED_FIRST', subjects: ['damagedfirst.>'], allow_direct: true });
    const js = jetstream(nc);
    const damaged = new EventLog(js, jsm, { producer: 'spec', clock: new FixedClock(new Date()), stream: 'DAMAGED_FIRST' });
    const ref = { kind: 'damagedfirst', id: 'agg', subject: 'damagedfirst.agg' };
    const created = await damaged.append(ref, [{ type: 'Created', data: {} }], { commandId: 'first', expectedVersion: 0 });
    await damaged.append(ref, [{ type: 'Changed', data: {} }], { commandId: 'second', expectedVersion: created.version });
    // Intact, both read; the creation record is the first event.
    expect((await damaged.read(ref)).map((e) => e.type)).toEqual(['Created', 'Changed']);
    await jsm.streams.deleteMessage('DAMAGED_FIRST', created.version);
    await expect(damaged.read(ref)).rejects.toMatchObject({ code: 'LOG.UNREADABLE', seq: created.version });
    await expect(damaged.first(ref)).rejects.toMatchObject({ code: 'LOG.UNREADABLE', seq: created.version });
    await jsm.streams.delete('DAMAGED_FIRST');
  });

  it('Immutability: the stream refuses message deletes and purges', async () => {
    const ref = aggregateRef('run', 'imm-1');
    const { version } = await log.append(ref, [{ type: 'A', data: {} }], { commandId: 'imm' });
    await expect(jsm.streams.deleteMessage(LOG_STREAM, version)).rejects.toThrow();
    await expect(jsm.streams.purge(LOG_STREAM)).rejects.toThrow();
    await expect(jsm.streams.purge(LOG_STREAM, { filter: ref.subject })).rejects.toThrow();
    expect(await log.read(ref)).toHaveLength(1);
    const info = await jsm.streams.info(LOG_STREAM);
    expect(info.config).toMatchObject({ deny_delete: true, deny_purge: true, allow_rollup_hdrs: false, discard: 'new', max_msgs: -1, max_bytes: -1, max_age: 0 });
  });

  it('Replay: folding the whole log from a sequence sees every event once, in order', async () => {
    const ref = aggregateRef('run', 'replay-1');
    const first = await log.append(ref, [{ type: 'N', data: { n: 1 } }], { commandId: 'r1', expectedVersion: 0 });
    await log.append(ref, [2, 3].map((n) => ({ type: 'N', data: { n } })), { commandId: 'r2', expectedVersion: first.version });
    const { state } = await log.replay((acc: number[], e) => (e.subject === ref.subject ? [...acc, (e.data as { n: number }).n] : acc), []);
    expect(state).toEqual([1, 2, 3]);
    // From a sequence: every event of the commits from there on (a commit is read whole).
    const tail = await log.read(ref, (await log.read(ref))[1].seq);
    expect(tail.map((e) => (e.data as { n: number }).n)).toEqual([2, 3]);
  });

  it('reading an aggregate with no events gives an empty list and version 0', async () => {
    const ref = aggregateRef('run', 'nothing-here');
    expect(await log.read(ref)).toEqual([]);
    expect(await log.version(ref)).toBe(0);
  });

  it('Effects happen once: a retried command with other content gets back what the log holds, not its own data', async () => {
    const ref = aggregateRef('run', 'dup-content');
    await log.append(ref, [{ type: 'A', data: { winner: 'first' } }], { commandId: 'same' });
    const retry = await log.append(ref, [{ type: 'A', data: { winner: 'second' } }], { commandId: 'same' });
    expect(retry.duplicate).toBe(true);
    expect(retry.events[0].data).toEqual({ winner: 'first' });
  });

  it('Chain integrity: one event id names one event in the log, even when a command id is used again on a later version', async () => {
    const ref = aggregateRef('run', 'label-again');
    const first = await log.append(ref, [{ type: 'A', data: { n: 1 } }], { commandId: 'label', expectedVersion: 0 });
    const again = await log.append(ref, [{ type: 'A', data: { n: 2 } }], { commandId: 'label', expectedVersion: first.version });
    expect(again.duplicate).toBe(false);
    const ids = (await log.read(ref)).map((e) => e.metadata.event_id);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    // A retry on the version it was decided on is still recognised as the same commit.
    const retried = await log.append(ref, [{ type: 'A', data: { n: 2 } }], { commandId: 'label', expectedVersion: first.version });
    expect(retried).toMatchObject({ duplicate: true, version: again.version });
  });

  it('Replay of a filter that matches nothing returns (an ordered consumer would wait forever; the test timeout catches that)', async () => {
    const { state, lastSeq } = await log.replay((n: number) => n + 1, 0, { filter: 'rl.log.nothing-here.*' });
    expect({ state, lastSeq }).toEqual({ state: 0, lastSeq: 0 });
  });

  it('A message that is not an event does not make its aggregate unreadable', async () => {
    const ref = aggregateRef('run', 'garbage-1');
    await log.append(ref, [{ type: 'A', data: {} }], { commandId: 'g1' });
    await jetstream(nc).publish(ref.subject, new TextEncoder().encode('not an envelope'));
    await log.append(ref, [{ type: 'B', data: {} }], { commandId: 'g2' });
    expect((await log.read(ref)).map((e) => e.type)).toEqual(['A', 'B']);
  });

  it('first(): the aggregate\'s creation record in one read, null for an aggregate with no events', async () => {
    const ref = aggregateRef('run', 'first-1');
    await log.append(ref, [{ type: 'RunCreated', data: { n: 1 } }, { type: 'Next', data: {} }], { commandId: 'f1' });
    expect((await log.first(ref))?.type).toBe('RunCreated');
    expect(await log.first(aggregateRef('run', 'first-none'))).toBeNull();
  });

  describe('Messages the server itself stores (a JetStream API answer or a direct get\'s copy sent to a log subject as a request\'s reply): no writer made them, every reader skips them', () => {
    /** Has nats-server publish the answer to `api` on `subject` (as any identity with JetStream API rights can); its sequence. */
    const storedByServer = async (subject: string, api: string, body: unknown = ''): Promise<number> => {
      const before = await log.version(subject);
      nc.publish(api, typeof body === 'string' ? body : JSON.stringify(body), { reply: subject });
      return waitUntil(async () => {
        const now = await log.version(subject);
        return now > before ? now : null;
      }, { timeoutMs: 20_000, description: `the server's answer stored on ${subject}` }) as Promise<number>;
    };

    it('an answer stored after an aggregate\'s last commit hides nothing: last and lastCommit give that commit, read skips the answer, the next append goes on after it', async () => {
      const ref = aggregateRef('run', 'answer-after-end');
      await log.append(ref, [{ type: 'Started', data: {} }], { commandId: 'ae-1', expectedVersion: 0 });
      const ended = await log.append(ref, [{ type: 'Step', data: {} }, { type: 'RunCompleted', data: {} }], { commandId: 'ae-2', expectedVersion: (await log.version(ref)) });
      const answer = await storedByServer(ref.subject, `$JS.API.STREAM.INFO.${LOG_STREAM}`);
      expect((await log.lastCommit(ref)).map((e) => e.type)).toEqual(['Step', 'RunCompleted']);
      expect((await log.last(ref))?.seq).toBe(ended.version);
      const { events, version } = await log.readAggregate(ref);
      expect(events.map((e) => e.type)).toEqual(['Started', 'Step', 'RunCompleted']);
      expect(version).toBe(answer);
      await log.append(ref, [{ type: 'Noted', data: {} }], { commandId: 'ae-3', expectedVersion: version });
      expect((await log.read(ref)).map((e) => e.type)).toEqual(['Started', 'Step', 'RunCompleted', 'Noted']);
    });

    it('a direct get\'s copy of a writer-shaped commit on a fresh subject makes no aggregate there: first and read find nothing, the copy is named ForeignMessageError', async () => {
      // The worst copy: a message of the insider's own choosing (a commit for the target, with the writer's header),
      // stored in a stream it may write, copied onto the log by a direct get whose reply subject is the target's.
      const target = aggregateRef('run', 'copied-to');
      await jsm.streams.add({ name: 'SIDE', subjects: ['side.>'], allow_direct: true });
      const forged = encodeEnvelope({ type: 'RunCreated', data: { owner: 'mallory' }, metadata: { event_id: 'forged-1', stream_id: target.id, schema_version: 1, contract_version: 'v1', producer: 'decision', recorded_at: '2026-01-01T00:00:00.000Z' } });
      const side = await jetstream(nc).publish('side.forged', forged, { headers: writerHeaders('RunCreated') });
      const copy = await storedByServer(target.subject, '$JS.API.DIRECT.GET.SIDE', { seq: side.seq });
      // The copy carries the forged writer header and body: only the server's sequence header of the original gives it away.
      const stored = await jsm.direct.getMessage(LOG_STREAM, { seq: copy });
      expect(stored?.header?.get('Rl-Event-Type')).toBe('RunCreated');
      expect(() => storedEvents(storedMessageOf(stored!))).toThrow(ForeignMessageError);
      expect(await log.first(target)).toBeNull();
      expect(await log.read(target)).toEqual([]);
    });

    it('a status the server stored (a direct get for a sequence it lacks: `NATS/1.0 404`) is a message, not "none": the version is past it, the last commit and the events read as before, the next append goes on after it', async () => {
      const ref = aggregateRef('run', 'stored-404');
      const done = await log.append(ref, [{ type: 'Started', data: {} }, { type: 'RunCompleted', data: {} }], { commandId: 's404-1', expectedVersion: 0 });
      const status = await storedByServer(ref.subject, `$JS.API.DIRECT.GET.${LOG_STREAM}`, { seq: 999_999_999 });
      expect((await jsm.streams.getMessage(LOG_STREAM, { seq: status }))?.header?.code).toBe(404);
      expect(await log.version(ref)).toBe(status);
      expect((await log.lastCommit(ref)).map((e) => e.seq)).toEqual([done.version, done.version]);
      expect((await log.read(ref)).map((e) => e.type)).toEqual(['Started', 'RunCompleted']);
      await log.append(ref, [{ type: 'Noted', data: {} }], { commandId: 's404-2', expectedVersion: await log.version(ref) });
      expect((await log.read(ref)).map((e) => e.type)).toEqual(['Started', 'RunCompleted', 'Noted']);
    });

    it('a stored `NATS/1.0 408` (a malformed direct get) fails no read: a range and a replay skip it as no writer\'s, by direct gets and through a consumer alike', async () => {
      const ref = aggregateRef('run', 'stored-408');
      const from = (await log.append(ref, [{ type: 'Started', data: {} }], { commandId: 's408-1', expectedVersion: 0 })).version;
      const status = await storedByServer(ref.subject, `$JS.API.DIRECT.GET.${LOG_STREAM}`, 'garbage');
      expect((await jsm.streams.getMessage(LOG_STREAM, { seq: status }))?.header?.code).toBe(408);
      for (const reader of [log, new EventLog(jetstream(nc), jsm, { producer: 'spec', clock: new FixedClock(new Date()), mayCreateConsumers: true })]) {
        const skipped: number[] = [];
        const events = await reader.range(ref.subject, from, status, (m, err) => {
          expect(err).toBeInstanceOf(ForeignMessageError);
          skipped.push(m.seq);
        });
        expect(events.map((e) => e.type)).toEqual(['Started']);
        expect(skipped).toEqual([status]);
      }
      expect((await log.readAggregate(ref)).version).toBe(status);
    });

    it('a message stored on a subject before its creation record does not hide who created it: first gives the creation', async () => {
      const ref = aggregateRef('run', 'answer-before-create');
      const early = await storedByServer(ref.subject, `$JS.API.STREAM.INFO.${LOG_STREAM}`);
      await log.append(ref, [{ type: 'RunCreated', data: { owner: 'bob' } }], { commandId: 'abc-1', expectedVersion: early });
      expect(await log.first(ref)).toMatchObject({ type: 'RunCreated', data: { owner: 'bob' } });
    });

    it('a copy of a commit whose events name another aggregate than its subject is no writer\'s (an append stamps its subject\'s id on every event)', () => {
      const body = encodeEnvelope({ type: 'RunCreated', data: {}, metadata: { event_id: 'e-1', stream_id: 'someone-else', schema_version: 1, contract_version: 'v1', producer: 'spec', recorded_at: '2026-01-01T00:00:00.000Z' } });
      expect(() => storedEvents({ seq: 7, subject: 'rl.log.run.mine', data: body, headers: writerHeaders('RunCreated') })).toThrow(/holds events of someone-else, not of rl.log.run.mine/);
    });
  });

  describe('handleCommand with a state the caller folded earlier (known): decided without a read, never on a stale state', () => {
    // Adds a number once: a number the state holds already is nothing to do.
    const adder: Decider<number, { type: 'Added'; data: { n: number } }, number[]> = {
      initialState: () => [],
      evolve: (state, e) => [...state, e.data.n],
      decide: (n, state) => (state.includes(n) ? [] : [{ type: 'Added', data: { n } }]),
    };

    it('a known state another writer moved on meanwhile conflicts, and the command is decided again on the log', async () => {
      const ref = aggregateRef('conversation', 'known-1');
      const first = await handleCommand(log, ref, adder, 1, { commandId: 'add-1' });
      await handleCommand(log, ref, adder, 2, { commandId: 'add-2' }); // another writer, after `first` was folded
      const result = await handleCommand(log, ref, adder, 3, { commandId: 'add-3', known: { state: first.state, version: first.version } });
      expect(result.state).toEqual([1, 2, 3]);
      expect((await log.read(ref)).map((e) => (e.data as { n: number }).n)).toEqual([1, 2, 3]);
    });

    it('a known state that finds nothing to do is not trusted for it: the log is read and the command decided on it', async () => {
      const ref = aggregateRef('conversation', 'known-2');
      const result = await handleCommand(log, ref, adder, 5, { commandId: 'add-5', known: { state: [5], version: 0 } });
      expect(result.appended.map((e) => e.type)).toEqual(['Added']);
      expect((await log.read(ref)).map((e) => (e.data as { n: number }).n)).toEqual([5]);
    });
  });

  // Last: it stops and restarts the server under the other tests' feet.
  it('Issue 10 transient stays transient: a read the log cannot answer is DEPENDENCY.DOWN (retryable), never "absent"', async () => {
    const ref = aggregateRef('run', 'transient-1');
    await log.append(ref, [{ type: 'RunCreated', data: {} }], { commandId: 't1' });
    // A short request timeout so the disconnected reads fail fast instead of after the default 5 s.
    const impatient = new EventLog(jetstream(nc, { timeout: 500 }), await jetstreamManager(nc, { timeout: 500 }), { producer: 'spec', clock: new FixedClock(new Date()) });
    server.kill('SIGKILL');
    for (const read of [() => impatient.first(ref), () => impatient.read(ref), () => impatient.version(ref), () => impatient.replay((n: number) => n + 1, 0)]) {
      await expect(read()).rejects.toMatchObject({ code: 'DEPENDENCY.DOWN', retryable: true });
    }
    await server.restart();
    await waitUntil(async () => (await log.first(ref).catch(() => null))?.type === 'RunCreated', { timeoutMs: 20_000 });
  }, 60_000);
});
