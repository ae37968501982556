import { contextLimitOf, resolveSessionConfig } from './session-config';

describe('Session configuration', () => {
  it('Provider Configuration: session-level parameters are overridden per target; the context limit is window - buffer - maxOutputTokens', () => {
    const r = resolveSessionConfig({
      targets: [{ provider: 'a', model: 'x', params: { temperature: 0.1 }, contextWindow: 8000 }, { provider: 'b', model: 'y' }],
      temperature: 0.5,
      topP: 0.9,
      maxOutputTokens: 1000,
      contextWindowBufferTokens: 200,
    });
    if (!r.ok) throw new Error(r.errors.join());
    expect(r.config.targets[0]).toEqual({ provider: 'a', model: 'x', contextWindow: 8000, params: { temperature: 0.1, topP: 0.9, maxOutputTokens: 1000 } });
    expect(r.config.targets[1]!.params).toEqual({ temperature: 0.5, topP: 0.9, maxOutputTokens: 1000 });
    expect(contextLimitOf(r.config.targets[0]!, r.config.contextWindowBufferTokens)).toBe(6800);
    expect(r.config.toolTransport).toBe('xml-final');
  });

  it('Provider Configuration: invalid limits and reserved tool names are rejected', () => {
    const r = resolveSessionConfig({
      targets: [{ provider: 'a', model: 'x' }],
      maxRetries: 0,
      toolTimeout: -1,
      tools: [{ name: 'agent__final_report', inputSchema: {} }],
    });
    expect(r).toEqual({
      ok: false,
      errors: ["tool name 'agent__final_report' is reserved by the session", 'maxRetries must be a positive integer (got 0)', 'toolTimeout must be a positive integer (got -1)'],
    });
  });
});
