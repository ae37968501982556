import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startOpenAiStub, type OpenAiStub, type OpenAiStubHandler } from '@runledger/testing';
import { main, type CliIo } from '../../../scripts/cli/agent';

jest.setTimeout(60_000);

let dir: string;
let stub: OpenAiStub | undefined;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agent-cli-'));
});
afterEach(async () => {
  await stub?.stop();
  stub = undefined;
  await rm(dir, { recursive: true, force: true });
});

function io() {
  const out: string[] = [];
  const err: string[] = [];
  const value: CliIo = { cwd: dir, env: {}, home: path.join(dir, 'home'), systemDir: path.join(dir, 'etc'), stdout: (t) => void out.push(t), stderr: (t) => void err.push(t) };
  return { value, out: () => out.join(''), err: () => err.join('') };
}

async function configWith(handler: OpenAiStubHandler, extra: Record<string, unknown> = {}): Promise<string> {
  stub = await startOpenAiStub(handler);
  const file = path.join(dir, 'agent.json');
  await writeFile(file, JSON.stringify({ providers: { stub: { baseUrl: stub.baseURL, apiKey: '${STUB_KEY}' } }, defaults: { targets: ['stub/stub-model'], temperature: 0.3, maxRetries: 1, ...extra } }));
  await writeFile(path.join(dir, '.ai-agent.env'), 'STUB_KEY=sk-from-env-file\n');
  return file;
}

/** Answers in the FINAL tag of the default xml-final transport, reading the nonce from XML-NEXT. */
const xmlFinal: OpenAiStubHandler = (body) => {
  const nonce = /Session nonce: (\w+)\./.exec(String(body.messages.at(-1)?.content))?.[1] ?? 'missing';
  return { content: `<ai-agent-${nonce}-FINAL tool="agent__final_report" format="markdown">The answer is 42.</ai-agent-${nonce}-FINAL>` };
};

describe('runledger agent (scripts/cli/agent.ts)', () => {
  it('CLI Exit Codes: a successful session prints the final report and exits 0; config reaches the provider', async () => {
    const file = await configWith(xmlFinal);
    const cli = io();
    expect(await main(['--config', file, '--prompt', 'What is the answer?'], cli.value)).toBe(0);
    expect(cli.out()).toBe('The answer is 42.\n');
    expect(stub!.requests[0]!.headers.authorization).toBe('Bearer sk-from-env-file');
    expect(stub!.requests[0]!.body).toMatchObject({ model: 'stub-model', temperature: 0.3 });
    expect(stub!.requests[0]!.body.messages[0]).toEqual({ role: 'user', content: 'What is the answer?' });
  });

  it('CLI Exit Codes: the native transport with only the final report tool also works, and --json prints the AIAgentResult', async () => {
    const file = await configWith(() => ({ tool_calls: [{ name: 'agent__final_report', arguments: '{"format":"markdown","report_content":"native"}' }] }), { toolTransport: 'native' });
    const cli = io();
    expect(await main(['--config', file, '--prompt', 'q', '--json'], cli.value)).toBe(0);
    expect(stub!.requests[0]!.body.tools!.map((t) => (t.type === 'function' ? t.function.name : t.type))).toEqual(['agent__final_report']);
    expect(JSON.parse(cli.out())).toMatchObject({ success: true, finalReport: { status: 'success', content: 'native' } });
  });

  it('CLI Exit Codes: an auth failure (401) exits 1 with the error on stderr', async () => {
    const file = await configWith(() => ({ status: 401, error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }));
    const cli = io();
    expect(await main(['--config', file, '--prompt', 'q'], cli.value)).toBe(1);
    expect(cli.err()).toContain('agent session failed: auth: 401 Incorrect API key provided');
    expect(stub!.requests).toHaveLength(1);
  });

  it('CLI Exit Codes: a session without a final report exits 1', async () => {
    const file = await configWith(() => ({ content: '' }), { maxTurns: 1 });
    const cli = io();
    expect(await main(['--config', file, '--prompt', 'q'], cli.value)).toBe(1);
    expect(cli.err()).toContain('maximum number of turns (1)');
  });

  it('CLI Exit Codes: invalid arguments and configuration errors exit 4', async () => {
    const file = await configWith(xmlFinal);
    const missingPrompt = io();
    expect(await main(['--config', file], missingPrompt.value)).toBe(4);
    expect(missingPrompt.err()).toContain('--prompt or --prompt-file is required');
    expect(await main(['--config', file, '--prompt', 'q', '--bogus', 'x'], io().value)).toBe(4);
    expect(await main(['--config', path.join(dir, 'missing.json'), '--prompt', 'q'], io().value)).toBe(4);
    expect(await main(['--config', file, '--prompt', 'q', '--model', 'ghost/m'], io().value)).toBe(4);
    expect(await main(['--config', file, '--prompt', 'q', '--max-turns', '0'], io().value)).toBe(4);

    await writeFile(path.join(dir, '.ai-agent.env'), '');
    const missingVar = io();
    expect(await main(['--config', file, '--prompt', 'q'], missingVar.value)).toBe(4);
    expect(missingVar.err()).toContain(`missing variable \${STUB_KEY} at providers.stub.apiKey in config layer ${file}`);
    expect(stub!.requests).toHaveLength(0);
  });

  it('CLI Exit Codes: --help is informational and exits 0', async () => {
    const cli = io();
    expect(await main(['--help'], cli.value)).toBe(0);
    expect(cli.out()).toContain('usage: runledger agent');
  });
});

describe('runledger agent with MCP tools and the exit codes 3 and 5', () => {
  const echoServer = path.resolve(__dirname, '../../../test/support/mcp/echo-server.js');

  it('§1 MCP tools from the CLI: a stdio MCP server\'s tools are offered and executed; the session exits 0', async () => {
    const file = await configWith((body) => {
      const tool = body.messages.find((m) => m.role === 'tool');
      if (!tool) return { tool_calls: [{ name: 'echo__shout', arguments: '{"text":"hello"}' }] };
      return { tool_calls: [{ name: 'agent__final_report', arguments: JSON.stringify({ format: 'markdown', report_content: `said ${String(tool.content)}` }) }] };
    }, { toolTransport: 'native' });
    const raw = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...raw, mcpServers: { echo: { command: process.execPath, args: [echoServer] } } }));
    const cli = io();
    expect(await main(['--config', file, '--prompt', 'shout hello'], cli.value)).toBe(0);
    expect(cli.out()).toBe('said HELLO\n');
    expect(stub!.requests[0]!.body.tools!.map((t) => (t.type === 'function' ? t.function.name : ''))).toEqual(['echo__big', 'echo__shout', 'echo__sleep', 'agent__final_report']);
  });

  it('CLI Exit Codes: an MCP server that fails to start exits 3 before any model request', async () => {
    const file = await configWith(xmlFinal);
    const raw = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...raw, mcpServers: { broken: { command: process.execPath, args: ['-e', 'process.exit(2)'] } } }));
    const cli = io();
    expect(await main(['--config', file, '--prompt', 'q'], cli.value)).toBe(3);
    expect(cli.err()).toContain('MCP server failed to start: broken');
    expect(stub!.requests).toHaveLength(0);
  });

  it('CLI Exit Codes: an output schema that does not compile exits 5 before any model request', async () => {
    const file = await configWith(xmlFinal, { expectedOutputFormat: 'json', outputSchema: { type: 'nonsense' } });
    const cli = io();
    expect(await main(['--config', file, '--prompt', 'q'], cli.value)).toBe(5);
    expect(stub!.requests).toHaveLength(0);
  });
});

describe('runledger agent --log: the session events in a local log, resumed from it', () => {
  const echoServer = path.resolve(__dirname, '../../../test/support/mcp/echo-server.js');

  it('§4 accounting / Resume, never repeat: the local log holds the same session events; a run cut off mid-session resumes from the file without repeating a completed request or tool call', async () => {
    const file = await configWith((body) => {
      const tool = body.messages.find((m) => m.role === 'tool');
      if (!tool) return { tool_calls: [{ name: 'echo__shout', arguments: '{"text":"hello"}' }] };
      return { tool_calls: [{ name: 'agent__final_report', arguments: JSON.stringify({ format: 'markdown', report_content: `said ${String(tool.content)}` }) }] };
    }, { toolTransport: 'native' });
    const counts = path.join(dir, 'mcp-count.jsonl');
    const raw = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...raw, mcpServers: { echo: { command: process.execPath, args: [echoServer], env: { MCP_COUNT_FILE: counts } } } }));
    const log = path.join(dir, 'session.jsonl');

    const first = io();
    expect(await main(['--config', file, '--prompt', 'shout hello', '--log', log, '--json'], first.value)).toBe(0);
    const live = JSON.parse(first.out()) as { accounting: unknown[]; finalReport: { content: string } };
    const lines = (await readFile(log, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { type: string; data: { entry?: unknown } });
    // Issue 21: the same journal as a run's (the engine's step and tool-call events) through the same runtime port.
    expect(lines.map((l) => l.type).filter((t) => t !== 'SessionNoted' && t !== 'SessionAccounted')).toEqual([
      'StepCompleted', 'ToolCallRequested', 'ToolCallRecorded', 'StepCompleted', 'SessionFinished',
    ]);
    expect(lines.filter((l) => l.type === 'SessionAccounted').map((l) => l.data.entry)).toEqual(live.accounting);

    // Cut the log right after the tool call completed, as if the process had died there, and run again.
    const cut = lines.findIndex((l) => l.type === 'ToolCallRecorded') + 1;
    await writeFile(log, lines.slice(0, cut).map((l) => JSON.stringify(l)).join('\n') + '\n');
    const again = io();
    expect(await main(['--config', file, '--prompt', 'shout hello', '--log', log, '--json'], again.value)).toBe(0);
    expect((JSON.parse(again.out()) as { finalReport: { content: string } }).finalReport.content).toBe('said HELLO');
    // Two requests in the first run, one (the request that had not completed) in the second; the tool ran once.
    expect(stub!.requests).toHaveLength(3);
    expect((await readFile(counts, 'utf8')).trim().split('\n')).toHaveLength(1);

    // A finished log answers from the file.
    const third = io();
    expect(await main(['--config', file, '--prompt', 'shout hello', '--log', log], third.value)).toBe(0);
    expect(third.out()).toBe('said HELLO\n');
    expect(stub!.requests).toHaveLength(3);
  });
});
