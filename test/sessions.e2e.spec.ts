import { childRunId, evolveRun, initialRunState } from '@runledger/runs';
import { foldEvents, RecordedEvent } from '@runledger/event-log';
import { startOpenAiStub, waitUntil, type ChatRequestBody, type OpenAiStub, type StubReply } from '@runledger/testing';
import type { SessionReply, ToolInvocationResult } from '@runledger/contracts';
import { TestStack } from './support/stack';
import { startHttpMcpServer } from './support/mcp/http-server';
import { sessionFixtures } from './support/sessions';

jest.setTimeout(300_000);

const PROFILE = {
  id: 'researcher', version: '1', role: 'SESSION_AGENT', lane: 'TOOL_SESSION_TEST', targets: ['stub/stub-model'],
  tools: ['web__lookup', 'echo__shout', 'echo__missing'], session: { toolTransport: 'native', maxTurns: 6, maxRetries: 2, systemPrompt: 'You research.' },
};

const promptOf = (body: ChatRequestBody) => String(body.messages.find((m) => m.role === 'user')?.content ?? '');
const toolMessages = (body: ChatRequestBody) => body.messages.filter((m) => m.role === 'tool');

/** The scripted model: look a term up (HTTP MCP), shout it (stdio MCP), then report what the tools said. */
function researcher(body: ChatRequestBody): StubReply {
  const done = toolMessages(body);
  if (done.length === 0) return { tool_calls: [{ name: 'web__lookup', arguments: JSON.stringify({ q: 'nats' }) }] };
  if (done.length === 1) return { tool_calls: [{ name: 'echo__shout', arguments: JSON.stringify({ text: String(done[0]!.content) }) }] };
  return { tool_calls: [{ name: 'agent__final_report', arguments: JSON.stringify({ format: 'markdown', report_content: `report: ${String(done[1]!.content)}` }) }] };
}

describe('Issue 7 agent sessions over the bus (agents.session.start)', () => {
  let stack: TestStack;
  let stub: OpenAiStub;
  let web: Awaited<ReturnType<typeof startHttpMcpServer>>;
  let fixtures: Awaited<ReturnType<typeof sessionFixtures>>;
  /** Test hook: when set, the model request it matches waits on it (a request in flight at a crash). */
  let hold: { match: (body: ChatRequestBody) => boolean; reached: () => void; release: Promise<void> } | undefined;

  beforeAll(async () => {
    stub = await startOpenAiStub(async (body) => {
      const h = hold;
      if (h?.match(body)) {
        hold = undefined;
        h.reached();
        await h.release;
      }
      return researcher(body);
    });
    web = await startHttpMcpServer();
    fixtures = await sessionFixtures({ stubBaseUrl: stub.baseURL, httpMcpUrl: web.url, profiles: [PROFILE], laneTools: ['web__lookup', 'echo__shout', 'echo__missing'] });
    stack = await TestStack.start({ services: ['tool-gateway', 'audit-ledger', 'decision'], env: { ...fixtures.env, RL_INBOX_ACK_WAIT_MS: '2000' } });
  });
  afterAll(async () => {
    await stack?.stop();
    await web?.stop();
    await stub?.stop();
  });

  const requestsFor = (prompt: string) => stub.requests.filter((r) => promptOf(r.body) === prompt);

  it('§4 accounting / §6 conversation: a session with MCP tools (HTTP and stdio) runs end to end, every call is in the log, and accounting read back equals the live result', async () => {
    const prompt = 'What is NATS? (end to end)';
    const reply = await stack.request<SessionReply>('agents.session.start', { agent: 'researcher', prompt, request_id: 'e2e-1' }, 120_000);
    expect(reply.ok).toBe(true);
    const body = reply.body;
    expect(body).toMatchObject({ status: 'completed', agent: 'researcher', profile_version: '1', result: { success: true, finalReport: { status: 'success', content: 'report: DEFINITION OF NATS' } } });
    // The model saw the gateway's MCP tools with their schemas.
    const offered = (requestsFor(prompt)[0]!.body.tools ?? []).map((t) => (t.type === 'function' ? t.function.name : ''));
    expect(offered).toEqual(['web__lookup', 'echo__shout', 'agent__final_report']);

    const events = await stack.runEvents(body.run_id);
    // The tool set is pinned at start; a profile tool the gateway does not offer is recorded as missing.
    expect(events.find((e) => e.type === 'SessionStarted')!.data).toMatchObject({ missing_tools: ['echo__missing'] });
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === 'SessionLlmRequested')).toHaveLength(3);
    expect(types.filter((t) => t === 'SessionLlmCompleted')).toHaveLength(3);
    expect(types.filter((t) => t === 'SessionToolRequested')).toHaveLength(2);
    expect(types.filter((t) => t === 'SessionToolCompleted')).toHaveLength(2);
    expect(types.at(-1)).toBe('RunCompleted');
    expect(foldEvents(evolveRun, initialRunState(), events as unknown as RecordedEvent[]).anomalies).toEqual([]);
    // Each tool call is a tool_gateway child run of the session, authorised and audited at the gateway.
    for (const callId of ['tool-1', 'tool-2']) {
      const child = await stack.runEvents(childRunId('tool_gateway', body.run_id, callId));
      expect(child.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'ToolCallAudited', 'RunCompleted']);
      expect((child[0]!.data as { lane: string }).lane).toBe('TOOL_SESSION_TEST');
    }
    expect(web.executions).toEqual([{ tool: 'lookup', args: { q: 'nats' } }]);
    expect(await fixtures.stdioExecutions()).toEqual([{ tool: 'shout', args: { text: 'definition of nats' } }]);

    // Accounting is a projection of the recorded events: agents.session.get folds it again from the log.
    const again = await stack.request<SessionReply>('agents.session.get', { run_id: body.run_id });
    expect(again.body.result!.accounting).toEqual(body.result!.accounting);
    expect(body.result!.accounting.map((e) => (e as { type: string }).type)).toEqual(['llm', 'tool', 'llm', 'tool', 'llm', 'tool']);
    expect(body.usage).toMatchObject({ llmRequests: 3, toolCalls: 3 });
    // A repeated request joins the same session: nothing runs again.
    const repeated = await stack.request<SessionReply>('agents.session.start', { agent: 'researcher', prompt, request_id: 'e2e-1' });
    expect(repeated.body.run_id).toBe(body.run_id);
    expect(requestsFor(prompt)).toHaveLength(3);
  });

  it('INV-TOOL-001 / INV-TOOL-003 through the gateway: invalid input never reaches the MCP server; a tool no server provides is TOOL.NOT_FOUND, not a throw', async () => {
    const parent = (await stack.request<SessionReply>('agents.session.start', { agent: 'researcher', prompt: 'What is NATS? (end to end)', request_id: 'e2e-1' })).body.run_id;
    const created = (await stack.runEvents(parent))[0]!.data as { policy_versions: unknown; root_run_id: string };
    const governance = { parent_run_id: parent, root_run_id: created.root_run_id, agent_name: 'SESSION_AGENT', lane: 'TOOL_SESSION_TEST', policy_versions: created.policy_versions };
    const before = (await fixtures.stdioExecutions()).length;
    const invalid = await stack.request<ToolInvocationResult>('rl.tool.invoke', { call_id: 'direct-invalid', tool_name: 'echo__shout', parameters: { text: 42 }, governance });
    expect(invalid.body).toMatchObject({ status: 'failed', error: { error_code: 'TOOL.INVALID_INPUT' } });
    const unknown = await stack.request<ToolInvocationResult>('rl.tool.invoke', { call_id: 'direct-unknown', tool_name: 'echo__missing', parameters: {}, governance });
    expect(unknown.body).toMatchObject({ status: 'failed', error: { error_code: 'TOOL.NOT_FOUND' } });
    expect((await fixtures.stdioExecutions()).length).toBe(before);
  });

  it('Resume, never repeat: SIGKILL decision mid-session; the session continues from the log and no completed model request or tool call is sent again', async () => {
    const prompt = 'What is NATS? (crash)';
    let reached!: () => void;
    const atThirdRequest = new Promise<void>((r) => (reached = r));
    let release!: () => void;
    hold = { match: (b) => promptOf(b) === prompt && toolMessages(b).length === 2, reached, release: new Promise<void>((r) => (release = r)) };
    // This caller's reply dies with the process; it gives up after a while (a caller asks again, below).
    const first = stack.request<SessionReply>('agents.session.start', { agent: 'researcher', prompt, request_id: 'e2e-crash' }, 15_000).catch((e: Error) => e);
    await atThirdRequest;
    // Two model answers and both tool calls are recorded; the third model request is in flight.
    await stack.kill('decision', 'SIGKILL');
    release();
    await stack.startService('decision');

    const reply = await waitUntil(async () => {
      const r = await stack.request<SessionReply>('agents.session.start', { agent: 'researcher', prompt, request_id: 'e2e-crash' }, 60_000).catch(() => undefined);
      return r?.body.status === 'completed' ? r.body : undefined;
    }, { timeoutMs: 120_000, intervalMs: 500 });
    expect(reply.result).toMatchObject({ success: true, finalReport: { content: 'report: DEFINITION OF NATS' } });
    // Completed requests were not sent again: one request per completed turn; the one in flight at the kill was sent twice.
    const perTurn = [0, 1, 2].map((k) => requestsFor(prompt).filter((r) => toolMessages(r.body).length === k).length);
    expect(perTurn).toEqual([1, 1, 2]);
    // Each tool ran exactly once at its MCP server.
    expect(web.executions.filter((e) => e.tool === 'lookup')).toHaveLength(2); // one per session: the first test's and this one's
    expect((await fixtures.stdioExecutions()).filter((e) => e.tool === 'shout')).toHaveLength(2);
    const events = await stack.runEvents(reply.run_id);
    expect(events.filter((e) => e.type === 'SessionLlmCompleted')).toHaveLength(3);
    expect(events.filter((e) => e.type === 'SessionToolCompleted')).toHaveLength(2);
    expect(reply.result!.accounting.filter((e) => (e as { type: string }).type === 'llm')).toHaveLength(3);
    expect(await first).toBeInstanceOf(Error);
  });
});
