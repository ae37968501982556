/**
 * Issue 9 erasure, review item 1 (README "Erasure"): an agent session's free text — its prompt, the model's
 * answers, tool arguments and results, the final report — is sealed with its owner's key like every other run's,
 * so it is absent from the raw bytes of every stream and reads as erased once `runledger erase` destroys the key.
 */
import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import type { SessionReply } from '@runledger/contracts';
import { ERASED_TEXT, ERASED_VALUE } from '@runledger/messaging';
import { startOpenAiStub, type ChatRequestBody, type OpenAiStub } from '@runledger/testing';
import { runCli } from './support/cli';
import { startHttpMcpServer } from './support/mcp/http-server';
import { SESSION_GET, SESSION_START, sessionFixtures } from './support/sessions';
import { TestStack } from './support/stack';

jest.setTimeout(300_000);

const PROFILE = { id: 'scribe', version: '1', role: 'SESSION_AGENT', lane: 'TOOL_SESSION_TEST', targets: ['stub/stub-model'], tools: ['echo__shout'], session: { toolTransport: 'native', maxTurns: 4 } };

describe('Issue 9 erasure: agent sessions are sealed and erased with their owner', () => {
  let stack: TestStack;
  let stub: OpenAiStub;
  let web: Awaited<ReturnType<typeof startHttpMcpServer>>;
  const tag = randomUUID().slice(0, 8);
  const secret = `zanzibar quokka ${tag}`;
  const userId = `u-sess-${tag}`;

  beforeAll(async () => {
    // The model shouts the prompt's text through a tool, then reports what the tool said.
    stub = await startOpenAiStub((body: ChatRequestBody) => {
      const tool = body.messages.find((m) => m.role === 'tool');
      if (!tool) return { tool_calls: [{ name: 'echo__shout', arguments: JSON.stringify({ text: secret }) }] };
      return { tool_calls: [{ name: 'agent__final_report', arguments: JSON.stringify({ format: 'markdown', report_content: `report: ${String(tool.content)} for ${secret}` }) }] };
    });
    web = await startHttpMcpServer();
    const fixtures = await sessionFixtures({ stubBaseUrl: stub.baseURL, httpMcpUrl: web.url, profiles: [PROFILE], laneTools: ['echo__shout'] });
    stack = await TestStack.start({ services: ['tool-gateway', 'audit-ledger', 'decision'], env: fixtures.env });
  });
  afterAll(async () => {
    await stack?.stop();
    await web?.stop();
    await stub?.stop();
  });

  /** Streams whose raw message bytes contain a needle (the object store and domain documents hold no session data). */
  async function rawHits(needles: string[]): Promise<string[]> {
    const jsm = await jetstreamManager(stack.nc);
    const hits: string[] = [];
    for await (const s of jsm.streams.list()) {
      for (let seq = s.state.first_seq; s.state.messages > 0 && seq <= s.state.last_seq; seq++) {
        const m = await jsm.streams.getMessage(s.config.name, { seq }).catch(() => null);
        const text = m ? new TextDecoder().decode(m.data) : '';
        for (const n of needles) if (text.includes(n)) hits.push(`${s.config.name} ${m!.subject}: ${n}`);
      }
    }
    return hits;
  }

  it('Issue 9 erasure (review 1): a session\'s prompt, model answers, tool args and results are absent from raw stream bytes and read as erased after `runledger erase`', async () => {
    const reply = await stack.request<SessionReply>(SESSION_START, { agent: 'scribe', prompt: `Write down ${secret}`, request_id: `erase-${tag}`, user_id: userId }, 120_000);
    expect(reply.ok).toBe(true);
    expect(reply.body).toMatchObject({ status: 'completed', result: { finalReport: { content: `report: ${secret.toUpperCase()} for ${secret}` } } });
    const runId = reply.body.run_id;
    const types = (await stack.runEvents(runId)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['StepCompleted', 'ToolCallRequested', 'ToolCallRecorded', 'SessionFinished']));
    // Readers with the key see plaintext; the stored bytes of every stream (log, inbox, KV, objects) hold none of it.
    expect(JSON.stringify(await stack.runEvents(runId))).toContain(secret.toUpperCase());
    expect(await rawHits([secret, secret.toUpperCase()])).toEqual([]);

    const erased = await runCli(stack.url, ['erase', '--user', userId], stack.cliEnv('admin'));
    expect(erased.stderr).toBe('');
    expect(erased.code).toBe(0);
    // The test reader's watch delivers the deletion asynchronously: wait for it, then every sealed field is erased.
    await stack.waitFor(async () => (await stack.runEvents(runId)).find((e) => e.type === 'RunCreated' && (e.data as { parameters: { prompt: unknown } }).parameters.prompt === ERASED_TEXT), 30_000);
    const events = await stack.runEvents(runId);
    expect(JSON.stringify(events)).not.toContain(secret.toUpperCase());
    expect(JSON.stringify(events)).not.toContain(secret);
    const of = (type: string) => events.find((e) => e.type === type)!.data as Record<string, unknown>;
    expect(of('ToolCallRequested').parameters).toEqual(ERASED_VALUE);
    expect(of('ToolCallRecorded')).toMatchObject({ status: 'ok', result: ERASED_TEXT });
    expect(of('StepCompleted')).toMatchObject({ step_id: 'llm-1', output: ERASED_VALUE });
    expect(of('SessionFinished')).toMatchObject({ success: true, finalReport: ERASED_VALUE, conversation: ERASED_VALUE });
    // The session reply (decision reads the log through its own key cache) shows the erased marker too.
    await stack.waitFor(async () => {
      const got = await stack.request<SessionReply>(SESSION_GET, { run_id: runId });
      return got.ok && JSON.stringify(got.body.result).includes('"erased":true') && !JSON.stringify(got.body).includes(secret);
    }, 30_000);
    // The log still holds every event: nothing was rewritten.
    expect(events.map((e) => e.type)).toEqual(types);
  });
});
