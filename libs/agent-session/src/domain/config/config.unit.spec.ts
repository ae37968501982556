import { parseTargetRef, sessionInputFromConfig, toAgentConfig } from './agent-config';
import { parseEnvFile } from './env-file';
import { expandPlaceholders, MissingVariableError } from './expand';
import { mergeLayers } from './merge';

describe('§7 Configuration loading (domain)', () => {
  it('Layer Precedence: higher layers override lower ones for the same key; providers, mcpServers and queues merge deeply', () => {
    const merged = mergeLayers([
      { origin: 'cli', config: { providers: { openai: { apiKey: 'cli-key' } }, queues: { fast: { concurrent: 2 } }, defaults: { targets: ['openai/a'] } } },
      { origin: 'cwd', config: { providers: { openai: { baseUrl: 'http://cwd', apiKey: 'cwd-key' }, local: { baseUrl: 'http://local' } }, mcpServers: { fs: { command: 'fs' } } } },
      { origin: 'home', config: { mcpServers: { fs: { args: ['-v'] }, git: { command: 'git' } }, queues: { slow: { concurrent: 1 } }, defaults: { targets: ['local/b'], maxTurns: 4 } } },
    ]);
    expect(merged).toEqual({
      providers: { openai: { baseUrl: 'http://cwd', apiKey: 'cli-key' }, local: { baseUrl: 'http://local' } },
      mcpServers: { fs: { command: 'fs', args: ['-v'] }, git: { command: 'git' } },
      queues: { slow: { concurrent: 1 }, fast: { concurrent: 2 } },
      defaults: { targets: ['openai/a'], maxTurns: 4 },
    });
  });

  it('Placeholder Expansion: ${VAR} resolves from the layer .ai-agent.env first, then the process environment', () => {
    const out = expandPlaceholders({ providers: { p: { apiKey: '${KEY}', baseUrl: 'http://${HOST}:8080' } } }, { origin: '/x/.ai-agent.json', layerEnv: { KEY: 'from-layer' }, processEnv: { KEY: 'from-env', HOST: 'h' } });
    expect(out).toEqual({ providers: { p: { apiKey: 'from-layer', baseUrl: 'http://h:8080' } } });
  });

  it('Placeholder Expansion: an unresolved variable throws MissingVariableError naming the variable, the path and the layer', () => {
    const run = () => expandPlaceholders({ providers: { p: { apiKey: '${NOPE}' } } }, { origin: '/home/u/.ai-agent/ai-agent.json', layerEnv: {}, processEnv: {} });
    expect(run).toThrow(MissingVariableError);
    expect(run).toThrow('missing variable ${NOPE} at providers.p.apiKey in config layer /home/u/.ai-agent/ai-agent.json');
  });

  it('Protected placeholders: ${parameters.x} in REST tools and mcpServers.*.env/headers are passed on unexpanded', () => {
    const input = {
      restTools: { weather: { url: 'https://api/${CITYHOST}', body: '{"city": "${parameters.city}"}' } },
      mcpServers: { fs: { command: '${BIN}', env: { TOKEN: '${SECRET}' }, headers: { Authorization: 'Bearer ${SECRET}' } } },
    };
    expect(expandPlaceholders(input, { origin: 'o', layerEnv: { CITYHOST: 'w.example', BIN: '/bin/fs' }, processEnv: {} })).toEqual({
      restTools: { weather: { url: 'https://api/w.example', body: '{"city": "${parameters.city}"}' } },
      mcpServers: { fs: { command: '/bin/fs', env: { TOKEN: '${SECRET}' }, headers: { Authorization: 'Bearer ${SECRET}' } } },
    });
  });

  it('Placeholder Expansion: .ai-agent.env understands comments, export, quotes and inline comments', () => {
    expect(parseEnvFile('# c\nexport A=1\nB="two words\\n"\nC=\'x # y\'\nD=plain # note\n\nbad line')).toEqual({ A: '1', B: 'two words\n', C: 'x # y', D: 'plain' });
  });

  it('Queue Validation: the default queue is added, unbound sources use it, and a binding to a missing queue fails with a clear error', () => {
    const ok = toAgentConfig({ mcpServers: { fs: {}, git: { queue: 'slow' } }, queues: { slow: { concurrent: 1 } } });
    expect(ok).toMatchObject({ ok: true, config: { queues: { slow: { concurrent: 1 }, default: { concurrent: 32 } }, mcpServers: { fs: { queue: 'default' }, git: { queue: 'slow' } } } });
    expect(toAgentConfig({ restTools: { w: { queue: 'nope' } } })).toEqual({ ok: false, errors: ["restTools.w.queue references unknown queue 'nope' (defined: default)"] });
  });

  it('Provider Configuration: targets come from defaults; provider then model settings override the session defaults', () => {
    const shaped = toAgentConfig({
      providers: { openai: { temperature: 0.3, contextWindow: 64000, models: { 'gpt-x': { temperature: 0.1, contextWindow: 32000 } } } },
      defaults: { targets: ['openai/gpt-x', 'openai/gpt-y'], temperature: 0.9, topP: 0.5, maxTurns: 7 },
    });
    if (!shaped.ok) throw new Error(shaped.errors.join());
    const r = sessionInputFromConfig(shaped.config);
    expect(r).toEqual({
      ok: true,
      input: {
        temperature: 0.9,
        topP: 0.5,
        maxTurns: 7,
        targets: [
          { provider: 'openai', model: 'gpt-x', params: { temperature: 0.1 }, contextWindow: 32000 },
          { provider: 'openai', model: 'gpt-y', params: { temperature: 0.3 }, contextWindow: 64000 },
        ],
      },
    });
    expect(sessionInputFromConfig(shaped.config, ['nobody/x', 'bad'])).toEqual({
      ok: false,
      errors: ["target 'nobody/x' names unknown provider 'nobody'", "target 'bad' is not of the form provider/model"],
    });
    expect(parseTargetRef('openrouter/meta/llama-3')).toEqual({ provider: 'openrouter', model: 'meta/llama-3' });
  });
});
