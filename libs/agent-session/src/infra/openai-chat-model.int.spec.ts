import { ToolRegistry } from '@runledger/agent-runtime';
import { startOpenAiStub, type OpenAiStub, type OpenAiStubHandler, type StubReply } from '@runledger/testing';
import { routeModels } from '../adapters/model-router';
import { registryTools } from '../adapters/registry-tools';
import { runSession } from '../run-session';
import type { SessionConfigInput } from '../domain/session-config';
import type { LlmAccountingEntry } from '../domain/types';
import type { Model } from '../ports';
import { FakeTime } from '../testing/fake-time';
import { OpenAiChatModel } from './openai-chat-model';

const stubs: OpenAiStub[] = [];
async function stub(handler: OpenAiStubHandler): Promise<OpenAiStub> {
  const s = await startOpenAiStub(handler);
  stubs.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.stop()));
});

const finalCall = (content: string): StubReply => ({ tool_calls: [{ name: 'agent__final_report', arguments: JSON.stringify({ format: 'markdown', report_content: content }) }] });
const model = (s: OpenAiStub, time: FakeTime, timeoutMs = 5000) => new OpenAiChatModel({ apiKey: 'sk-test', baseURL: s.baseURL, timeoutMs, clock: time });
const llm = (entries: readonly { type: string }[]) => entries.filter((e): e is LlmAccountingEntry => e.type === 'llm');

async function session(models: Record<string, Model>, config: Partial<SessionConfigInput>, time: FakeTime, tools?: ReturnType<typeof registryTools>) {
  return runSession(
    { targets: [{ provider: 'a', model: 'model-a' }], toolTransport: 'native', ...(tools ? { tools: tools.specs } : {}), ...config },
    'What is the answer?',
    { model: routeModels(models), clock: time, sleeper: time, ...(tools ? { tools: tools.executor } : {}) },
  );
}

describe('OpenAiChatModel against the OpenAI-compatible stub', () => {
  it('Provider cycling: after a 500 from the first target the next attempt goes to the second target at once', async () => {
    const time = new FakeTime();
    const first = await stub(() => ({ status: 500, error: { message: 'upstream exploded', type: 'server_error' } }));
    const second = await stub(() => finalCall('from b'));
    const result = await session(
      { a: model(first, time), b: model(second, time) },
      { targets: [{ provider: 'a', model: 'model-a' }, { provider: 'b', model: 'model-b' }] },
      time,
    );
    expect(result.finalReport).toMatchObject({ status: 'success', content: 'from b' });
    expect([first.requests.length, second.requests.length]).toEqual([1, 1]);
    expect(second.requests[0]!.body.model).toBe('model-b');
    expect(llm(result.accounting).map((e) => [e.provider, e.status, e.errorKind])).toEqual([['a', 'failed', 'model'], ['b', 'ok', undefined]]);
    expect(time.sleeps).toEqual([]);
  });

  it('Rate limits: a 429 with Retry-After is classified rate_limit and the session waits what the header asked', async () => {
    const time = new FakeTime();
    const s = await stub((_b, i) => (i === 0 ? { status: 429, error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' }, headers: { 'retry-after': '3' } } : finalCall('after the wait')));
    const result = await session({ a: model(s, time) }, {}, time);
    expect(time.sleeps).toEqual([3000]);
    expect(s.requests).toHaveLength(2);
    expect(llm(result.accounting)[0]).toMatchObject({ status: 'failed', errorKind: 'rate_limit' });
    expect(result.finalReport?.content).toBe('after the wait');
  });

  it.each([
    ['401', { status: 401, error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }, 'auth'],
    ['429 insufficient_quota', { status: 429, error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } }, 'quota'],
    ['402', { status: 402, error: { message: 'Payment required' } }, 'quota'],
  ] as const)('Fatal errors: %s ends the session without retry, success false and error populated', async (_name, reply, kind) => {
    const time = new FakeTime();
    const s = await stub(() => reply);
    const result = await session({ a: model(s, time) }, { maxRetries: 3 }, time);
    expect(s.requests).toHaveLength(1);
    expect(result.success).toBe(false);
    expect(result.error).toEqual({ kind, message: expect.stringContaining(reply.error.message) });
  });

  it('Network/timeout errors: a slow provider times out and an unreachable one is a network error; both move on without backoff', async () => {
    const time = new FakeTime();
    const slow = await stub(() => ({ content: 'late', delayMs: 2000 }));
    const good = await stub(() => finalCall('fine'));
    const unreachable = new OpenAiChatModel({ apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1', timeoutMs: 2000 });
    const result = await session(
      { slow: model(slow, time, 200), down: unreachable, good: model(good, time) },
      { targets: [{ provider: 'slow', model: 's' }, { provider: 'down', model: 'd' }, { provider: 'good', model: 'g' }] },
      time,
    );
    expect(llm(result.accounting).map((e) => e.errorKind)).toEqual(['timeout', 'network', undefined]);
    expect(result.finalReport?.content).toBe('fine');
    expect(time.sleeps).toEqual([]);
  });

  it('Tool round trip: a tool call is executed, its result goes back as a tool message, and the final report ends the session', async () => {
    const time = new FakeTime();
    const registry = new ToolRegistry();
    registry.register({ name: 'lookup', description: 'Looks a city up', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, execute: (i) => ({ temp: (i as { city: string }).city === 'Oslo' ? 4 : 20 }) });
    const s = await stub((body, i) => {
      if (i === 0) return { tool_calls: [{ id: 'call_weather', name: 'lookup', arguments: '{"city":"Oslo"}' }], usage: { prompt_tokens: 50, completion_tokens: 10 } };
      const toolMsg = body.messages.find((m) => m.role === 'tool');
      return finalCall(`Oslo is ${JSON.parse(String(toolMsg?.content)).temp} degrees`);
    });
    const result = await session({ a: model(s, time) }, {}, time, registryTools(registry));
    expect(result.finalReport).toMatchObject({ status: 'success', source: 'tool', content: 'Oslo is 4 degrees' });
    const sent = s.requests[1]!.body;
    expect(sent.messages.slice(-2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_weather', type: 'function', function: { name: 'lookup', arguments: '{"city":"Oslo"}' } }] },
      { role: 'tool', tool_call_id: 'call_weather', content: '{"temp":4}' },
    ]);
    expect(s.requests[0]!.body.tools!.map((t) => (t.type === 'function' ? t.function.name : t.type))).toEqual(['lookup', 'agent__final_report']);
    expect(llm(result.accounting)[0]).toMatchObject({ tokens: { inputTokens: 50, outputTokens: 10, totalTokens: 60 }, stopReason: 'tool_calls', actualModel: 'model-a' });
  });

  it('Provider Configuration: temperature and topP from the configuration reach the request body, per-target overrides win', async () => {
    const time = new FakeTime();
    const s = await stub((_b, i) => (i === 0 ? { status: 503, error: { message: 'busy' } } : finalCall('ok')));
    await session(
      { a: model(s, time) },
      {
        temperature: 0.2,
        topP: 0.7,
        maxOutputTokens: 777,
        targets: [{ provider: 'a', model: 'first' }, { provider: 'a', model: 'second', params: { temperature: 0.9 } }],
      },
      time,
    );
    expect(s.requests.map((r) => [r.body.model, r.body.temperature, r.body.top_p, r.body.max_completion_tokens])).toEqual([
      ['first', 0.2, 0.7, 777],
      ['second', 0.9, 0.7, 777],
    ]);
    expect(s.requests[0]!.headers.authorization).toBe('Bearer sk-test');
  });

  it('§11 XML: with the default xml-final transport the final report arrives in the FINAL tag of the message content', async () => {
    const time = new FakeTime();
    const s = await stub((body) => {
      const nonce = /Session nonce: (\w+)\./.exec(String(body.messages.at(-1)?.content))![1];
      return { content: `<ai-agent-${nonce}-FINAL tool="agent__final_report" format="markdown">**42**</ai-agent-${nonce}-FINAL>` };
    });
    const result = await runSession({ targets: [{ provider: 'a', model: 'm' }] }, 'q', { model: model(s, time), clock: time, sleeper: time, nonce: () => 'feedc0de' });
    expect(s.requests[0]!.body.tools).toBeUndefined();
    expect(result.finalReport).toMatchObject({ status: 'success', source: 'xml', content: '**42**' });
  });
});
