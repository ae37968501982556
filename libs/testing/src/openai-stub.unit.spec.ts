import OpenAI from 'openai';
import { startOpenAiStub, type OpenAiStub, type OpenAiStubHandler } from './openai-stub';

describe('startOpenAiStub with the real openai client', () => {
  let stub: OpenAiStub | undefined;
  const start = async (handler: OpenAiStubHandler, opts: { maxRetries?: number; timeout?: number } = {}) => {
    stub = await startOpenAiStub(handler);
    return new OpenAI({ apiKey: 'test', baseURL: stub.baseURL, maxRetries: opts.maxRetries ?? 0, timeout: opts.timeout });
  };
  afterEach(async () => {
    await stub?.stop();
    stub = undefined;
  });

  it('answers a plain completion with content, usage and the requested model', async () => {
    const client = await start(() => ({ content: 'Hello there', usage: { prompt_tokens: 12, completion_tokens: 3 } }));
    const res = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.object).toBe('chat.completion');
    expect(res.model).toBe('gpt-test');
    expect(res.choices[0].message.content).toBe('Hello there');
    expect(res.choices[0].finish_reason).toBe('stop');
    expect(res.usage).toEqual({ prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 });
    expect(stub!.requests).toHaveLength(1);
    expect(stub!.requests[0].headers.authorization).toBe('Bearer test');
  });

  it('scripts a tool-call round trip and records what the client sent back', async () => {
    const client = await start((body, index) =>
      index === 0
        ? { tool_calls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }] }
        : { content: `It is ${JSON.stringify(body.messages.at(-1)?.content)}` },
    );
    const tools = [
      { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
    ];
    const first = await client.chat.completions.create({
      model: 'm',
      tools,
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
    });
    const call = first.choices[0].message.tool_calls![0];
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(call.type).toBe('function');
    if (call.type !== 'function') throw new Error('expected a function tool call');
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"city":"Oslo"}' });
    expect(call.id).toBe('call_0_0');

    const second = await client.chat.completions.create({
      model: 'm',
      tools,
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        first.choices[0].message,
        { role: 'tool', tool_call_id: call.id, content: 'sunny' },
      ],
    });
    expect(second.choices[0].message.content).toBe('It is "sunny"');
    expect(stub!.requests[0].body.tools).toEqual(tools);
    expect(stub!.requests[1].body.messages[1]).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_0_0' }] });
  });

  it('returns a 429 the client surfaces as RateLimitError with its Retry-After header', async () => {
    const client = await start(() => ({
      status: 429,
      error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' },
      headers: { 'retry-after': '7' },
    }));
    const err = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    const rateLimit = err as InstanceType<typeof OpenAI.RateLimitError>;
    expect(rateLimit.status).toBe(429);
    expect(rateLimit.code).toBe('rate_limit_exceeded');
    expect(rateLimit.headers.get('retry-after')).toBe('7');
    expect(rateLimit.message).toContain('Rate limit reached');
  });

  it('lets the client retry after a 429 and succeed on the next attempt', async () => {
    const client = await start(
      (_body, index) =>
        index === 0
          ? { status: 429, error: { message: 'slow down', type: 'requests', code: 'rate_limit_exceeded' }, headers: { 'retry-after-ms': '10' } }
          : { content: 'ok' },
      { maxRetries: 2 },
    );
    const res = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(res.choices[0].message.content).toBe('ok');
    expect(stub!.requests.map((r) => r.index)).toEqual([0, 1]);
  });

  it('maps 401 and 500 to the client’s typed errors', async () => {
    const client = await start((_b, i) =>
      i === 0
        ? { status: 401, error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }
        : { status: 500, error: { message: 'boom', type: 'server_error', code: null } },
    );
    const ask = () => client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    await expect(ask()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    await expect(ask()).rejects.toBeInstanceOf(OpenAI.InternalServerError);
  });

  it('simulates a slow provider so client timeouts fire', async () => {
    const client = await start(() => ({ delayMs: 2000, content: 'too late' }), { timeout: 100 });
    const err = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    // Plain node yields APIConnectionTimeoutError (a subclass). Inside jest the abort
    // DOMException comes from another realm, the client cannot recognise it and reports
    // the base APIConnectionError. Without the timeout the call would succeed ('too late'), so the error is the proof.
    expect(err).toBeInstanceOf(OpenAI.APIConnectionError);
    // No retry. Under load the client may abort before the stub has read the request at all, hence "at most".
    expect(stub!.requests.length).toBeLessThanOrEqual(1);
  });

  it('streams content, reasoning and tool calls that the client accumulates', async () => {
    const client = await start(() => ({
      content: 'Let me check the weather.',
      reasoning: 'user wants weather',
      tool_calls: [{ id: 'call_x', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
      usage: { prompt_tokens: 5, completion_tokens: 9 },
    }));
    const stream = await client.chat.completions.create({
      model: 'm',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'x' }],
    });
    let content = '';
    let args = '';
    let name = '';
    let finish: string | null = null;
    let reasoning = '';
    let totalTokens = 0;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (chunk.usage) totalTokens = chunk.usage.total_tokens;
      if (!choice) continue;
      content += choice.delta.content ?? '';
      reasoning += (choice.delta as { reasoning?: string }).reasoning ?? '';
      for (const tc of choice.delta.tool_calls ?? []) {
        name += tc.function?.name ?? '';
        args += tc.function?.arguments ?? '';
      }
      finish = choice.finish_reason ?? finish;
    }
    expect(content).toBe('Let me check the weather.');
    expect(reasoning).toBe('user wants weather');
    expect({ name, args: JSON.parse(args) }).toEqual({ name: 'get_weather', args: { city: 'Oslo' } });
    expect(finish).toBe('tool_calls');
    expect(totalTokens).toBe(14);
  });

  it('answers unknown routes with an OpenAI-style 404', async () => {
    const client = await start(() => ({ content: 'unused' }));
    await expect(client.embeddings.create({ model: 'e', input: 'x' })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    expect(stub!.requests).toHaveLength(0);
  });
});
