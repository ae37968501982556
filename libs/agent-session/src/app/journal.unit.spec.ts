import { ToolRegistry } from '@runledger/agent-runtime';
import { registryTools } from '../adapters/registry-tools';
import { accountingOf, journalEntryOf, journalEvent, type JournalEntry } from '../domain/journal-events';
import type { SessionConfigInput } from '../domain/session-config';
import type { SessionPorts } from '../ports';
import { FakeTime } from '../testing/fake-time';
import { reply, ScriptedModel, type ScriptStep } from '../testing/scripted-model';
import { journaledPorts, type SessionBudget } from './journaled-ports';
import { runSession } from './run-session';

/** A journal in memory; `limit` makes appends past that many entries fail, like a crash of the carrier. */
function memoryJournal(recorded: JournalEntry[] = [], limit = Infinity) {
  const entries = [...recorded];
  return {
    entries,
    journal: {
      recorded,
      async append(entry: JournalEntry) {
        if (entries.length >= limit) throw new Error('carrier crashed');
        entries.push(entry);
      },
    },
  };
}

const SCRIPT: ScriptStep[] = [
  reply.tools({ name: 'lookup', args: { q: 'a' }, id: 'c1' }),
  reply.tools({ name: 'lookup', args: { q: 'b' }, id: 'c2' }),
  reply.finalReport('done: a, b'),
];

function carrier(script: ScriptStep[], budget?: SessionBudget) {
  const time = new FakeTime();
  const model = new ScriptedModel(script, 5, (ms) => time.advance(ms));
  const executed: unknown[] = [];
  const registry = new ToolRegistry();
  registry.register({ name: 'lookup', inputSchema: { type: 'object' }, execute: (input) => (executed.push(input), { found: (input as { q: string }).q }) });
  const { specs, executor } = registryTools(registry, 'test-mcp');
  const config: SessionConfigInput = { targets: [{ provider: 'p1', model: 'm1' }], toolTransport: 'native', tools: specs };
  const base: SessionPorts = { model, tools: executor, clock: time, sleeper: time };
  const run = async (journal: { recorded: JournalEntry[]; append(e: JournalEntry): Promise<void> }) => {
    const j = journaledPorts(base, journal, budget);
    const result = await runSession(config, 'find a and b', { ...j.ports, nonce: () => 'abcd1234' });
    return { result: { ...result, accounting: j.accounting() }, session: j };
  };
  return { model, executed, run };
}

describe('journaled sessions (durable resume)', () => {
  it('§4 accounting: every LLM attempt and tool call is journaled before and after, and accounting is the projection of the journal', async () => {
    const c = carrier(SCRIPT);
    const mem = memoryJournal();
    const { result } = await c.run(mem.journal);
    expect(result.success).toBe(true);
    expect(mem.entries.filter((e) => e.kind === 'llm_requested').map((e) => e.kind === 'llm_requested' && e.expected_tokens)).toEqual([expect.any(Number), expect.any(Number), expect.any(Number)]);
    expect(mem.entries.map((e) => e.kind).filter((k) => k !== 'note' && k !== 'accounting')).toEqual([
      'llm_requested', 'llm_completed', 'tool_requested', 'tool_completed',
      'llm_requested', 'llm_completed', 'tool_requested', 'tool_completed',
      'llm_requested', 'llm_completed',
    ]);
    // Through the event form and back, as the log holds it.
    const fromLog = mem.entries.map(journalEvent).map((e) => journalEntryOf(e)!);
    expect(accountingOf(fromLog)).toEqual(result.accounting);
    expect(result.accounting.map((e) => e.type)).toEqual(['llm', 'tool', 'llm', 'tool', 'llm', 'tool']);
  });

  it('Resume, never repeat: a carrier that dies mid-session is replaced by one that replays the journal and sends no completed request or tool call again', async () => {
    const first = carrier(SCRIPT);
    const full = memoryJournal();
    const reference = await first.run(full.journal);
    // Die right after the first tool call completed.
    const cut = full.entries.findIndex((e) => e.kind === 'tool_completed') + 1;
    const dying = carrier(SCRIPT);
    const crashed = memoryJournal([], cut);
    await dying.run(crashed.journal);
    expect(crashed.entries).toEqual(full.entries.slice(0, cut));

    const resumed = carrier(SCRIPT.slice(1));
    const rest = memoryJournal(crashed.entries);
    const { result, session } = await resumed.run(rest.journal);
    expect(session.replayed).toEqual({ llm: 1, tools: 1 });
    // Only the work that had not completed was sent: the 2nd and 3rd model requests, the 2nd tool call.
    expect(resumed.model.requests).toHaveLength(2);
    expect(resumed.executed).toEqual([{ q: 'b' }]);
    expect(result.success).toBe(true);
    expect(result.conversation).toEqual(reference.result.conversation);
    // The journal ends the same as an uninterrupted one (no duplicates, nothing missing), and so does accounting.
    expect(rest.entries.map((e) => [e.kind, 'seq' in e ? e.seq : e.index])).toEqual(full.entries.map((e) => [e.kind, 'seq' in e ? e.seq : e.index]));
    expect(result.accounting.map((e) => e.type)).toEqual(reference.result.accounting.map((e) => e.type));
    expect(accountingOf(rest.entries)).toEqual(result.accounting);
  });

  it('Budgets: a session over its token budget is refused before the next request, and the refusal is journaled', async () => {
    const c = carrier(SCRIPT, { maxTotalTokens: 200 });
    const mem = memoryJournal();
    const { result } = await c.run(mem.journal);
    // 120 tokens per answer: the third request would start at 240 ≥ 200.
    expect(c.model.requests).toHaveLength(2);
    expect(result).toMatchObject({ success: false, error: { kind: 'quota', message: expect.stringContaining('token budget exhausted') } });
    expect(mem.entries.find((e) => e.kind === 'note' && e.entry.event === 'budget_refused')).toBeDefined();
  });
});
