import OpenAI from 'openai';
import { classifyOpenAiError } from './classify-openai-error';

const now = Date.UTC(2025, 0, 1);
const apiError = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  OpenAI.APIError.generate(status, { error: body }, undefined, new Headers(headers));

describe('classifyOpenAiError', () => {
  it('Fatal errors: 401/403 are auth; 402 and a 429 with insufficient_quota are quota', () => {
    expect(classifyOpenAiError(apiError(401, { message: 'bad key' }), now)).toMatchObject({ kind: 'auth', status: 401 });
    expect(classifyOpenAiError(apiError(403, { message: 'forbidden' }), now).kind).toBe('auth');
    expect(classifyOpenAiError(apiError(402, { message: 'pay' }), now).kind).toBe('quota');
    expect(classifyOpenAiError(apiError(429, { message: 'quota', code: 'insufficient_quota', type: 'insufficient_quota' }), now).kind).toBe('quota');
  });

  it('Rate limits: a 429 is rate_limit with Retry-After (ms header first, then seconds), or none', () => {
    expect(classifyOpenAiError(apiError(429, { message: 'slow' }, { 'retry-after': '2' }), now)).toMatchObject({ kind: 'rate_limit', retryAfterMs: 2000 });
    expect(classifyOpenAiError(apiError(429, { message: 'slow' }, { 'retry-after-ms': '250', 'retry-after': '2' }), now)).toMatchObject({ retryAfterMs: 250 });
    expect(classifyOpenAiError(apiError(429, { message: 'slow' }), now)).toEqual({ kind: 'rate_limit', status: 429, message: expect.any(String) });
  });

  it('Network/timeout/model errors: 5xx and other refusals are model, 408 and client timeouts timeout, connection failures network', () => {
    expect(classifyOpenAiError(apiError(500, { message: 'x' }), now).kind).toBe('model');
    expect(classifyOpenAiError(apiError(503, { message: 'x' }), now).kind).toBe('model');
    expect(classifyOpenAiError(apiError(400, { message: 'context too long' }), now).kind).toBe('model');
    expect(classifyOpenAiError(apiError(408, { message: 'x' }), now).kind).toBe('timeout');
    expect(classifyOpenAiError(new OpenAI.APIConnectionTimeoutError(), now).kind).toBe('timeout');
    expect(classifyOpenAiError(new OpenAI.APIConnectionError({ message: 'ECONNREFUSED' }), now).kind).toBe('network');
    expect(classifyOpenAiError(new SyntaxError('Unexpected token'), now).kind).toBe('invalid_response');
  });
});
