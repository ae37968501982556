import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { layerSources, loadAgentConfig } from './config-files';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'agent-config-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function put(file: string, content: unknown): Promise<string> {
  const full = path.join(root, file);
  await mkdir(path.dirname(full), { recursive: true });
  await writeFile(full, typeof content === 'string' ? content : JSON.stringify(content));
  return full;
}

const dirs = () => ({
  configPath: path.join(root, 'explicit', 'agent.json'),
  cwd: path.join(root, 'cwd'),
  promptPath: path.join(root, 'prompts', 'task.md'),
  binaryDir: path.join(root, 'bin'),
  home: path.join(root, 'home'),
  systemDir: path.join(root, 'etc', 'ai-agent'),
});

describe('§7 Configuration loading from files', () => {
  it('Layer Precedence: --config > cwd > prompt dir > binary dir > $HOME/.ai-agent/ai-agent.json > /etc/ai-agent/ai-agent.json', async () => {
    const d = dirs();
    const layer = (name: string) => ({ defaults: { systemPrompt: name }, providers: { [name]: { baseUrl: `http://${name}` } }, queues: { [name]: { concurrent: 1 } } });
    await put('explicit/agent.json', layer('explicit'));
    await put('cwd/.ai-agent.json', { ...layer('cwd'), defaults: { systemPrompt: 'cwd', maxTurns: 2 } });
    await put('prompts/.ai-agent.json', { ...layer('prompt'), defaults: { maxTurns: 3, maxRetries: 3 } });
    await put('bin/.ai-agent.json', { ...layer('binary'), defaults: { maxRetries: 4, toolTimeout: 4 } });
    await put('home/.ai-agent/ai-agent.json', { ...layer('home'), defaults: { toolTimeout: 5, maxToolCallsPerTurn: 5 } });
    await put('etc/ai-agent/ai-agent.json', { ...layer('system'), defaults: { maxToolCallsPerTurn: 6, contextWindow: 6 } });

    expect(layerSources(d).map((s) => s.kind)).toEqual(['config', 'cwd', 'prompt', 'binary', 'home', 'system']);
    const r = await loadAgentConfig(d, {});
    if (!r.ok) throw new Error(r.error);
    expect(r.value.config.defaults).toEqual({ systemPrompt: 'explicit', maxTurns: 2, maxRetries: 3, toolTimeout: 4, maxToolCallsPerTurn: 5, contextWindow: 6 });
    expect(Object.keys(r.value.config.providers).sort()).toEqual(['binary', 'cwd', 'explicit', 'home', 'prompt', 'system']);
    expect(Object.keys(r.value.config.queues).sort()).toEqual(['binary', 'cwd', 'default', 'explicit', 'home', 'prompt', 'system']);
    expect(r.value.origins).toHaveLength(6);
  });

  it("Placeholder Expansion: each layer reads its own .ai-agent.env first, then the process environment", async () => {
    const d = dirs();
    await put('cwd/.ai-agent.json', { providers: { a: { apiKey: '${KEY}', baseUrl: '${HOST}' } } });
    await put('cwd/.ai-agent.env', 'KEY=cwd-secret\n');
    await put('home/.ai-agent/ai-agent.json', { providers: { b: { apiKey: '${KEY}' } } });
    await put('home/.ai-agent/.ai-agent.env', 'KEY=home-secret\n');
    const r = await loadAgentConfig({ cwd: d.cwd, home: d.home, systemDir: d.systemDir }, { KEY: 'env-secret', HOST: 'http://h' });
    if (!r.ok) throw new Error(r.error);
    expect(r.value.config.providers).toEqual({ a: { apiKey: 'cwd-secret', baseUrl: 'http://h' }, b: { apiKey: 'home-secret' } });
  });

  it('Placeholder Expansion: a missing variable fails naming the layer file; a missing --config file and a bad queue binding fail too', async () => {
    const d = dirs();
    const file = await put('home/.ai-agent/ai-agent.json', { providers: { b: { apiKey: '${NOT_SET_ANYWHERE}' } } });
    expect(await loadAgentConfig({ cwd: d.cwd, home: d.home, systemDir: d.systemDir }, {})).toEqual({
      ok: false,
      error: `missing variable \${NOT_SET_ANYWHERE} at providers.b.apiKey in config layer ${file} (not in its .ai-agent.env nor in the environment)`,
    });
    expect(await loadAgentConfig({ cwd: d.cwd, configPath: 'nope.json', systemDir: d.systemDir }, {})).toEqual({ ok: false, error: `config file not found: ${path.join(d.cwd, 'nope.json')}` });
    await put('cwd/.ai-agent.json', { mcpServers: { fs: { queue: 'ghost' } } });
    expect(await loadAgentConfig({ cwd: d.cwd, systemDir: d.systemDir }, {})).toEqual({
      ok: false,
      error: "invalid configuration: mcpServers.fs.queue references unknown queue 'ghost' (defined: default)",
    });
  });
});
