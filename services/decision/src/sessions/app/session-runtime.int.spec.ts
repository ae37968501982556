import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import {
  durableSession, eventListRuntime, journalEntryOf, journalEvent, reply, runSession, ScriptedModel, systemClock, timerSleeper,
  type JournalEntry, type JournalEvent, type ScriptStep, type SessionConfigInput, type SessionRuntime, type ToolExecution, type ToolExecutor,
} from '@runledger/agent-session';
import { ensureLogStream, EventLog } from '@runledger/event-log';
import { RunEngine, RunRepository } from '@runledger/runs';
import { useNatsServer } from '@runledger/testing';
import { journalOf } from '../domain/session-run';
import { engineRuntime } from './engine-runtime';

/** One session's journal; each `carrier()` is a new carrier over what it holds (a restart after a crash). */
interface Journal {
  carrier(): Promise<{ runtime: SessionRuntime; recorded: JournalEntry[] }>;
  events(): Promise<ReadonlyArray<{ type: string; data: unknown }>>;
}

/**
 * The one behaviour suite of the SessionRuntime port, run against both adapters: the run engine on a real log
 * (decision) and the event-list store (the CLI's --log file). The tool port stands in for the tool gateway: it runs a
 * call id once and answers a repeated one with its outcome, as the gateway's child run does.
 */
describe('SessionRuntime port (issue 21 one journal): the same behaviour on the run engine and on the CLI\'s event store', () => {
  const nats = useNatsServer();
  let runs: RunRepository;
  beforeAll(async () => {
    const jsm = await jetstreamManager(nats.nc);
    await ensureLogStream(jsm);
    runs = new RunRepository(new EventLog(jetstream(nats.nc), jsm, { producer: 'decision', clock: { now: () => new Date() } }));
  });

  let n = 0;
  const memory = (): Journal => {
    const events: JournalEvent[] = [];
    return {
      async carrier() {
        const read = [...events];
        return { runtime: eventListRuntime(read, async (e) => void events.push(e)), recorded: read.flatMap((e) => journalEntryOf(e) ?? []) };
      },
      events: async () => events,
    };
  };
  const engine = (): Journal & { runId: string } => {
    const runId = `session-runtime-${++n}`;
    const versions = { lanes: 'l', roles: 'r' };
    return {
      runId,
      async carrier() {
        const run = await RunEngine.load(runs, { run_id: runId, root_run_id: runId });
        await run.open({
          created: { run_id: runId, run_kind: 'agent', agent_name: 'SESSION_AGENT', root_run_id: runId, contract_version: 'v1', policy_versions: versions, input_artifacts: [], parameters: {}, request_hash_sha256: 'h' },
          authz: { decision: 'allow', policy_versions: versions },
        });
        return { runtime: engineRuntime(run, new Set()), recorded: journalOf(run.session.loaded) };
      },
      events: async () => (await runs.load(runId)).events,
    };
  };

  /** The stand-in gateway: a call id runs once; `hang` names a query that never answers. */
  function gateway(hang?: string) {
    const executed: string[] = [];
    const outcomes = new Map<string, ToolExecution>();
    const executor: ToolExecutor = {
      async execute(_name, args, { callId }) {
        const q = String(args.q);
        if (q === hang) return new Promise(() => undefined);
        if (!outcomes.has(callId!)) {
          executed.push(q);
          outcomes.set(callId!, { ok: true, output: { found: q } });
        }
        return outcomes.get(callId!)!;
      },
    };
    return { executed, executor };
  }

  const config = (extra: Partial<SessionConfigInput> = {}): SessionConfigInput => ({
    targets: [{ provider: 'p1', model: 'm1' }], toolTransport: 'native', tools: [{ name: 'lookup', inputSchema: { type: 'object' }, mcpServer: 'test' }], ...extra,
  });
  async function carry(journal: Journal, script: ScriptStep[], tools: ToolExecutor, extra?: Partial<SessionConfigInput>) {
    const model = new ScriptedModel(script);
    const { runtime, recorded } = await journal.carrier();
    const durable = durableSession({ model, tools, clock: systemClock, sleeper: timerSleeper }, runtime, { recorded });
    const result = runSession(config(extra), 'find a and b', { ...durable.ports, nonce: () => 'abcd1234' });
    return { model, result };
  }
  const stepIds = async (journal: Journal) => (await journal.events()).filter((e) => e.type === 'StepCompleted').map((e) => (e.data as { step_id: string }).step_id);
  const recordedCalls = async (journal: Journal) => (await journal.events()).filter((e) => e.type === 'ToolCallRecorded').map((e) => (e.data as { call_id: string; status: string }));

  const SCRIPT: ScriptStep[] = [
    reply.tools({ name: 'lookup', args: { q: 'a' }, id: 'c1' }),
    reply.tools({ name: 'lookup', args: { q: 'b' }, id: 'c2' }),
    reply.finalReport('done: a, b'),
  ];

  describe.each([['the run engine on a real log', engine], ['the event-list store (CLI)', memory]])('on %s', (_adapter, newJournal) => {
    it('Resume, never repeat: a carrier that dies with a model request in flight is replaced by one answered from the journal; no completed request or tool call is sent again', async () => {
      const reference = await (await carry(memory(), SCRIPT, gateway().executor)).result;
      const journal = newJournal();
      const tools = gateway();
      let reached!: () => void;
      const inFlight = new Promise<void>((r) => (reached = r));
      // The first carrier dies while its second model request is in flight: that request never answers.
      const dying = await carry(journal, [SCRIPT[0]!, () => (reached(), new Promise(() => undefined))], tools.executor);
      void dying.result;
      await inFlight;
      const resumed = await carry(journal, SCRIPT.slice(1), tools.executor);
      const result = await resumed.result;
      expect(result.success).toBe(true);
      expect(result.conversation).toEqual(reference.conversation);
      // The first request was answered from the journal; the one in flight at the crash was sent again, then the last.
      expect([dying.model.requests.length, resumed.model.requests.length]).toEqual([2, 2]);
      expect(tools.executed).toEqual(['a', 'b']);
      expect(await stepIds(journal)).toEqual(['llm-1', 'llm-2', 'llm-3']);
      expect((await recordedCalls(journal)).map((c) => c.call_id)).toEqual(['tool-1', 'tool-2']);
    });

    it('§1 toolTimeout: a call the session gave up on is recorded as timed out and a carrier answered from the journal sees the same timeout, running nothing', async () => {
      const journal = newJournal();
      const tools = gateway('slow');
      const script = [reply.tools({ name: 'lookup', args: { q: 'slow' }, id: 'c1' }), reply.finalReport('gave up')];
      const first = await (await carry(journal, script, tools.executor, { toolTimeout: 200 })).result;
      expect(first.conversation.find((m) => m.role === 'tool')).toMatchObject({ content: expect.stringContaining('timeout') });
      expect(await recordedCalls(journal)).toEqual([expect.objectContaining({ call_id: 'tool-1', status: 'timeout' })]);
      const again = await carry(journal, [], tools.executor, { toolTimeout: 200 });
      expect((await again.result).conversation).toEqual(first.conversation);
      expect(again.model.requests).toHaveLength(0);
      expect(tools.executed).toEqual([]);
    });
  });

  it('Recorded history: a session run journaled before the engine carried sessions (SessionLlmCompleted, SessionToolCompleted) resumes on the engine from those entries', async () => {
    const reference = await (await carry(memory(), SCRIPT, gateway().executor)).result;
    const journal = engine();
    await journal.carrier(); // opens the run
    // What a carrier of the release before wrote before it died: one model answer and one tool outcome.
    const old = await RunEngine.load(runs, { run_id: journal.runId, root_run_id: journal.runId });
    const legacy: JournalEntry[] = [
      { kind: 'llm_requested', seq: 1, provider: 'p1', model: 'm1', messages: 1, tools: ['lookup'] },
      { kind: 'llm_completed', seq: 1, provider: 'p1', model: 'm1', latency_ms: 5, result: SCRIPT[0] as never },
      { kind: 'tool_requested', seq: 1, call_id: 'tool-1', name: 'lookup', args: { q: 'a' } },
      { kind: 'tool_completed', seq: 1, call_id: 'tool-1', name: 'lookup', latency_ms: 1, execution: { ok: true, output: { found: 'a' } } },
    ];
    await old.record(legacy.map(journalEvent), 'legacy-journal');
    const tools = gateway();
    const resumed = await carry(journal, SCRIPT.slice(1), tools.executor);
    expect((await resumed.result).conversation).toEqual(reference.conversation);
    expect(resumed.model.requests).toHaveLength(2);
    expect(tools.executed).toEqual(['b']);
    expect(await stepIds(journal)).toEqual(['llm-2', 'llm-3']);
  });
});
