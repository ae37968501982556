import { CONTEXT_BUDGET_STUB } from '../domain/notices';
import type { ToolSpec } from '../domain/types';
import { reply } from '../testing/scripted-model';
import { harness, toolEntries, toolMessages } from './session-harness.unit-support';

// limit = contextWindow - contextWindowBufferTokens - maxOutputTokens = 2000 - 100 - 400 = 1500
const small = { targets: [{ provider: 'p1', model: 'm1', contextWindow: 2000 }], contextWindowBufferTokens: 100, maxOutputTokens: 400, toolResponseMaxBytes: 1_000_000 };
const prepared = (h: ReturnType<typeof harness>) => h.logsOf('llm_request_prepared').map((l) => l.data as Record<string, number>);

describe('Context guard', () => {
  it('Context guard: turn 1 logs ctx 0, every request satisfies expectedTokens = ctx + pending + schema, and ctx is the provider-reported input + output + cache reads', async () => {
    const h = harness({
      script: [
        reply.response({ toolCalls: [{ id: 'c1', name: 'search', arguments: '{}' }], usage: { inputTokens: 100, outputTokens: 20, cachedTokens: 30, totalTokens: 150 } }),
        reply.finalReport('done'),
      ],
      tools: { search: () => 'result text' },
    });
    await h.run();
    const logs = prepared(h);
    expect(logs[0]!.ctxTokens).toBe(0);
    for (const l of logs) expect(l.expectedTokens).toBe(l.ctxTokens! + l.pendingCtxTokens! + l.schemaCtxTokens!);
    expect(logs[1]!.ctxTokens).toBe(150);
    // Turn 1's pending is the system prompt and the user prompt; turn 2's is the tool output.
    expect(logs[0]!.pendingCtxTokens).toBeGreaterThan(0);
    expect(logs[1]!.pendingCtxTokens).toBeGreaterThan(0);
    expect(logs[1]!.pendingCtxTokens).toBeLessThan(logs[0]!.pendingCtxTokens!);
  });

  it('Context guard: retry notices count toward pendingCtxTokens before the request is logged', async () => {
    const h = harness({ script: [reply.empty(), reply.finalReport('ok')] });
    await h.run();
    const [first, retry] = prepared(h);
    expect(retry!.pendingCtxTokens).toBeGreaterThan(first!.pendingCtxTokens!);
  });

  it('Context guard: tool_preflight drops an overflowing output for the stub, sets toolBudgetExceeded so no new tool starts, and forces a final turn with only agent__final_report and recomputed schema tokens', async () => {
    const h = harness({
      script: [
        reply.tools({ name: 'big', args: {}, id: 'c1' }, { name: 'search', args: {}, id: 'c2' }),
        reply.finalReport('answer from what I had'),
      ],
      tools: { big: () => 'x'.repeat(8000), search: () => 'small' },
      config: small,
    });
    const result = await h.run();
    const tools = toolMessages(result.conversation);
    expect(tools.map((t) => t.content)).toEqual([CONTEXT_BUDGET_STUB, CONTEXT_BUDGET_STUB]);
    // `big` ran (its output was dropped); `search` never started.
    expect(h.executed.map((e) => e.name)).toEqual(['big']);
    const bigEntry = toolEntries(result.accounting).find((e) => e.command === 'big')!;
    expect(bigEntry).toMatchObject({ status: 'failed', error: 'context window budget exceeded' });
    expect(bigEntry.originalTokens).toBeGreaterThan(2000);
    expect(bigEntry.replacementTokens).toBeLessThan(20);
    const drop = h.logsOf('context_guard_tool_dropped')[0]!.data!;
    expect(drop).toMatchObject({ limit_tokens: 1500, forcedFinalTurnReason: 'context' });
    expect(drop.projected_tokens as number).toBeGreaterThan(1500);

    expect(h.model.requests[1]!.tools.map((t) => t.name)).toEqual(['agent__final_report']);
    expect(h.model.requests[1]!.messages.at(-1)!.content).toContain('context window budget is exhausted');
    const [turn1, turn2] = prepared(h);
    expect(turn2!.schemaCtxTokens).toBeLessThan(turn1!.schemaCtxTokens!);
    expect(result.finalReport).toMatchObject({ status: 'success', content: 'answer from what I had' });
  });

  it('Context guard: turn_preflight forces the final turn when the next request would overflow, and no post-shrink warning when the reduced tool set fits', async () => {
    const wordy: ToolSpec = { name: 'wordy', description: 'd'.repeat(2400), inputSchema: { type: 'object' } };
    const h = harness({ script: [reply.finalReport('short answer')], config: { ...small, systemPrompt: '', tools: [wordy] } });
    const result = await h.run('p'.repeat(4400));
    expect(h.logsOf('context_guard_blocked')[0]!.data).toMatchObject({ site: 'turn_preflight', limit_tokens: 1500, blocked: [{ provider: 'p1', model: 'm1', limit: 1500 }] });
    expect(h.logsOf('context_guard_post_shrink')).toEqual([]);
    expect(h.model.requests[0]!.tools.map((t) => t.name)).toEqual(['agent__final_report']);
    expect(result.success).toBe(true);
  });

  it('Context guard: when even the reduced tool set does not fit, the session proceeds best-effort and logs the post-shrink warning', async () => {
    const h = harness({ script: [reply.finalReport('best effort')], config: small });
    const result = await h.run('p'.repeat(8000));
    expect(h.logsOf('context_guard_blocked')).toHaveLength(1);
    expect(h.logsOf('context_guard_post_shrink')).toHaveLength(1);
    expect(h.model.requests).toHaveLength(1);
    expect(result.finalReport).toMatchObject({ status: 'success', content: 'best effort' });
  });

  it('Context guard: the smallest limit among the targets is enforced, and the blocked pair is recorded', async () => {
    const h = harness({
      script: [reply.finalReport('ok')],
      config: { ...small, targets: [{ provider: 'big', model: 'b', contextWindow: 100_000 }, { provider: 'p1', model: 'm1', contextWindow: 2000 }] },
    });
    await h.run('p'.repeat(8000));
    expect(h.logsOf('context_guard_blocked')[0]!.data!.blocked).toEqual([{ provider: 'p1', model: 'm1', limit: 1500 }]);
  });
});
