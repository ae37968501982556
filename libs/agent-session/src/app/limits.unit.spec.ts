import { reply } from '../testing/scripted-model';
import { excessToolCallStub } from '../domain/notices';
import { harness, llmEntries, toolEntries, toolMessages } from './session-harness.unit-support';

const search = () => ({ hits: ['a'] });
const searchCall = (q = 'x') => reply.tools({ name: 'search', args: { q } });

describe('maxTurns', () => {
  it('maxTurns: never exceeded; out of turns without a final report gives a synthetic failure report with reason max_turns_exhausted', async () => {
    const h = harness({ script: Array.from({ length: 10 }, () => searchCall()), tools: { search }, config: { maxTurns: 3 } });
    const result = await h.run();
    expect(h.model.requests).toHaveLength(3);
    expect(result.conversation.filter((m) => m.role === 'assistant')).toHaveLength(3);
    expect(result.success).toBe(false);
    expect(result.error).toBeUndefined();
    expect(result.finalReport).toMatchObject({ status: 'failure', source: 'synthetic', format: 'markdown', metadata: { reason: 'max_turns_exhausted' } });
    expect(result.finalReport?.content).toContain('maximum number of turns (3)');
  });

  it('maxTurns: retries within a turn do not count toward the limit', async () => {
    const h = harness({
      script: [reply.error('network'), reply.error('model'), searchCall(), reply.finalReport('done')],
      tools: { search },
      config: { maxTurns: 2, maxRetries: 3 },
    });
    const result = await h.run();
    expect(h.model.requests).toHaveLength(4);
    expect(result.success).toBe(true);
    expect(result.finalReport).toMatchObject({ status: 'success', source: 'tool', content: 'done' });
  });

  it('maxTurns: the last turn offers only agent__final_report, runs no other tool and accepts a plain-text answer', async () => {
    const h = harness({ script: [searchCall(), searchCall(), reply.text('The answer is 42.')], tools: { search }, config: { maxTurns: 2 } });
    const result = await h.run();
    expect(h.model.requests[0]!.tools.map((t) => t.name)).toEqual(['search', 'agent__final_report']);
    expect(h.model.requests[1]!.tools.map((t) => t.name)).toEqual(['agent__final_report']);
    // Turn 2 asked for a tool anyway: it is not executed; turn 2 is spent, so no third request happens.
    expect(h.executed).toHaveLength(1);
    expect(h.model.requests).toHaveLength(2);
    expect(result.finalReport).toMatchObject({ status: 'failure', metadata: { reason: 'max_turns_exhausted' } });

    const h2 = harness({ script: [searchCall(), reply.text('The answer is 42.')], tools: { search }, config: { maxTurns: 2 } });
    const r2 = await h2.run();
    expect(r2.success).toBe(true);
    expect(r2.finalReport).toMatchObject({ status: 'success', source: 'text-fallback', content: 'The answer is 42.' });
  });
});

describe('maxToolCallsPerTurn', () => {
  it('maxToolCallsPerTurn: excess calls are dropped and not executed, and the LLM is told', async () => {
    const h = harness({
      script: [
        reply.tools(
          { name: 'search', args: { q: '1' }, id: 'c1' },
          { name: 'search', args: { q: '2' }, id: 'c2' },
          { name: 'search', args: { q: '3' }, id: 'c3' },
          { name: 'search', args: { q: '4' }, id: 'c4' },
        ),
        reply.finalReport('ok'),
      ],
      tools: { search },
      config: { maxToolCallsPerTurn: 2 },
    });
    const result = await h.run();
    expect(h.executed.map((e) => e.args.q)).toEqual(['1', '2']);
    const tools = toolMessages(result.conversation);
    expect(tools.map((t) => t.toolCallId)).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(tools[2]!.content).toBe(excessToolCallStub(2));
    expect(tools[3]!.content).toContain('too many tool calls in one turn');
    expect(toolEntries(result.accounting).filter((e) => e.command === 'search')).toHaveLength(2);
    // The next request carries the notices to the model.
    expect(h.model.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => m.content)).toContain(excessToolCallStub(2));
  });
});

describe('maxRetries', () => {
  it('maxRetries: counts every attempt including the initial one (maxRetries 1 = no retry)', async () => {
    const h = harness({ script: [reply.error('network'), reply.finalReport('ok')], config: { maxRetries: 1, maxTurns: 2 } });
    const result = await h.run();
    // Turn 1: one attempt, failed; turn 2: one attempt, succeeded.
    expect(llmEntries(result.accounting).map((e) => e.status)).toEqual(['failed', 'ok']);
    expect(result.success).toBe(true);
  });

  it('maxRetries: attempts cycle round-robin, attempt N going to targets[(N-1) % len]; each turn starts again at targets[0]', async () => {
    const h = harness({
      script: [reply.error('model'), reply.error('model'), reply.error('model'), reply.error('model'), reply.error('model'), reply.finalReport('ok')],
      config: {
        maxRetries: 5,
        maxTurns: 2,
        targets: [
          { provider: 'p1', model: 'm1' },
          { provider: 'p2', model: 'm2' },
          { provider: 'p3', model: 'm3' },
        ],
      },
    });
    const result = await h.run();
    expect(llmEntries(result.accounting).map((e) => `${e.provider}/${e.model}:${e.status}`)).toEqual([
      'p1/m1:failed',
      'p2/m2:failed',
      'p3/m3:failed',
      'p1/m1:failed',
      'p2/m2:failed',
      'p1/m1:ok',
    ]);
    expect(result.success).toBe(true);
  });

  it('maxRetries: when every attempt of a turn fails, the turn fails and the session continues with the next turn', async () => {
    const h = harness({ script: [reply.error('timeout'), reply.error('timeout'), reply.finalReport('recovered')], config: { maxRetries: 2, maxTurns: 3 } });
    const result = await h.run();
    expect(h.model.requests).toHaveLength(3);
    expect(result.finalReport).toMatchObject({ status: 'success', content: 'recovered' });
    expect(h.logsOf('turn_attempts_exhausted')).toHaveLength(1);
  });

  it('maxRetries: when every turn fails, the synthetic failure report carries the last error', async () => {
    const h = harness({ script: Array.from({ length: 4 }, () => reply.error('model', 'upstream 500')), config: { maxRetries: 2, maxTurns: 2 } });
    const result = await h.run();
    expect(h.model.requests).toHaveLength(4);
    expect(result.success).toBe(false);
    expect(result.finalReport?.metadata).toMatchObject({ reason: 'max_turns_exhausted', lastError: 'model: upstream 500' });
  });
});
