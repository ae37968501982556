import { waitUntil } from '@runledger/testing';
import { RunRepository } from './run-repository';
import { runRepositoryOnRealLog } from './real-log.fixture';
import { ChildRunSpec, EffectClaimOptions, runChildOnce } from './child-run';

describe('runChildOnce on a real log', () => {
  const log = runRepositoryOnRealLog('tool-gateway');
  let repo: RunRepository;
  beforeAll(() => {
    repo = log.repo();
  });

  const spec = (runId: string, hash = 'h1'): ChildRunSpec => ({
    created: {
      run_id: runId, run_kind: 'tool_gateway', agent_name: 'TASK_ASSISTANT', root_run_id: 'root', parent_run_id: 'root', contract_version: 'v1',
      policy_versions: { lanes: 'l', roles: 'r' }, input_artifacts: [], parameters: {}, request_hash_sha256: hash,
    },
    authz: { decision: 'allow', policy_versions: { lanes: 'l', roles: 'r' } },
  });
  const effect = (counter: { n: number }) => async () => {
    counter.n++;
    return { status: 'completed' as const, result: { ok: true }, audit: [{ type: 'ToolCallAudited', data: { status: 'ok' } }] };
  };

  it('Effects happen once: a second call returns the recorded outcome without running the effect', async () => {
    const calls = { n: 0 };
    const first = await runChildOnce(repo, spec('c-once'), effect(calls));
    const again = await runChildOnce(repo, spec('c-once'), effect(calls));
    expect({ first: first.status, again: again.status, replayed: again.replayed, calls: calls.n }).toEqual({ first: 'completed', again: 'completed', replayed: true, calls: 1 });
  });

  it('Crash safety: a run whose opening was cut short (only RunCreated stored) is completed, not left stuck', async () => {
    const s = spec('c-partial');
    await repo.append(s.created, [{ type: 'RunCreated', data: s.created }], { expectedVersion: 0, commandId: 'crashed-open' });
    const calls = { n: 0 };
    const out = await runChildOnce(repo, s, effect(calls));
    expect({ status: out.status, calls: calls.n, anomalies: out.state.anomalies }).toEqual({ status: 'completed', calls: 1, anomalies: [] });
    expect((await repo.load('c-partial')).events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'ToolCallAudited', 'RunCompleted']);
  });

  it('Crash safety: a close cut short after its audit event (the rest never stored) is completed by the next attempt, not answered as failed', async () => {
    const s = spec('c-half-closed');
    // The first attempt's process dies between the close's events (a replicated log stores them one at a time):
    // its audit event is in the log under the close's command id, its RunCompleted never is.
    const dying = Object.create(repo) as RunRepository;
    dying.appendEvents = async (run, events, opts) => {
      if (!events.some((e) => e.type === 'RunCompleted')) return repo.appendEvents(run, events, opts);
      await repo.appendEvents(run, events.slice(0, 1), opts);
      throw new Error('process died mid-close');
    };
    const calls = { n: 0 };
    await expect(runChildOnce(dying, s, effect(calls))).rejects.toThrow('process died mid-close');
    const out = await runChildOnce(repo, s, effect(calls));
    expect({ status: out.status, result: out.result, calls: calls.n }).toEqual({ status: 'completed', result: { ok: true }, calls: 2 });
    expect((await repo.load('c-half-closed')).events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'ToolCallAudited', 'RunCompleted']);
  });

  it('Effects happen once past the duplicate window: a finished run the claim at version 0 does not recognise is loaded, and its effect not run again', async () => {
    const s = spec('c-old');
    // Recorded under other command ids: the log's msgID dedup cannot recognise it, only the version can.
    await repo.append(s.created, [{ type: 'RunCreated', data: s.created }, { type: 'AuthzDecided', data: s.authz }, { type: 'RunStarted', data: {} }, { type: 'RunCompleted', data: { output_artifacts: [], result: { ok: 'before' } } }], { expectedVersion: 0, commandId: 'long-ago' });
    const calls = { n: 0 };
    const out = await runChildOnce(repo, s, effect(calls));
    expect({ status: out.status, replayed: out.replayed, result: out.result, calls: calls.n }).toEqual({ status: 'completed', replayed: true, result: { ok: 'before' }, calls: 0 });
  });

  it('the same action id with a different request is refused and runs nothing', async () => {
    const calls = { n: 0 };
    await runChildOnce(repo, spec('c-hash', 'h1'), effect(calls));
    await expect(runChildOnce(repo, spec('c-hash', 'h2'), effect(calls))).rejects.toMatchObject({ code: 'REQUEST.INVALID' });
    expect(calls.n).toBe(1);
  });

  describe('Issue 7: a tool call in flight is claimed on the log (owner + lease), never executed twice', () => {
    const T0 = Date.parse('2026-01-01T00:00:00Z');
    /** A claim whose clock the test moves; `polls` counts how often the caller looked at the run (once per wait). */
    const claimOf = (owner: string, clock = { ms: T0, polls: 0 }): EffectClaimOptions & { clock: typeof clock } => ({
      owner, leaseMs: 5_000, pollMs: 5, clock, now: () => (clock.polls++, new Date(clock.ms)),
    });
    /** An effect that counts its executions and holds each one until released. */
    const gatedEffect = () => {
      const calls = { n: 0 };
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const slow = async () => {
        calls.n++;
        await gate;
        return { status: 'completed' as const, result: { ok: true }, audit: [] };
      };
      return { calls, release: () => release(), slow };
    };
    const until = async (cond: () => boolean) => {
      while (!cond()) await new Promise((r) => setTimeout(r, 5));
    };

    it('a second request while the first attempt executes waits for its outcome; the effect runs once', async () => {
      const { calls, release, slow } = gatedEffect();
      const first = runChildOnce(repo, spec('c-inflight'), slow, claimOf('gateway-a'));
      await until(() => calls.n === 1);
      const waiter = claimOf('gateway-b');
      const second = runChildOnce(repo, spec('c-inflight'), slow, waiter);
      await until(() => waiter.clock.polls >= 3); // it found the claim held and is waiting, not executing
      expect(calls.n).toBe(1);
      release();
      const [a, b] = await Promise.all([first, second]);
      expect({ a: a.status, b: b.status, replayed: b.replayed, calls: calls.n }).toEqual({ a: 'completed', b: 'completed', replayed: true, calls: 1 });
      const claims = (await repo.load('c-inflight')).events.filter((e) => e.type === 'EffectClaimed').map((e) => e.data);
      expect(claims).toEqual([{ owner: expect.stringMatching(/^gateway-a\//), attempt: 1, lease_expires_at: '2026-01-01T00:00:05.000Z' }]);
    });

    it('two requests that claim the same call at the same moment (same version read, same instance): the effect runs once', async () => {
      const { calls, release, slow } = gatedEffect();
      // One clock for both: the same gateway instance (same owner) retrying while its first attempt runs.
      const clock = { ms: T0, polls: 0 };
      const both = Promise.all([runChildOnce(repo, spec('c-race'), slow, claimOf('gateway-a', clock)), runChildOnce(repo, spec('c-race'), slow, claimOf('gateway-a', clock))]);
      await until(() => calls.n >= 2 || clock.polls >= 4); // a second execution, or the second attempt waiting on the claim
      release();
      const outcomes = await both;
      expect({ statuses: outcomes.map((o) => o.status), calls: calls.n }).toEqual({ statuses: ['completed', 'completed'], calls: 1 });
      expect((await repo.load('c-race')).events.filter((e) => e.type === 'EffectClaimed')).toHaveLength(1);
    });

    it('a claim of a crashed owner holds until its lease runs out; then the call is taken over and resolved', async () => {
      const s = spec('c-crashed');
      await repo.append(s.created, [
        { type: 'RunCreated', data: s.created }, { type: 'AuthzDecided', data: s.authz }, { type: 'RunStarted', data: {} },
        { type: 'EffectClaimed', data: { owner: 'gateway-crashed', attempt: 1, lease_expires_at: '2026-01-01T00:00:05.000Z' } },
      ], { expectedVersion: 0, commandId: 'crashed-claim' });
      const calls = { n: 0 };
      const taker = claimOf('gateway-b');
      const out = runChildOnce(repo, s, effect(calls), taker);
      await until(() => taker.clock.polls >= 3);
      expect(calls.n).toBe(0); // the lease still holds: the crashed owner might yet record an outcome
      taker.clock.ms = T0 + 5_001;
      expect(await out).toMatchObject({ status: 'completed', replayed: false });
      expect(calls.n).toBe(1);
      const claims = (await repo.load('c-crashed')).events.filter((e) => e.type === 'EffectClaimed').map((e) => e.data);
      expect(claims).toEqual([
        { owner: 'gateway-crashed', attempt: 1, lease_expires_at: '2026-01-01T00:00:05.000Z' },
        { owner: expect.stringMatching(/^gateway-b\//), attempt: 2, lease_expires_at: '2026-01-01T00:00:10.001Z' },
      ]);
    });

    it('an operator\'s cancel request landing while the effect runs: the effect runs once and its outcome is recorded on the run as the log then holds it', async () => {
      const s = spec('c-cancel-midway');
      const clock = { ms: T0, polls: 0 };
      const calls = { n: 0 };
      const cancelledMidway = async () => {
        calls.n++;
        const { version } = await repo.load(s.created.run_id);
        await repo.append(s.created, [{ type: 'RunCancelRequested', data: { reason: 'operator', requested_by: 'operator' } }], { expectedVersion: version, commandId: `cancel-${calls.n}` });
        clock.ms = T0 + 60_000; // long past the lease: a second attempt could take the claim over
        return { status: 'completed' as const, result: { ok: true }, audit: [{ type: 'ToolCallAudited', data: { status: 'ok' } }] };
      };
      expect(await runChildOnce(repo, s, cancelledMidway, claimOf('gateway-a', clock))).toMatchObject({ status: 'completed', replayed: false });
      expect(calls.n).toBe(1);
      const types = (await repo.load(s.created.run_id)).events.map((e) => e.type);
      expect(types).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'EffectClaimed', 'RunCancelRequested', 'ToolCallAudited', 'RunCompleted']);
    });

    it('an attempt that throws gives its claim back: the retry runs at once instead of waiting out the lease', async () => {
      const calls = { n: 0 };
      const failing = async () => {
        calls.n++;
        throw new Error('effect in flight, outcome unknown');
      };
      await expect(runChildOnce(repo, spec('c-release'), failing, claimOf('gateway-a'))).rejects.toThrow('outcome unknown');
      expect(await runChildOnce(repo, spec('c-release'), effect(calls), claimOf('gateway-b'))).toMatchObject({ status: 'completed' });
      expect(calls.n).toBe(2);
      expect((await repo.load('c-release')).events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'EffectClaimed', 'EffectReleased', 'EffectClaimed', 'ToolCallAudited', 'RunCompleted']);
    });
  });

  it('Issue 22 a run\'s owner is found by exact-subject gets, never a wildcard first-match get (which nats-server 2.9 answers by scanning the log from its start)', async () => {
    const s = spec('c-owner');
    await repo.append(s.created, [{ type: 'RunCreated', data: s.created }], { expectedVersion: 0, commandId: 'owner-open' });
    const fresh = new RunRepository(repo.log); // nothing cached: the owner is read from the log
    const first = jest.spyOn(fresh.log, 'first');
    try {
      expect(await fresh.ownerOf('c-owner')).toBe('tool-gateway');
      expect(await fresh.ownerOf('c-no-such-run')).toBeNull();
      expect(first.mock.calls.map(([subject]) => String(subject)).filter((subject) => subject.includes('*'))).toEqual([]);
      expect(first).toHaveBeenCalledWith('rl.log.run.tool-gateway.c-owner');
    } finally {
      first.mockRestore();
    }
  });

  it('Probe finding (high): a JetStream API answer stored on a run\'s subject (an identity named it as a request\'s reply subject) does not wedge the run: it is no event, and the next append goes after it', async () => {
    const s = spec('c-foreign');
    const opened = await repo.append(s.created, [{ type: 'RunCreated', data: s.created }, { type: 'AuthzDecided', data: s.authz }], { expectedVersion: 0, commandId: 'foreign-open' });
    log.nc().publish('$JS.API.INFO', new Uint8Array(), { reply: 'rl.log.run.tool-gateway.c-foreign' });
    await waitUntil(async () => (await repo.log.version('rl.log.run.tool-gateway.c-foreign')) > opened);
    const loaded = await repo.load('c-foreign');
    expect(loaded.events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided']);
    expect(loaded.version).toBeGreaterThan(opened);
    await repo.append(s.created, [{ type: 'RunStarted', data: {} }], { expectedVersion: loaded.version, commandId: 'foreign-start' });
    expect((await repo.load('c-foreign')).events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted']);
  });

  it('Probe finding (high): a run id whose subject holds a message the server stored before the run existed is still created, after it (its opening on version 0 conflicted for good: RUN.IN_PROGRESS for ever)', async () => {
    const s = spec('c-planted');
    log.nc().publish('$JS.API.INFO', new Uint8Array(), { reply: 'rl.log.run.tool-gateway.c-planted' });
    await waitUntil(async () => (await repo.log.version('rl.log.run.tool-gateway.c-planted')) > 0);
    const counter = { n: 0 };
    const outcome = await runChildOnce(repo, s, effect(counter));
    expect(outcome).toMatchObject({ status: 'completed' });
    expect(counter.n).toBe(1);
    expect((await repo.events('c-planted'))[0]).toMatchObject({ type: 'RunCreated', data: { run_id: 'c-planted' } });
  });
});
