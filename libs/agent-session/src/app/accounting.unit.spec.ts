import { reply } from '../testing/scripted-model';
import { runSession } from '../run-session';
import { harness, llmEntries, roles, toolEntries } from './session-harness.unit-support';

const trace = { agentId: 'researcher', callPath: 'root>researcher', txnId: 't-2', parentTxnId: 't-1', originTxnId: 't-0' };

describe('Accounting', () => {
  it('Accounting: every LLM request and tool execution produces an entry with the contract fields, recorded in order as it happens', async () => {
    const h = harness({
      script: [
        reply.error('network', 'ECONNRESET'),
        reply.response({
          toolCalls: [{ id: 'c1', name: 'search', arguments: '{"q":"nats"}' }],
          usage: { inputTokens: 120, outputTokens: 30, cachedTokens: 10, totalTokens: 160 },
          stopReason: 'tool_calls',
          actualModel: 'm1-2025',
        }),
        reply.finalReport('done'),
      ],
      tools: { search: () => ({ hits: 3 }) },
      modelLatencyMs: 250,
      config: { trace, maxRetries: 2 },
    });
    const result = await h.run();
    expect(h.recorded).toEqual(result.accounting);
    const [failed, ok] = llmEntries(result.accounting);
    expect(failed).toEqual({
      type: 'llm', provider: 'p1', model: 'm1', status: 'failed', latency: 250, timestamp: expect.any(Number),
      tokens: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, error: 'ECONNRESET', errorKind: 'network', ...trace,
    });
    expect(ok).toEqual({
      type: 'llm', provider: 'p1', model: 'm1', status: 'ok', latency: 250, timestamp: expect.any(Number),
      tokens: { inputTokens: 120, outputTokens: 30, cachedTokens: 10, totalTokens: 160 }, stopReason: 'tool_calls', actualModel: 'm1-2025', ...trace,
    });
    expect(toolEntries(result.accounting)[0]).toEqual({
      type: 'tool', mcpServer: 'test-mcp', command: 'search', status: 'ok', latency: 0, timestamp: expect.any(Number),
      charactersIn: '{"q":"nats"}'.length, charactersOut: '{"hits":3}'.length, source: 'native', ...trace,
    });
    const stamps = result.accounting.map((e) => e.timestamp);
    expect([...stamps].sort((a, b) => a - b)).toEqual(stamps);
    expect(result.accounting.map((e) => e.type)).toEqual(['llm', 'llm', 'tool', 'llm', 'tool']);
  });

  it('Accounting: provider fallback is observable as failed entries followed by a different provider', async () => {
    const h = harness({
      script: [reply.error('model', '500'), reply.finalReport('ok')],
      config: { targets: [{ provider: 'primary', model: 'a' }, { provider: 'backup', model: 'b' }] },
    });
    const result = await h.run();
    expect(llmEntries(result.accounting).map((e) => [e.provider, e.status])).toEqual([['primary', 'failed'], ['backup', 'ok']]);
  });
});

describe('Conversation', () => {
  it('Conversation: system, user, then assistant → tool pairs, ending with the assistant final_report call; tool messages link by toolCallId', async () => {
    const h = harness({
      script: [reply.tools({ name: 'search', args: {}, id: 'a' }, { name: 'search', args: {}, id: 'b' }), reply.tools({ name: 'search', args: {}, id: 'c' }), reply.finalReport('done')],
      tools: { search: () => 'r' },
    });
    const result = await h.run('Find it.');
    expect(roles(result.conversation)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant']);
    expect(result.conversation[1]).toEqual({ role: 'user', content: 'Find it.' });
    expect(result.conversation.filter((m) => m.role === 'tool').map((m) => m.role === 'tool' && m.toolCallId)).toEqual(['a', 'b', 'c']);
    const last = result.conversation.at(-1)!;
    expect(last.role === 'assistant' && last.toolCalls?.[0]?.name).toBe('agent__final_report');
  });
});

describe('§2 Always Return Output', () => {
  it('§2 Always Return Output: a throwing model adapter, tool executor, recorder and logger never make the session throw', async () => {
    let calls = 0;
    const h = harness({
      script: [],
      tools: { search: () => 'r' },
      ports: {
        model: {
          call: async () => {
            calls++;
            if (calls === 1) throw new Error('adapter bug');
            if (calls === 2) return reply.tools({ name: 'search', args: {} });
            return reply.finalReport('still here');
          },
        },
        tools: { execute: () => Promise.reject(new Error('gateway down')) },
        recorder: { record: () => Promise.reject(new Error('log unavailable')) },
        logger: {
          log: () => {
            throw new Error('logger bug');
          },
        },
      },
    });
    const result = await h.run();
    expect(result.success).toBe(true);
    expect(llmEntries(result.accounting)[0]).toMatchObject({ status: 'failed', error: 'model adapter failed: adapter bug' });
    expect(toolEntries(result.accounting)[0]).toMatchObject({ status: 'failed', error: 'gateway down' });
  });

  it('§2 Always Return Output: an invalid configuration returns success false with an invalid_config error', async () => {
    const h = harness({ script: [] });
    const result = await runSession({ targets: [], maxTurns: 0 }, 'x', { model: h.model, clock: h.time, sleeper: h.time });
    expect(result).toEqual({
      success: false,
      error: { kind: 'invalid_config', message: expect.stringContaining('at least one provider/model target is required') },
      conversation: [],
      accounting: [],
    });
    expect(result.error?.message).toContain('maxTurns must be a positive integer');
  });
});
