import { ToolRegistry } from '@runledger/agent-runtime';
import { eventListRuntime, type JournalEvent } from '../adapters/event-list-runtime';
import { registryTools } from '../adapters/registry-tools';
import { accountingOf, journalEntryOf, journalEvent, type JournalEntry } from '../domain/journal-events';
import type { SessionConfigInput } from '../domain/session-config';
import type { SessionPorts } from '../ports';
import { FakeTime } from '../testing/fake-time';
import { reply, ScriptedModel, type ScriptStep } from '../testing/scripted-model';
import { durableSession, type SessionBudget } from './durable-session';
import { runSession } from './run-session';

/** A journal in memory; `limit` makes appends past that many events fail, like a crash of the carrier. */
function memoryJournal(recorded: JournalEvent[] = [], limit = Infinity) {
  const events = [...recorded];
  return {
    events,
    runtime: () => eventListRuntime(recorded, async (e) => {
      if (events.length >= limit) throw new Error('carrier crashed');
      events.push(e);
    }),
    entries: () => events.flatMap((e) => journalEntryOf(e) ?? []),
  };
}

const SCRIPT: ScriptStep[] = [
  reply.tools({ name: 'lookup', args: { q: 'a' }, id: 'c1' }),
  reply.tools({ name: 'lookup', args: { q: 'b' }, id: 'c2' }),
  reply.finalReport('done: a, b'),
];

function carrier(script: ScriptStep[], opts: { budget?: SessionBudget; toolTimeout?: number; slow?: string } = {}) {
  const time = new FakeTime();
  const model = new ScriptedModel(script, 5, (ms) => time.advance(ms));
  const executed: unknown[] = [];
  const registry = new ToolRegistry();
  registry.register({
    name: 'lookup', inputSchema: { type: 'object' },
    execute: (input) => {
      executed.push(input);
      const q = (input as { q: string }).q;
      // A tool that never answers: the session's toolTimeout ends the call.
      return q === opts.slow ? new Promise(() => undefined) : { found: q };
    },
  });
  const { specs, executor } = registryTools(registry, 'test-mcp');
  const config: SessionConfigInput = { targets: [{ provider: 'p1', model: 'm1' }], toolTransport: 'native', tools: specs, ...(opts.toolTimeout ? { toolTimeout: opts.toolTimeout } : {}) };
  const base: SessionPorts = { model, tools: executor, clock: time, sleeper: time };
  const run = async (journal: ReturnType<typeof memoryJournal>) => {
    const recorded = journal.events.flatMap((e) => journalEntryOf(e) ?? []) as JournalEntry[];
    const d = durableSession(base, journal.runtime(), { recorded, ...(opts.budget ? { budget: opts.budget } : {}) });
    const result = await runSession(config, 'find a and b', { ...d.ports, nonce: () => 'abcd1234' });
    const settled = await d.settle().then(() => true, () => false);
    return { result: { ...result, accounting: d.accounting() }, settled };
  };
  return { model, executed, run };
}

const journalShape = (events: readonly JournalEvent[]) =>
  events.filter((e) => e.type !== 'SessionNoted' && e.type !== 'SessionAccounted').map((e) => `${e.type}:${String((e.data as { step_id?: string; call_id?: string }).step_id ?? (e.data as { call_id?: string }).call_id)}`);

describe('durable sessions on a journaled runtime (issue 21: one journal)', () => {
  it('§4 accounting: every LLM attempt is a journaled step and every tool call a journaled call, and accounting is the projection of the records', async () => {
    const c = carrier(SCRIPT);
    const mem = memoryJournal();
    const { result } = await c.run(mem);
    expect(result.success).toBe(true);
    expect(journalShape(mem.events)).toEqual([
      'StepCompleted:llm-1', 'ToolCallRequested:tool-1', 'ToolCallRecorded:tool-1',
      'StepCompleted:llm-2', 'ToolCallRequested:tool-2', 'ToolCallRecorded:tool-2',
      'StepCompleted:llm-3',
    ]);
    // Through the event form and back, as the log holds it.
    const fromLog = mem.entries().map(journalEvent).map((e) => journalEntryOf(e)!);
    expect(accountingOf(fromLog)).toEqual(result.accounting);
    expect(result.accounting.map((e) => e.type)).toEqual(['llm', 'tool', 'llm', 'tool', 'llm', 'tool']);
  });

  it('Resume, never repeat: a carrier that dies mid-session is replaced by one that is answered from the journal and sends no completed request or tool call again', async () => {
    const reference = await carrier(SCRIPT).run(memoryJournal());
    const full = memoryJournal();
    await carrier(SCRIPT).run(full);
    // Die right after the first tool call was recorded.
    const cut = full.events.findIndex((e) => e.type === 'ToolCallRecorded') + 1;
    const crashed = memoryJournal([], cut);
    const dying = await carrier(SCRIPT).run(crashed);
    // A carrier whose journal write failed does not settle: its outcome is not a result.
    expect(dying.settled).toBe(false);
    expect(journalShape(crashed.events)).toEqual(journalShape(full.events.slice(0, cut)));

    const resumed = carrier(SCRIPT.slice(1));
    const rest = memoryJournal(crashed.events);
    const { result, settled } = await resumed.run(rest);
    expect(settled).toBe(true);
    // Only the work that had not completed was sent: the 2nd and 3rd model requests, the 2nd tool call.
    expect(resumed.model.requests).toHaveLength(2);
    expect(resumed.executed).toEqual([{ q: 'b' }]);
    expect(result.success).toBe(true);
    expect(result.conversation).toEqual(reference.result.conversation);
    // The journal ends as an uninterrupted one does (no duplicates, nothing missing), and so does accounting.
    expect(journalShape(rest.events)).toEqual(journalShape(full.events));
    expect(result.accounting.map((e) => e.type)).toEqual(reference.result.accounting.map((e) => e.type));
    expect(accountingOf(rest.entries())).toEqual(result.accounting);
  });

  it('§1 toolTimeout on resume: a call the session gave up on is answered as timed out again, with the same stub, and is not run again', async () => {
    const script = [reply.tools({ name: 'lookup', args: { q: 'slow' }, id: 'c1' }), reply.finalReport('gave up')];
    const first = carrier(script, { toolTimeout: 1_000, slow: 'slow' });
    const full = memoryJournal();
    const live = await first.run(full);
    expect(full.events.find((e) => e.type === 'ToolCallRecorded')!.data).toMatchObject({ call_id: 'tool-1', status: 'timeout' });
    // Cut after the timed-out call: the resumed carrier reads the timeout back and runs nothing again.
    const cut = full.events.findIndex((e) => e.type === 'ToolCallRecorded') + 1;
    const again = carrier(script.slice(1), { toolTimeout: 1_000, slow: 'slow' });
    const { result } = await again.run(memoryJournal(full.events.slice(0, cut)));
    expect(again.executed).toEqual([]);
    expect(result.conversation).toEqual(live.result.conversation);
  });

  it('Recorded history: a session journaled before the engine carried it (SessionLlmCompleted / SessionToolCompleted) resumes from those entries', async () => {
    const reference = await carrier(SCRIPT).run(memoryJournal());
    const c = carrier(SCRIPT.slice(1));
    const legacy: JournalEntry[] = [
      { kind: 'llm_requested', seq: 1, provider: 'p1', model: 'm1', messages: 1, tools: ['lookup'] },
      { kind: 'llm_completed', seq: 1, provider: 'p1', model: 'm1', latency_ms: 5, result: reply.tools({ name: 'lookup', args: { q: 'a' }, id: 'c1' }) },
      { kind: 'tool_requested', seq: 1, call_id: 'tool-1', name: 'lookup', args: { q: 'a' } },
      { kind: 'tool_completed', seq: 1, call_id: 'tool-1', name: 'lookup', latency_ms: 0, execution: { ok: true, output: { found: 'a' } } },
    ];
    const { result } = await c.run(memoryJournal(legacy.map(journalEvent)));
    expect(c.model.requests).toHaveLength(2);
    expect(c.executed).toEqual([{ q: 'b' }]);
    expect(result.conversation).toEqual(reference.result.conversation);
  });

  it('Budgets: a session over its token budget is refused before the next request, and the refusal is recorded', async () => {
    const c = carrier(SCRIPT, { budget: { maxTotalTokens: 200 } });
    const mem = memoryJournal();
    const { result } = await c.run(mem);
    // 120 tokens per answer: the third request would start at 240 ≥ 200.
    expect(c.model.requests).toHaveLength(2);
    expect(result).toMatchObject({ success: false, error: { kind: 'quota', message: expect.stringContaining('token budget exhausted') } });
    expect(mem.entries().find((e) => e.kind === 'note' && e.entry.event === 'budget_refused')).toBeDefined();
  });
});
