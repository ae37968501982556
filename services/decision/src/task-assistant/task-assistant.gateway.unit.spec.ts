import type { EventLog, StoredEvent } from '@runledger/event-log';
import type { RunOutcome, RunWaiter, RunWatch } from '../runs/run-waiter';
import type { RejectedRequestRecorder } from './rejected-request.recorder';
import { TaskAssistantGateway } from './task-assistant.gateway';
import { taskRequestHash } from './task-run.types';

const REQUEST = { user_id: 'u1', conversation_id: '5b7c0a52-3f1e-4c2a-9a57-0c1f2e3d4b5a', message: 'add task buy milk', request_id: 'req-1' };
const stored = (type: string, data: unknown = {}): StoredEvent => ({ type, data, metadata: {} as StoredEvent['metadata'], seq: 5, index: 0, subject: 'rl.log.run.decision.r' });
const cancelled = stored('RunCancelled', { reason: 'r' });

/** The gateway over a fake inbox (duplicate or not, holding `queuedRequest`) and a fake waiter (its outcome, heard or looked up). */
function gateway(opts: { duplicate: boolean; queuedRequest?: object; outcome: RunOutcome; created?: StoredEvent | null; lastOnLook?: StoredEvent | null }) {
  const calls = { looks: 0, created: 0, appended: 0 };
  const log = {
    append: async (_ref: unknown, events: Array<{ data: unknown }>) => {
      calls.appended++;
      const data = opts.duplicate ? { ...(events[0].data as object), request: opts.queuedRequest ?? REQUEST } : events[0].data;
      return { version: 1, duplicate: opts.duplicate, events: [{ ...stored('AgentRequested'), data }] };
    },
  } as unknown as EventLog;
  const waiter = {
    watch: async (_runId: string, _timeout: number, o: { newRun?: boolean }): Promise<RunWatch> => {
      expect(o.newRun).toBe(true); // nothing read at the front
      return {
        outcome: Promise.resolve(opts.outcome),
        cancel: () => undefined,
        lastAtStart: Promise.resolve(null),
        look: async () => {
          calls.looks++;
          return opts.lastOnLook ?? null;
        },
      };
    },
    created: async () => {
      calls.created++;
      return opts.created ?? null;
    },
  } as unknown as RunWaiter;
  return { g: new TaskAssistantGateway(log, waiter, {} as RejectedRequestRecorder, 60_000), calls };
}

const createdWith = (request: typeof REQUEST) => stored('RunCreated', { request_hash_sha256: taskRequestHash(request) });

describe('Issue 22 the task-assistant reply waiter reads nothing at the front', () => {
  it('a request the log takes as new (its inbox append no duplicate) is answered from the live feed with no read', async () => {
    const { g, calls } = gateway({ duplicate: false, outcome: { terminal: cancelled, commit: [cancelled], heard: true } });
    await expect(g.process(REQUEST)).resolves.toMatchObject({ decision_type: 'RESPOND_ONLY' });
    expect(calls).toEqual({ looks: 0, created: 0, appended: 1 });
  });

  it('Issue 10 reused request_id: a duplicate with other content is REQUEST.CONFLICT from the queued command, nothing read', async () => {
    const { g, calls } = gateway({ duplicate: true, queuedRequest: { ...REQUEST, message: 'something else' }, outcome: { terminal: cancelled, commit: [cancelled], heard: true } });
    await expect(g.process(REQUEST)).rejects.toMatchObject({ code: 'REQUEST.CONFLICT' });
    expect(calls.looks).toBe(0);
  });

  it('a duplicate with the same content is looked up once (its outcome may be recorded already)', async () => {
    const { g, calls } = gateway({ duplicate: true, outcome: { terminal: cancelled, commit: [cancelled], heard: false }, lastOnLook: createdWith(REQUEST) });
    await expect(g.process(REQUEST)).resolves.toMatchObject({ run_id: expect.any(String) });
    expect(calls.looks).toBe(1);
  });

  it('Issue 10 reused request_id past the duplicate window: a run found only by the timeout\'s look is checked, other content is REQUEST.CONFLICT', async () => {
    const other = { ...REQUEST, message: 'something else' };
    const { g, calls } = gateway({ duplicate: false, outcome: { terminal: cancelled, commit: [cancelled], heard: false }, created: createdWith(other) });
    await expect(g.process(REQUEST)).rejects.toMatchObject({ code: 'REQUEST.CONFLICT' });
    expect(calls.created).toBe(1);
    // The same content: answered with the run's outcome.
    const same = gateway({ duplicate: false, outcome: { terminal: cancelled, commit: [cancelled], heard: false }, created: createdWith(REQUEST) });
    await expect(same.g.process(REQUEST)).resolves.toMatchObject({ decision_type: 'RESPOND_ONLY' });
  });
});
