import { EMPTY_RESPONSE_NOTICE } from '../domain/notices';
import { reply } from '../testing/scripted-model';
import { harness, llmEntries, roles, toolEntries, toolMessages } from './session-harness.unit-support';

const schema = {
  type: 'object',
  properties: { answer: { type: 'string' }, items: { type: 'array', items: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } } },
  required: ['answer', 'items'],
  additionalProperties: false,
};

describe('Final report', () => {
  it('Final report: a model-provided report gives success true and status success, set by the source (the model sends no status)', async () => {
    const h = harness({ script: [reply.finalReport('# Done', { metadata: { sources: 2 }, status: 'failure' })] });
    const result = await h.run();
    expect(result.success).toBe(true);
    expect(result.finalReport).toEqual({ status: 'success', source: 'tool', format: 'markdown', content: '# Done', metadata: { sources: 2 }, ts: h.time.nowMs() });
  });

  it('Final report: encoding base64 is decoded before use', async () => {
    const text = 'Grüße — ✓ done';
    const h = harness({ script: [reply.finalReport(Buffer.from(text, 'utf8').toString('base64'), { encoding: 'base64' })] });
    expect((await h.run()).finalReport?.content).toBe(text);
  });

  it('Final report: the format is pinned with const in the tool schema, and a mismatched format is normalised with a warning', async () => {
    const h = harness({ script: [reply.finalReport('plain', { format: 'text' })], config: { expectedOutputFormat: 'markdown' } });
    const result = await h.run();
    const tool = h.model.requests[0]!.tools.find((t) => t.name === 'agent__final_report')!;
    expect((tool.inputSchema as { properties: { format: unknown } }).properties.format).toMatchObject({ type: 'string', const: 'markdown' });
    expect(result.finalReport).toMatchObject({ status: 'success', format: 'markdown', content: 'plain' });
    expect(h.logsOf('final_report_normalised')[0]!.message).toContain("format 'text' normalised to 'markdown'");
  });

  it('Final report: content_json is validated against the output schema, stringified nested JSON is repaired', async () => {
    const h = harness({
      script: [reply.tools({ name: 'agent__final_report', args: { format: 'json', content_json: { answer: 'yes', items: '[{"n": 1}, {"n": 2}]' } } })],
      config: { expectedOutputFormat: 'json', outputSchema: schema },
    });
    const result = await h.run();
    expect(result.finalReport).toMatchObject({ status: 'success', format: 'json', content_json: { answer: 'yes', items: [{ n: 1 }, { n: 2 }] } });
    const tool = h.model.requests[0]!.tools.find((t) => t.name === 'agent__final_report')!;
    expect((tool.inputSchema as { properties: { content_json: unknown } }).properties.content_json).toMatchObject({ required: ['answer', 'items'] });
  });

  it('Final report: a rejected report is logged with its full payload and collapses the remaining turns (next turn is the last)', async () => {
    const bad = { format: 'json', content_json: { answer: 42 } };
    const h = harness({
      script: [reply.tools({ name: 'agent__final_report', args: bad, id: 'f1' }), reply.tools({ name: 'search', args: {} }), reply.finalReport('unused')],
      tools: { search: () => 'x' },
      config: { expectedOutputFormat: 'json', outputSchema: schema, maxTurns: 10 },
    });
    const result = await h.run();
    expect(h.model.requests).toHaveLength(2);
    expect(h.model.requests[1]!.tools.map((t) => t.name)).toEqual(['agent__final_report']);
    expect(toolMessages(result.conversation)[0]).toMatchObject({ toolCallId: 'f1', content: expect.stringContaining('(tool failed: final report rejected: content_json does not match') });
    expect(h.logsOf('final_report_failed')[0]!.data).toMatchObject({ payload: JSON.stringify(bad) });
    expect(toolEntries(result.accounting)[0]).toMatchObject({ command: 'agent__final_report', status: 'failed' });
    expect(h.executed).toEqual([]);
    expect(result).toMatchObject({ success: false, finalReport: { status: 'failure', source: 'synthetic', metadata: { reason: 'max_turns_exhausted', forcedFinalReason: 'final_report_failed' } } });
  });

  it('Final report: text fallback on a final turn is parsed for the json format', async () => {
    const h = harness({ script: [reply.text('```json\n{"answer": "a", "items": []}\n```')], config: { expectedOutputFormat: 'json', outputSchema: schema, maxTurns: 1 } });
    const result = await h.run();
    expect(result.finalReport).toMatchObject({ status: 'success', source: 'text-fallback', content_json: { answer: 'a', items: [] } });
  });
});

describe('Empty or invalid LLM responses', () => {
  it('Empty responses: an empty answer is not added to the conversation; the retry carries the exact ephemeral notice and counts as an attempt', async () => {
    const h = harness({ script: [reply.empty(), reply.finalReport('ok')], config: { maxRetries: 2 } });
    const result = await h.run();
    expect(h.model.requests[1]!.messages.at(-1)).toEqual({
      role: 'user',
      content: 'System notice: plain text responses without tool calls are ignored. Use final_report to provide your answer.',
    });
    expect(h.model.requests[1]!.messages.at(-1)!.content).toBe(EMPTY_RESPONSE_NOTICE);
    expect(roles(result.conversation)).toEqual(['system', 'user', 'assistant']);
    expect(result.conversation.some((m) => m.content === EMPTY_RESPONSE_NOTICE)).toBe(false);
    expect(llmEntries(result.accounting).map((e) => e.status)).toEqual(['failed', 'ok']);
  });

  it('Empty responses: with maxRetries 1 an empty answer uses up the turn', async () => {
    const h = harness({ script: [reply.empty(), reply.finalReport('ok')], config: { maxRetries: 1, maxTurns: 1 } });
    const result = await h.run();
    expect(h.model.requests).toHaveLength(1);
    expect(result.finalReport).toMatchObject({ status: 'failure', metadata: { reason: 'max_turns_exhausted' } });
  });

  it('Empty responses: a reasoning-only answer proceeds and its reasoning is kept for the next turn', async () => {
    const h = harness({ script: [reply.reasoning('I should search first.'), reply.finalReport('ok')] });
    const result = await h.run();
    expect(result.conversation[2]).toEqual({ role: 'assistant', content: null, reasoning: 'I should search first.' });
    expect(h.model.requests[1]!.messages[2]).toEqual(result.conversation[2]);
    expect(llmEntries(result.accounting).map((e) => e.status)).toEqual(['ok', 'ok']);
  });

  it('Empty responses: plain text without tool calls outside a final turn is ignored and retried with the notice', async () => {
    const h = harness({ script: [reply.text('thinking out loud'), reply.finalReport('ok')] });
    const result = await h.run();
    expect(h.model.requests[1]!.messages.at(-1)!.content).toBe(EMPTY_RESPONSE_NOTICE);
    expect(result.conversation.some((m) => m.content === 'thinking out loud')).toBe(false);
  });
});
