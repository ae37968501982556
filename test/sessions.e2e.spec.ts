import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { childRunId, evolveRun, initialRunState } from '@runledger/runs';
import { foldEvents, RecordedEvent } from '@runledger/event-log';
import { startOpenAiStub, waitUntil, type ChatRequestBody, type OpenAiStub, type StubReply } from '@runledger/testing';
import type { SessionReply, ToolInvocationResult } from '@runledger/contracts';
import { decodeReply, encodeJson } from '@runledger/messaging';
import { recordedCaller } from './support/governed-runs';
import { TestStack } from './support/stack';
import { startHttpMcpServer } from './support/mcp/http-server';
import { SESSION_GET, SESSION_START, sessionFixtures } from './support/sessions';
import { main as agentCli } from '../scripts/cli/agent';

jest.setTimeout(300_000);

const PROFILE = {
  id: 'researcher', version: '1', role: 'SESSION_AGENT', lane: 'TOOL_SESSION_TEST', targets: ['stub/stub-model'],
  tools: ['web__lookup', 'echo__shout', 'echo__missing'], session: { toolTransport: 'native', maxTurns: 6, maxRetries: 2, systemPrompt: 'You research.' },
};
const PLANNER = { id: 'planner', version: '1', role: 'SESSION_AGENT', targets: ['stub/stub-model'], subAgents: ['researcher'], session: { toolTransport: 'native', maxTurns: 4 } };
const LOOPER = { id: 'looper', version: '1', role: 'SESSION_AGENT', targets: ['stub/stub-model'], subAgents: ['looper'], session: { toolTransport: 'native', maxTurns: 4 } };
const SPENDER = { ...PROFILE, id: 'spender', budget: { maxTotalTokens: 1 } };
const LANE_TOOLS = ['web__lookup', 'web__slow', 'echo__shout', 'echo__missing', 'echo__big', 'echo__sleep'];

const promptOf = (body: ChatRequestBody) => String(body.messages.find((m) => m.role === 'user')?.content ?? '');
const toolMessages = (body: ChatRequestBody) => body.messages.filter((m) => m.role === 'tool');

/** The scripted model: look a term up (HTTP MCP), shout it (stdio MCP), then report what the tools said. */
function researcher(body: ChatRequestBody): StubReply {
  const done = toolMessages(body);
  const prompt = promptOf(body);
  // Planner and looper delegate once, then report what the sub-agent tool answered.
  if (prompt.startsWith('plan:') || prompt.startsWith('loop')) {
    if (done.length === 0) return { tool_calls: [{ name: prompt.startsWith('plan:') ? 'agent__researcher' : 'agent__looper', arguments: JSON.stringify({ task: prompt.startsWith('plan:') ? 'What is NATS? (sub)' : 'loop again' }) }] };
    return { tool_calls: [{ name: 'agent__final_report', arguments: JSON.stringify({ format: 'markdown', report_content: `delegated: ${String(done[0]!.content)}` }) }] };
  }
  if (done.length === 0) return { tool_calls: [{ name: 'web__lookup', arguments: JSON.stringify({ q: 'nats' }) }] };
  if (done.length === 1) return { tool_calls: [{ name: 'echo__shout', arguments: JSON.stringify({ text: String(done[0]!.content) }) }] };
  return { tool_calls: [{ name: 'agent__final_report', arguments: JSON.stringify({ format: 'markdown', report_content: `report: ${String(done[1]!.content)}` }) }] };
}

describe('Issue 7 agent sessions over the bus (a caller\'s sessions.start)', () => {
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
    fixtures = await sessionFixtures({ stubBaseUrl: stub.baseURL, httpMcpUrl: web.url, profiles: [PROFILE, PLANNER, LOOPER, SPENDER], laneTools: LANE_TOOLS });
    // One invalid profile among the valid ones: it is refused alone, and the others serve (Issue 25).
    await writeFile(path.join(fixtures.env.AGENT_PROFILES_DIR, 'broken.json'), JSON.stringify({ ...PROFILE, id: 'broken', role: 'lower' }));
    stack = await TestStack.start({ services: ['tool-gateway', 'audit-ledger', 'decision'], env: { ...fixtures.env, RL_INBOX_ACK_WAIT_MS: '2000', TOOL_RESPONSE_MAX_BYTES: '1024' } });
  });
  afterAll(async () => {
    await stack?.stop();
    await web?.stop();
    await stub?.stop();
  });

  const requestsFor = (prompt: string) => stub.requests.filter((r) => promptOf(r.body) === prompt);

  it('§4 accounting / §6 conversation: a session with MCP tools (HTTP and stdio) runs end to end, every call is in the log, and accounting read back equals the live result', async () => {
    const prompt = 'What is NATS? (end to end)';
    const reply = await stack.request<SessionReply>(SESSION_START, { agent: 'researcher', prompt, request_id: 'e2e-1' }, 120_000);
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
    // Issue 21 one journal: each model attempt is a journaled step of the run engine, each tool call a journaled tool call.
    const steps = events.filter((e) => e.type === 'StepCompleted').map((e) => (e.data as { step_id: string }).step_id);
    expect(steps).toEqual(['llm-1', 'llm-2', 'llm-3']);
    expect(events.filter((e) => e.type === 'ToolCallRequested').map((e) => e.data)).toEqual([
      expect.objectContaining({ call_id: 'tool-1', tool_name: 'web__lookup', child_run_id: childRunId('tool_gateway', body.run_id, 'tool-1') }),
      expect.objectContaining({ call_id: 'tool-2', tool_name: 'echo__shout' }),
    ]);
    expect(events.filter((e) => e.type === 'ToolCallRecorded').map((e) => (e.data as { status: string }).status)).toEqual(['ok', 'ok']);
    expect(types.some((t) => t.startsWith('SessionLlm') || t.startsWith('SessionTool'))).toBe(false);
    expect(types.at(-1)).toBe('RunCompleted');
    expect(foldEvents(evolveRun, initialRunState(), events as unknown as RecordedEvent[]).anomalies).toEqual([]);
    // Each tool call is a tool_gateway child run of the session, authorised and audited at the gateway.
    for (const callId of ['tool-1', 'tool-2']) {
      const child = await stack.runEvents(childRunId('tool_gateway', body.run_id, callId));
      expect(child.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'EffectClaimed', 'ToolCallAudited', 'RunCompleted']);
      expect((child[0]!.data as { lane: string }).lane).toBe('TOOL_SESSION_TEST');
    }
    expect(web.executions).toEqual([{ tool: 'lookup', args: { q: 'nats' } }]);
    expect(await fixtures.stdioExecutions()).toEqual([{ tool: 'shout', args: { text: 'definition of nats' } }]);

    // Accounting is a projection of the recorded events: sessions.get folds it again from the log.
    const again = await stack.request<SessionReply>(SESSION_GET, { run_id: body.run_id });
    expect(again.body.result!.accounting).toEqual(body.result!.accounting);
    expect(body.result!.accounting.map((e) => (e as { type: string }).type)).toEqual(['llm', 'tool', 'llm', 'tool', 'llm', 'tool']);
    expect(body.usage).toMatchObject({ llmRequests: 3, toolCalls: 3 });
    // A repeated request joins the same session: nothing runs again.
    const repeated = await stack.request<SessionReply>(SESSION_START, { agent: 'researcher', prompt, request_id: 'e2e-1' });
    expect(repeated.body.run_id).toBe(body.run_id);
    expect(requestsFor(prompt)).toHaveLength(3);
    // The same request_id with another request is a conflict, as on the task assistant (probe finding: it was
    // REQUEST.INVALID here); nothing runs.
    const other = await stack.request<{ code: string }>(SESSION_START, { agent: 'researcher', prompt: `${prompt} and more`, request_id: 'e2e-1' });
    expect(other).toMatchObject({ ok: false, body: { code: 'REQUEST.CONFLICT' } });
    expect(requestsFor(`${prompt} and more`)).toHaveLength(0);
  });

  it('Issue 25 honest outcomes: an invalid agent profile is refused alone and reported in decision\'s health, while the other agents serve', async () => {
    const health = await stack.request<{ service: string; status: string; problems?: string[] }>('rl.health.decision', {});
    expect(health.body).toMatchObject({ service: 'decision', status: 'degraded', problems: ['agent profiles: broken.json refused: role must be an upper-case role name'] });
    const ready = await fetch(`http://127.0.0.1:${stack.httpPorts.get('decision')}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', degraded: true, problems: health.body.problems });
    // The refused agent is not served and never published; the others are published and serve (every session of
    // this suite runs beside the broken profile).
    const refused = await stack.request<{ code: string }>(SESSION_START, { agent: 'broken', prompt: 'hi' });
    expect(refused).toMatchObject({ ok: false, body: { code: 'REQUEST.INVALID' } });
    const published = await stack.log.replay<string[]>((ids, e) => (e.type === 'AgentProfilePublished' ? [...ids, (e.data as { id: string }).id] : ids), [], { filter: 'rl.log.profile.*' });
    expect([...new Set(published.state)].sort()).toEqual(['looper', 'planner', 'researcher', 'spender']);
  });

  it('INV-TOOL-001 / INV-TOOL-003 through the gateway: invalid input never reaches the MCP server; a tool no server provides is TOOL.NOT_FOUND, not a throw', async () => {
    const governance = await directGovernance();
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
    const first = stack.request<SessionReply>(SESSION_START, { agent: 'researcher', prompt, request_id: 'e2e-crash' }, 15_000).catch((e: Error) => e);
    await atThirdRequest;
    // Two model answers and both tool calls are recorded; the third model request is in flight.
    await stack.kill('decision', 'SIGKILL');
    release();
    await stack.startService('decision');

    const reply = await waitUntil(async () => {
      const r = await stack.request<SessionReply>(SESSION_START, { agent: 'researcher', prompt, request_id: 'e2e-crash' }, 60_000).catch(() => undefined);
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
    expect(events.filter((e) => e.type === 'StepCompleted').map((e) => (e.data as { step_id: string }).step_id)).toEqual(['llm-1', 'llm-2', 'llm-3']);
    expect(events.filter((e) => e.type === 'ToolCallRecorded')).toHaveLength(2);
    expect(reply.result!.accounting.filter((e) => (e as { type: string }).type === 'llm')).toHaveLength(3);
    expect(await first).toBeInstanceOf(Error);
  });

  /** A session agent run still under way (a finished run parents no new tool call, issue 9), pinned like the real session. */
  async function directGovernance() {
    const parent = (await stack.request<SessionReply>(SESSION_START, { agent: 'researcher', prompt: 'What is NATS? (end to end)', request_id: 'e2e-1' })).body.run_id;
    const created = (await stack.runEvents(parent))[0]!.data as { policy_versions: { lanes: string; roles: string } };
    return recordedCaller(stack, 'SESSION_AGENT', 'TOOL_SESSION_TEST', undefined, created.policy_versions);
  }

  it('§1 toolResponseMaxBytes through the gateway: one truncation function; the notice is prepended and the whole output stays within the limit', async () => {
    const governance = await directGovernance();
    const res = await stack.request<ToolInvocationResult>('rl.tool.invoke', { call_id: 'direct-big', tool_name: 'echo__big', parameters: { n: 5000 }, governance });
    expect(res.body).toMatchObject({ status: 'ok', truncated: true });
    const text = res.body.result as string;
    expect(text.startsWith('[TRUNCATED] Original size 5000 bytes; truncated to ')).toBe(true);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1024);
  });

  it('§1 queues.<name>.concurrent through the gateway: calls of a queue with concurrent 1 never overlap at the MCP server', async () => {
    const governance = await directGovernance();
    const calls = [1, 2, 3].map((i) => stack.request<ToolInvocationResult>('rl.tool.invoke', { call_id: `direct-sleep-${i}`, tool_name: 'echo__sleep', parameters: { ms: 300 }, governance }));
    const results = await Promise.all(calls);
    expect(results.map((r) => r.body.status)).toEqual(['ok', 'ok', 'ok']);
    const sleeps = (await fixtures.stdioExecutions()).filter((e) => e.tool === 'sleep');
    expect(sleeps).toHaveLength(3);
    expect(sleeps.map((e) => (e.args as { most: number }).most)).toEqual([1, 1, 1]);
  });

  it('Issue 7 in-flight tool call: a second request for a call still executing waits for the first attempt\'s outcome; the tool runs once', async () => {
    const governance = await directGovernance();
    const invocation = { call_id: 'in-flight-1', tool_name: 'web__slow', parameters: { key: 'in-flight-1' }, governance };
    const held = web.hold('in-flight-1');
    const first = stack.request<ToolInvocationResult>('rl.tool.invoke', invocation, 60_000);
    await held.reached;
    // The claim is on the log before the tool runs: the re-ask finds it there, not in the first instance's memory.
    const child = childRunId('tool_gateway', governance.parent_run_id, 'in-flight-1');
    expect((await stack.runEvents(child)).map((e) => e.type)).toContain('EffectClaimed');
    let answered = false;
    const second = stack.request<ToolInvocationResult>('rl.tool.invoke', invocation, 60_000).finally(() => (answered = true));
    // Time for the re-ask to reach the gateway; a second execution would show at the MCP server. The counts below decide.
    await waitUntil(() => web.executions.filter((e) => e.tool === 'slow').length > 1, { timeoutMs: 3_000 }).catch(() => undefined);
    // The re-ask is answered only with the first attempt's outcome: nothing while the tool is still held.
    expect(answered).toBe(false);
    held.release();
    const [a, b] = await Promise.all([first, second]);
    expect(a.body).toMatchObject({ status: 'ok', result: 'slow in-flight-1', replayed: false });
    expect(b.body).toMatchObject({ status: 'ok', result: 'slow in-flight-1', replayed: true, child_run_id: child });
    expect(web.executions.filter((e) => e.tool === 'slow')).toEqual([{ tool: 'slow', args: { key: 'in-flight-1' } }]);
    const types = (await stack.runEvents(child)).map((e) => e.type);
    expect(types.filter((t) => t === 'EffectClaimed')).toHaveLength(1);
    expect(types.filter((t) => t === 'RunCompleted')).toHaveLength(1);
  });

  it('Sub-agents (INV-DT-001/002): a sub-agent tool starts a child session under the parent run; a circular delegation is refused from the recorded ancestry', async () => {
    const planned = await stack.request<SessionReply>(SESSION_START, { agent: 'planner', prompt: 'plan: explain NATS', request_id: 'e2e-plan' }, 120_000);
    expect(planned.body).toMatchObject({ status: 'completed', result: { finalReport: { content: 'delegated: report: DEFINITION OF NATS' } } });
    const parentEvents = await stack.runEvents(planned.body.run_id);
    // The sub-agent call is a journaled step of the parent (its answer), not a gateway tool call.
    expect(parentEvents.filter((e) => e.type === 'StepCompleted').map((e) => (e.data as { step_id: string }).step_id)).toEqual(['llm-1', 'tool-1', 'llm-2']);
    expect(parentEvents.some((e) => e.type === 'ToolCallRequested')).toBe(false);
    const children = await stack.log.replay<Array<{ run_id: string; parent_run_id?: string; root_run_id: string }>>((acc, e) => (e.type === 'RunCreated' ? [...acc, e.data as never] : acc), [], { filter: 'rl.log.run.>' });
    const child = children.state.find((c) => c.parent_run_id === planned.body.run_id && (c as unknown as { run_kind: string }).run_kind === 'agent')!;
    expect(child.root_run_id).toBe(planned.body.run_id);
    // Issue 21: the sub-agent is a child run of the engine, recorded on the parent before it was asked for.
    expect(parentEvents.filter((e) => e.type === 'ChildRunStarted').map((e) => e.data)).toEqual([{ child_run_id: child.run_id, run_kind: 'agent', agent_name: 'researcher' }]);
    const childReply = await stack.request<SessionReply>(SESSION_GET, { run_id: child.run_id });
    expect(childReply.body).toMatchObject({ status: 'completed', agent: 'researcher' });
    // Issue 26: the sub-agent session is its root caller's (runs.get reads it as sessions.get does); another caller
    // reads neither it nor its parent.
    expect((await stack.request(SESSION_GET.replace(/sessions\.get$/, 'runs.get'), { run_id: child.run_id })).body).toMatchObject({ run_id: child.run_id, status: 'completed' });
    const other = await stack.connectAs('caller');
    try {
      for (const runId of [child.run_id, planned.body.run_id]) {
        const m = await other.request('rl.caller.caller.sessions.get', encodeJson({ run_id: runId }), { timeout: 60_000 });
        expect(decodeReply(m.data, m.headers)).toMatchObject({ ok: false, error: { code: 'RUN.NOT_FOUND' } });
      }
    } finally {
      await other.close();
    }

    const looped = await stack.request<SessionReply>(SESSION_START, { agent: 'looper', prompt: 'loop once', request_id: 'e2e-loop' }, 120_000);
    expect(looped.body.status).toBe('completed');
    expect(looped.body.result!.finalReport).toMatchObject({ content: expect.stringContaining('DELEGATION.CYCLE') });
    const all = await stack.log.replay<Array<{ run_id: string; parent_run_id?: string }>>((acc, e) => (e.type === 'RunCreated' ? [...acc, e.data as never] : acc), [], { filter: 'rl.log.run.>' });
    const loopChild = all.state.find((c) => c.parent_run_id === looped.body.run_id && (c as unknown as { run_kind: string }).run_kind === 'agent')!;
    const loopChildReply = await stack.request<SessionReply>(SESSION_GET, { run_id: loopChild.run_id });
    expect(loopChildReply.body).toMatchObject({ status: 'failed', error: { error_code: 'DELEGATION.CYCLE' } });
  });

  it('Budgets: a session over its token budget is refused before the next model request; the refusal is an event and the run fails SESSION.QUOTA', async () => {
    const prompt = 'What is NATS? (budget)';
    const reply = await stack.request<SessionReply>(SESSION_START, { agent: 'spender', prompt, request_id: 'e2e-budget' }, 120_000);
    expect(reply.body).toMatchObject({ status: 'failed', error: { error_code: 'SESSION.QUOTA' }, result: { success: false, error: { kind: 'quota' } } });
    expect(requestsFor(prompt)).toHaveLength(1);
    const events = await stack.runEvents(reply.body.run_id);
    expect(events.some((e) => e.type === 'SessionNoted' && (e.data as { entry: { event: string } }).entry.event === 'budget_refused')).toBe(true);
  });

  it('CLI Exit Codes over the bus: runledger agent --agent runs the session in decision (0), a session failure is 1, an unreachable stack 3, an unknown agent 4', async () => {
    // The CLI connects as the `caller` identity of the permissions table, with its own inbox prefix.
    const caller = stack.cliEnv('caller');
    const run = async (args: string[]) => {
      if (args.includes(stack.url)) args = [...args, '--creds', caller.NATS_CREDS!, '--inbox-prefix', caller.NATS_INBOX_PREFIX!];
      const out: string[] = [];
      const err: string[] = [];
      const code = await agentCli(args, { cwd: process.cwd(), env: {}, stdout: (t) => void out.push(t), stderr: (t) => void err.push(t) });
      return { code, out: out.join(''), err: err.join('') };
    };
    const ok = await run(['--server', stack.url, '--agent', 'researcher', '--prompt', 'What is NATS? (cli)', '--request-id', 'cli-1']);
    expect(ok).toMatchObject({ code: 0, out: 'report: DEFINITION OF NATS\n' });
    const failed = await run(['--server', stack.url, '--agent', 'spender', '--prompt', 'What is NATS? (cli budget)']);
    expect(failed.code).toBe(1);
    expect(failed.err).toContain('SESSION.QUOTA');
    const unknown = await run(['--server', stack.url, '--agent', 'nobody', '--prompt', 'hi']);
    expect(unknown.code).toBe(4);
    expect(unknown.err).toContain('REQUEST.INVALID');
    const unreachable = await run(['--server', 'nats://127.0.0.1:1', '--agent', 'researcher', '--prompt', 'hi']);
    expect(unreachable.code).toBe(3);
    // Probe finding: sessions are started by callers; the operator is refused (3) with a hint naming the caller's
    // credentials, and a credentials file that does not exist is an invalid argument (4), said before connecting.
    const operator = stack.cliEnv('operator');
    const refusals: string[] = [];
    const asOperator = await agentCli(['--server', stack.url, '--creds', operator.NATS_CREDS!, '--inbox-prefix', operator.NATS_INBOX_PREFIX!, '--agent', 'researcher', '--prompt', 'hi'], { cwd: process.cwd(), env: {}, stdout: () => undefined, stderr: (t) => void refusals.push(t) });
    expect(asOperator).toBe(3);
    // The operator's own door (rl.caller.operator.…) is no door: only callers may publish there.
    expect(refusals.join('')).toMatch(/refused: .*rl\.caller\.operator\.sessions\.start.*--creds with the caller's credentials \(\.data\/credentials\/caller\.nk/);
    // A caller's sessions start on its own door, named after its inbox prefix: without one that names it, nothing is sent.
    const unnamed: string[] = [];
    const asNobody = await agentCli(['--server', stack.url, '--creds', caller.NATS_CREDS!, '--inbox-prefix', '_INBOX', '--agent', 'researcher', '--prompt', 'hi'], { cwd: process.cwd(), env: {}, stdout: () => undefined, stderr: (t) => void unnamed.push(t) });
    expect({ code: asNobody, err: unnamed.join('') }).toEqual({ code: 4, err: expect.stringContaining('cannot tell which caller identity this is') });
    const missing = await run(['--server', 'nats://127.0.0.1:1', '--creds', '/nonexistent.nk', '--agent', 'researcher', '--prompt', 'hi']);
    expect(missing).toMatchObject({ code: 4, err: 'runledger agent: credentials file /nonexistent.nk not found\n' });
  });
});
