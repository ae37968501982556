import { randomUUID } from 'node:crypto';
import { ChainEntry, chainEntriesOf } from '@runledger/governance';
import { foldEvents, RecordedEvent, StoredEvent } from '@runledger/event-log';
import { childRequestHash, evolveRun, initialRunState, RunState } from '@runledger/runs';
import { evolveConversation, initialConversation } from '../services/decision/src/conversation/conversation';
import { evolveChain } from '../services/audit-ledger/src/domain/audit-chain';
import { TestStack } from './support/stack';

jest.setTimeout(120_000);

/** Non-negotiable 2: rebuilding any projection by replaying the whole log yields exactly what live processing produced. */
describe('Replay equals live, for every projection', () => {
  let stack: TestStack;
  const conversation_id = randomUUID();
  const user_id = 'replayer';
  const runIds: string[] = [];

  beforeAll(async () => {
    stack = await TestStack.start();
    for (const message of ['add task buy bread', 'remind me to book flights', 'show tasks', 'rename buy bread to buy rye bread', 'done with the first one', 'delete book flights', 'yes', 'hello there']) {
      const r = await stack.request<{ run_id: string }>('agents.task-assistant.process', { user_id, conversation_id, message });
      runIds.push(r.body.run_id);
    }
  });
  afterAll(async () => stack?.stop());

  async function replayAll(): Promise<StoredEvent[]> {
    return (await stack.log.replay<StoredEvent[]>((acc, e) => (acc.push(e), acc), [])).state;
  }

  it('Run projection: what the worker computed live from its in-memory state (response hash) equals a hash of the replayed result', async () => {
    const all = await replayAll();
    for (const runId of runIds) {
      const events = all.filter((e) => e.subject === `rl.log.run.decision.${runId}`);
      const live = events.find((e) => e.type === 'RunCompleted')!.data as { response_hash_sha256: string };
      const replayed: RunState = foldEvents(evolveRun, initialRunState(), events as unknown as RecordedEvent[]);
      expect(childRequestHash(replayed.result)).toBe(live.response_hash_sha256);
    }
  });

  it('Run projection (state and checkpoint): replaying the whole log, all subjects interleaved, gives the state rl.runs.get serves', async () => {
    const all = await replayAll();
    for (const runId of runIds) {
      const live = (await stack.request<Record<string, unknown>>('rl.runs.get', { run_id: runId })).body;
      const replayed: RunState = foldEvents(evolveRun, initialRunState(), all.filter((e) => e.subject === `rl.log.run.decision.${runId}`) as unknown as RecordedEvent[]);
      expect(live.status).toBe('completed');
      expect({ status: live.status, checkpoint: live.checkpoint, tool_calls: live.tool_calls, result: live.result, run: live.run, authz: live.authz })
        .toEqual({ status: replayed.status, checkpoint: replayed.checkpoint, tool_calls: replayed.tool_calls, result: replayed.result, run: replayed.run, authz: replayed.authz });
      // INV-CP-001: the checkpoint carries what a resume needs.
      expect(replayed.checkpoint).toMatchObject({ stepIndex: 1, completedStepId: 'classify', stepOutputs: { context: expect.anything(), classify: expect.anything() } });
    }
  });

  it('Conversation projection: replay gives the history and pending confirmation the live decisions used', async () => {
    const all = await replayAll();
    const convEvents = all.filter((e) => e.subject.startsWith('rl.log.conversation.') && runIds.includes((e.data as { run_id: string }).run_id));
    const replayed = foldEvents(evolveConversation, initialConversation(), convEvents as unknown as RecordedEvent[]);
    expect(replayed.history.map((m) => m.content)).toContain("'book flights' has been deleted.");
    expect(replayed.pending_confirmation).toBeNull();
    // Live: each run recorded the context it decided on by reference (issue 21: the conversation's version, not a copy
    // of its history); that version is the conversation just before the run, and replaying up to it gives its context.
    for (const [i, runId] of runIds.entries()) {
      const live = (await stack.request<{ checkpoint: { stepOutputs: { context: { conversation_version: number } } } }>('rl.runs.get', { run_id: runId })).body;
      const before = foldEvents(evolveConversation, initialConversation(), convEvents.slice(0, i) as unknown as RecordedEvent[]);
      const version = i === 0 ? 0 : convEvents[i - 1]!.seq;
      expect(live.checkpoint.stepOutputs.context).toEqual({ conversation_version: version, based_on_run_id: before.recent_run_ids[before.recent_run_ids.length - 1] ?? null });
      const atVersion = foldEvents(evolveConversation, initialConversation(), convEvents.filter((e) => e.seq <= version) as unknown as RecordedEvent[]);
      expect({ history: atVersion.history, pending: atVersion.pending_confirmation }).toEqual({ history: before.history, pending: before.pending_confirmation });
    }
  });

  it('Audit decision records: the ledger read model equals a replay of the DecisionRecorded events', async () => {
    const live = await stack.waitFor(async () => {
      const r = await stack.request<{ records: Array<Record<string, unknown>> }>('rl.audit.query', { conversation_id });
      return r.body.records?.length === runIds.length ? r.body.records : undefined;
    });
    const all = await replayAll();
    const replayed = all.filter((e) => e.type === 'DecisionRecorded').map((e) => (e.data as { audit_record: Record<string, unknown> }).audit_record).filter((r) => r.conversation_id === conversation_id);
    expect(live).toEqual(replayed);
  });

  it('Audit hash chain: the chain written live equals the chain recomputed from a replay of the run events', async () => {
    // The chain hashes events as the log stores them (personal data sealed: README "Erasure").
    const all = (await stack.storedLog.replay<StoredEvent[]>((acc, e) => (acc.push(e), acc), [])).state;
    const recomputed = all.filter((e) => e.subject.startsWith('rl.log.run.')).reduce(evolveChain, [] as ChainEntry[]);
    const live = await stack.waitFor(async () => {
      const entries = chainEntriesOf(await stack.log.read('rl.log.audit.chain'));
      return entries.length === recomputed.length ? entries : undefined;
    });
    expect(live.map((e) => e.entry_hash)).toEqual(recomputed.map((e) => e.entry_hash));
  });
});
