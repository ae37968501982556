/**
 * The run projection on a real recorded log: the data directory release c732176 wrote (test/fixtures/
 * data-dir-c732176.tgz: task-assistant requests, an ORCHESTRATOR run with its tree of child runs and an export, a
 * denied run) and the state of every run that release folded from it (data-dir-c732176.expected.json). Folded as a
 * replay folds (one pass over the whole log, runs interleaved: scripts/cli/replay, bench/scale.js) and as live
 * processing loads a run (RunRepository.load), evolveRun must give the states recorded, and never change a state it
 * handed out before.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { EventLog, type RecordedEvent } from '@runledger/event-log';
import { identityOptions } from '@runledger/messaging';
import { freePort, tempDir, type TempDir } from '@runledger/testing';
import { RunRepository } from '../infra/run-repository';
import { evolveRun, initialRunState, type RunState } from './run-state';
import expected from '../../../../test/fixtures/data-dir-c732176.expected.json';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const launcher = require('../../../../scripts/lib/stack.js') as {
  startNats(o: { port: number; storeDir: string; credsDir: string }): Promise<{ url: string; child: ChildProcess; creds: Record<string, { file: string; inboxPrefix: string }> }>;
  stopProcess(child: ChildProcess, signal?: NodeJS.Signals, timeoutMs?: number): Promise<void>;
};

const FIXTURE = path.join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'data-dir-c732176.tgz');
const asJson = (s: RunState) => JSON.parse(JSON.stringify(s)) as unknown;

describe('Run projection on the recorded log of release c732176', () => {
  let dir: TempDir;
  let nats: Awaited<ReturnType<typeof launcher.startNats>>;
  let admin: NatsConnection;
  let log: EventLog;

  beforeAll(async () => {
    dir = await tempDir('rl-recorded-fold-');
    execFileSync('tar', ['xzf', FIXTURE, '-C', dir.path]);
    nats = await launcher.startNats({ port: await freePort(), storeDir: path.join(dir.path, 'nats'), credsDir: path.join(dir.path, 'credentials') });
    admin = await connect({ servers: nats.url, ...identityOptions({ creds: nats.creds.admin.file, inboxPrefix: nats.creds.admin.inboxPrefix }) });
    // The log as stored (sealed data left sealed): what the recording folded.
    log = new EventLog(jetstream(admin), await jetstreamManager(admin), { producer: 'test', clock: { now: () => new Date() } });
  });

  afterAll(async () => {
    await admin?.close().catch(() => undefined);
    if (nats) await launcher.stopProcess(nats.child);
    await dir?.remove();
  });

  it('Replay equals live: the whole log folded in one pass gives every run the state live processing loads and the state release c732176 recorded', async () => {
    // Every state the replay hands out, with what it was when handed out: a later event must not change it.
    const handedOut: Array<{ state: RunState; then: string }> = [];
    const { state: replayed } = await log.replay((runs: Map<string, RunState>, e) => {
      if (!e.subject.startsWith('rl.log.run.')) return runs;
      const next = evolveRun(runs.get(e.metadata.stream_id) ?? initialRunState(), e as unknown as RecordedEvent);
      handedOut.push({ state: next, then: JSON.stringify(next) });
      return runs.set(e.metadata.stream_id, next);
    }, new Map<string, RunState>());

    const recorded = Object.entries(expected.runs);
    expect(recorded.length).toBeGreaterThan(20);
    expect(replayed.size).toBe(recorded.length);
    const repo = new RunRepository(log);
    for (const [runId, run] of recorded) {
      const live = (await repo.load(runId)).state;
      expect({ run: runId, replay: replayed.get(runId) }).toStrictEqual({ run: runId, replay: live });
      expect({ run: runId, state: asJson(live) }).toEqual({ run: runId, state: run.state });
    }
    expect(handedOut.length).toBeGreaterThan(200);
    expect(handedOut.filter((h) => JSON.stringify(h.state) !== h.then)).toEqual([]);
  });
});

