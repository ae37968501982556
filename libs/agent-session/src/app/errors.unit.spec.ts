import { invalidResponseNotice } from '../domain/notices';
import { reply } from '../testing/scripted-model';
import { harness, llmEntries } from './session-harness.unit-support';

const twoTargets = [
  { provider: 'p1', model: 'm1' },
  { provider: 'p2', model: 'm2' },
];
const providers = (accounting: Parameters<typeof llmEntries>[0]) => llmEntries(accounting).map((e) => e.provider);

describe('Fatal errors', () => {
  it.each(['auth', 'quota'] as const)('Fatal errors: %s fails the session immediately, without retry, success false and error populated', async (kind) => {
    const h = harness({ script: [reply.error(kind, `${kind} problem`), reply.finalReport('never')], config: { maxRetries: 5, targets: twoTargets } });
    const result = await h.run();
    expect(h.model.requests).toHaveLength(1);
    expect(result.success).toBe(false);
    expect(result.error).toEqual({ kind, message: `${kind} problem` });
    expect(result.finalReport).toBeUndefined();
    expect(llmEntries(result.accounting)).toMatchObject([{ status: 'failed', error: `${kind} problem`, errorKind: kind }]);
    expect(h.time.sleeps).toEqual([]);
  });
});

describe('Rate limits', () => {
  it('Rate limits: Retry-After is honoured before retrying the only target', async () => {
    const h = harness({ script: [reply.error('rate_limit', '429', { retryAfterMs: 7000 }), reply.finalReport('ok')] });
    const result = await h.run();
    expect(h.time.sleeps).toEqual([7000]);
    expect(result.success).toBe(true);
    expect(llmEntries(result.accounting)[1]!.timestamp - llmEntries(result.accounting)[0]!.timestamp).toBe(7000);
  });

  it('Rate limits: without Retry-After the backoff doubles from 1 s and is capped at 60 s', async () => {
    const script = [...Array.from({ length: 8 }, () => reply.error('rate_limit')), reply.finalReport('ok')];
    const h = harness({ script, config: { maxRetries: 9 } });
    const result = await h.run();
    expect(h.time.sleeps).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]);
    expect(result.success).toBe(true);
  });

  it('Rate limits: a rate-limited target cycles to the next at once; when all targets are rate-limited in one cycle the session waits the longest delay', async () => {
    const h = harness({
      script: [reply.error('rate_limit', 'a', { retryAfterMs: 5000 }), reply.error('rate_limit', 'b', { retryAfterMs: 2000 }), reply.finalReport('ok')],
      config: { targets: twoTargets, maxRetries: 3 },
    });
    const result = await h.run();
    expect(providers(result.accounting)).toEqual(['p1', 'p2', 'p1']);
    expect(h.time.sleeps).toEqual([5000]);
    const [first, second, third] = llmEntries(result.accounting);
    expect(second!.timestamp - first!.timestamp).toBe(0);
    expect(third!.timestamp - second!.timestamp).toBe(5000);
  });

  it('Rate limits: a rate limit on one target followed by a success elsewhere costs no wait', async () => {
    const h = harness({ script: [reply.error('rate_limit', 'slow down'), reply.finalReport('ok')], config: { targets: twoTargets } });
    const result = await h.run();
    expect(providers(result.accounting)).toEqual(['p1', 'p2']);
    expect(h.time.sleeps).toEqual([]);
  });
});

describe('Network/timeout/model errors', () => {
  it('Network/timeout/model errors: retry on the next target immediately, without backoff, until maxRetries', async () => {
    const h = harness({
      script: [reply.error('network'), reply.error('timeout'), reply.error('model'), reply.finalReport('ok')],
      config: { targets: twoTargets, maxRetries: 4 },
    });
    const result = await h.run();
    expect(providers(result.accounting)).toEqual(['p1', 'p2', 'p1', 'p2']);
    expect(h.time.sleeps).toEqual([]);
    expect(result.success).toBe(true);
  });

  it('Invalid/malformed responses: retried with an ephemeral error notice to the LLM, on the next target', async () => {
    const h = harness({ script: [reply.error('invalid_response', 'no choices'), reply.finalReport('ok')], config: { targets: twoTargets } });
    const result = await h.run();
    expect(providers(result.accounting)).toEqual(['p1', 'p2']);
    expect(h.model.requests[1]!.messages.at(-1)).toEqual({ role: 'user', content: invalidResponseNotice('no choices') });
    // Ephemeral: the notice never enters the stored conversation.
    expect(result.conversation.some((m) => m.content === invalidResponseNotice('no choices'))).toBe(false);
  });
});
