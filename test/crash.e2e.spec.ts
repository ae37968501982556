import { checkAuditCoverage, CoverageEvent } from '@runledger/governance';
import { RecordedEvent, foldEvents, StoredEvent } from '@runledger/event-log';
import { evolveRun, initialRunState } from '@runledger/runs';
import { deterministicUuid } from '@runledger/kernel';
import { childRunId } from '@runledger/runs';
import { startOpenAiStub, waitUntil, type ChatRequestBody, type OpenAiStub } from '@runledger/testing';
import type { SessionReply } from '@runledger/contracts';
import { TestStack } from './support/stack';
import { startHttpMcpServer } from './support/mcp/http-server';
import { SESSION_START, sessionFixtures } from './support/sessions';

jest.setTimeout(300_000);

const REQUESTS = 24;

const promptOf = (body: ChatRequestBody) => String(body.messages.find((m) => m.role === 'user')?.content ?? '');

describe('Crash safety: SIGKILL a service in the middle of a stream of agent requests', () => {
  let stack: TestStack;
  // An agent session's model (a local OpenAI-compatible server) and its HTTP MCP server, which count every request.
  let stub: OpenAiStub;
  let web: Awaited<ReturnType<typeof startHttpMcpServer>>;
  beforeAll(async () => {
    stub = await startOpenAiStub((body) => {
      const tool = body.messages.find((m) => m.role === 'tool');
      // A planner delegates its prompt's task to the crasher (a sub-agent: a child run), then reports what it answered.
      const plan = /^plan: (.*)$/.exec(promptOf(body));
      if (plan) {
        if (!tool) return { tool_calls: [{ name: 'agent__crasher', arguments: JSON.stringify({ task: plan[1] }) }] };
        return { tool_calls: [{ name: 'agent__final_report', arguments: JSON.stringify({ format: 'markdown', report_content: `delegated: ${String(tool.content)}` }) }] };
      }
      if (!tool) return { tool_calls: [{ name: 'web__slow', arguments: JSON.stringify({ key: promptOf(body) }) }] };
      return { tool_calls: [{ name: 'agent__final_report', arguments: JSON.stringify({ format: 'markdown', report_content: `got ${String(tool.content)}` }) }] };
    });
    web = await startHttpMcpServer();
    const profile = { id: 'crasher', version: '1', role: 'SESSION_AGENT', lane: 'TOOL_SESSION_TEST', targets: ['stub/stub-model'], tools: ['web__slow'], session: { toolTransport: 'native', maxTurns: 3 } };
    const planner = { id: 'crash-planner', version: '1', role: 'SESSION_AGENT', targets: ['stub/stub-model'], subAgents: ['crasher'], session: { toolTransport: 'native', maxTurns: 3 } };
    const sessions = await sessionFixtures({ stubBaseUrl: stub.baseURL, httpMcpUrl: web.url, profiles: [profile, planner], laneTools: ['web__slow'] });
    // A short ack wait so redelivery after the crash happens within the test.
    stack = await TestStack.start({
      services: ['intent-classification', 'db-write', 'tool-gateway', 'audit-ledger', 'decision'],
      // A tool timeout longer than a restart: a tool waiting on a restarting db-write rides it out.
      env: { ...sessions.env, RL_INBOX_ACK_WAIT_MS: '2000', REPLY_TIMEOUT_MS: '8000', TOOL_TIMEOUT_MS: '15000' },
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await web?.stop();
    await stub?.stop();
  });

  /** A caller that retries with the same request_id until it gets an answer: idempotent by contract. */
  async function send(tag: string, i: number, retried: { n: number }): Promise<{ run_id: string; response_text: string }> {
    const body = { user_id: `${tag}-user-${i}`, conversation_id: deterministicUuid(tag, 'conv', i), request_id: `${tag}-req-${i}`, message: `add task ${tag} item ${i}` };
    let last: unknown;
    for (let attempt = 1; attempt <= 40; attempt++) {
      try {
        const r = await stack.request<{ run_id: string; response_text: string }>('agents.task-assistant.process', body, 10_000);
        last = r;
        if (r.ok && !/taking longer/.test(r.body.response_text ?? '')) {
          if (attempt > 1) retried.n++;
          return r.body;
        }
      } catch (err) {
        // no responders while the service is down, or a reply lost in the crash: ask again
        last = (err as Error).message;
      }
      await new Promise((res) => setTimeout(res, 300));
    }
    throw new Error(`request ${tag}/${i} never completed; last answer: ${JSON.stringify(last)}`);
  }

  it.each(['decision', 'tool-gateway', 'db-write'])('SIGKILL %s: every run reaches a terminal state, no acknowledged event is lost, no side effect runs twice', async (victim) => {
    const tag = `crash-${victim}`;
    const retried = { n: 0 };
    const results: Array<Promise<{ run_id: string; response_text: string }>> = [];
    let restart: Promise<void> = Promise.resolve();
    let completed = 0;
    let inFlightAtKill = 0;
    for (let i = 0; i < REQUESTS; i++) {
      results.push(send(tag, i, retried).then((r) => (completed++, r)));
      // Kill mid-stream and keep sending while the victim restarts: work is in flight on both sides of the crash.
      if (i === 6) {
        inFlightAtKill = results.length - completed;
        restart = stack.kill(victim, 'SIGKILL').then(() => stack.startService(victim));
      }
      await new Promise((r) => setTimeout(r, 40));
    }
    await restart;
    const replies = await Promise.all(results);
    // The crash hit work in flight: requests were outstanding when the process died.
    expect(inFlightAtKill).toBeGreaterThan(0);
    // Every caller got the decision carried out, for its own item.
    replies.forEach((r, i) => expect(r.response_text).toBe(`I've added '${tag} item ${i}' to your tasks.`));

    // This scenario's runs: the agent runs it answered, and every run whose root is one of them.
    const roots = new Set(replies.map((r) => r.run_id));
    const { state: all } = await stack.log.replay<StoredEvent[]>((acc, e) => (acc.push(e), acc), [], { filter: 'rl.log.run.>' });
    const byRun = new Map<string, StoredEvent[]>();
    for (const e of all) byRun.set(e.metadata.stream_id, [...(byRun.get(e.metadata.stream_id) ?? []), e]);
    const mine = [...byRun.entries()].filter(([, ev]) => roots.has((ev[0].data as { root_run_id: string }).root_run_id));
    // Every run (agent, tool_gateway, db_write) is terminal and followed the lifecycle without anomalies.
    for (const [runId, events] of mine) {
      const s = foldEvents(evolveRun, initialRunState(), events as unknown as RecordedEvent[]);
      expect({ runId, status: s.status, anomalies: s.anomalies }).toEqual({ runId, status: 'completed', anomalies: [] });
    }
    // Exactly one agent run per request, one tool call per run, one write per tool call: no effect twice.
    const ofKind = (k: string) => mine.filter(([, ev]) => (ev[0].data as { run_kind: string }).run_kind === k);
    expect(roots.size).toBe(REQUESTS);
    expect([ofKind('agent').length, ofKind('tool_gateway').length, ofKind('db_write').length]).toEqual([REQUESTS, REQUESTS, REQUESTS]);
    // Issue 21: each decision is stored once, in DecisionRecorded; RunCompleted holds no copy.
    for (const [, ev] of ofKind('agent')) expect(ev.find((e) => e.type === 'RunCompleted')!.data).not.toHaveProperty('result');
    const events = mine.flatMap(([, ev]) => ev);
    expect(events.filter((e) => e.type === 'ToolCallAudited')).toHaveLength(REQUESTS);
    expect(events.filter((e) => e.type === 'DbWriteAudited')).toHaveLength(REQUESTS);
    // The stored data agrees: each user has exactly one task.
    for (const i of [0, 8, 9, REQUESTS - 1]) {
      const list = await stack.request<{ response_text: string }>('agents.task-assistant.process', { user_id: `${tag}-user-${i}`, conversation_id: deterministicUuid(tag, 'list', i), message: 'show tasks' });
      expect(list.body.response_text).toBe(`Here are your tasks:\n1. ${tag} item ${i}`);
    }
    // Audit coverage holds for every run of the scenario, and the whole audit chain verifies (each event once).
    const coverage = checkAuditCoverage(events.map((e) => ({ run_id: e.metadata.stream_id, type: e.type, data: e.data }) as CoverageEvent));
    expect(coverage.violations).toEqual([]);
    const chained = all.filter((e) => ['RunCreated', 'AuthzDecided', 'RunCompleted', 'ToolCallAudited', 'DbWriteAudited', 'DecisionRecorded'].includes(e.type)).length;
    const verified = await stack.waitFor(async () => {
      const v = await stack.request<{ ok: boolean; length: number }>('rl.audit.verify', {});
      return v.body.length >= chained ? v.body : undefined;
    }, 30_000);
    expect(verified).toMatchObject({ ok: true });
  });

  it('Issue 21 session crash: SIGKILL decision while an agent session\'s tool call is executing; after restart the session finishes, the tool ran once at its MCP server and no completed model request was sent again', async () => {
    const prompt = 'crash-session-1';
    const held = web.hold(prompt);
    // This caller's reply dies with the process; the session is carried on from decision's inbox after the restart.
    const first = stack.request<SessionReply>(SESSION_START, { agent: 'crasher', prompt, request_id: prompt }, 5_000).catch((e: Error) => e);
    await held.reached;
    // Mid-step: the first model answer and the tool call's request are on the run; the tool runs at the MCP server.
    await stack.kill('decision', 'SIGKILL');
    held.release();
    await stack.startService('decision');

    const reply = await waitUntil(async () => {
      const r = await stack.request<SessionReply>(SESSION_START, { agent: 'crasher', prompt, request_id: prompt }, 30_000).catch(() => undefined);
      return r?.body.status === 'completed' ? r.body : undefined;
    }, { timeoutMs: 120_000, intervalMs: 500 });
    expect(reply.result).toMatchObject({ success: true, finalReport: { content: `got slow ${prompt}` } });
    // No effect repeated: the tool ran once at the MCP server; each model request (before and after the tool) once.
    expect(web.executions.filter((e) => e.tool === 'slow' && (e.args as { key: string }).key === prompt)).toHaveLength(1);
    const requests = stub.requests.filter((r) => promptOf(r.body) === prompt);
    expect([0, 1].map((k) => requests.filter((r) => r.body.messages.filter((m) => m.role === 'tool').length === k).length)).toEqual([1, 1]);
    // The session's run: one journal, each attempt a step and the call recorded once, folded without anomalies.
    const events = await stack.runEvents(reply.run_id);
    expect(events.filter((e) => e.type === 'StepCompleted').map((e) => (e.data as { step_id: string }).step_id)).toEqual(['llm-1', 'llm-2']);
    expect(events.filter((e) => e.type === 'ToolCallRecorded').map((e) => e.data)).toEqual([expect.objectContaining({ call_id: 'tool-1', status: 'ok' })]);
    expect(foldEvents(evolveRun, initialRunState(), events as unknown as RecordedEvent[])).toMatchObject({ status: 'completed', anomalies: [] });
    const child = (await stack.runEvents(childRunId('tool_gateway', reply.run_id, 'tool-1'))).map((e) => e.type);
    expect(child.filter((t) => t === 'EffectClaimed')).toHaveLength(1);
    expect(child.filter((t) => t === 'ToolCallAudited')).toHaveLength(1);
    expect(await first).toBeInstanceOf(Error);
  });

  it('Issue 21 sub-agent child run crash: SIGKILL decision while a session\'s sub-agent (a child run) has its tool call executing; after restart parent and child finish, the child was started once and its tool ran once at the MCP server', async () => {
    const task = 'crash-sub-1';
    const held = web.hold(task);
    const asked = { agent: 'crash-planner', prompt: `plan: ${task}`, request_id: `plan-${task}` };
    const first = stack.request<SessionReply>(SESSION_START, asked, 5_000).catch((e: Error) => e);
    await held.reached;
    await stack.kill('decision', 'SIGKILL');
    held.release();
    await stack.startService('decision');

    const reply = await waitUntil(async () => {
      const r = await stack.request<SessionReply>(SESSION_START, asked, 30_000).catch(() => undefined);
      return r?.body.status === 'completed' ? r.body : undefined;
    }, { timeoutMs: 120_000, intervalMs: 500 });
    expect(reply.result).toMatchObject({ success: true, finalReport: { content: `delegated: got slow ${task}` } });
    // No effect repeated: one child run started (recorded once on the parent), its tool ran once at the MCP server, and
    // each model request of the child (before and after its tool) was sent once.
    const started = (await stack.runEvents(reply.run_id)).filter((e) => e.type === 'ChildRunStarted').map((e) => (e.data as { child_run_id: string }).child_run_id);
    expect(started).toHaveLength(1);
    expect(web.executions.filter((e) => e.tool === 'slow' && (e.args as { key: string }).key === task)).toHaveLength(1);
    for (const prompt of [task, asked.prompt]) {
      const requests = stub.requests.filter((r) => promptOf(r.body) === prompt);
      expect([0, 1].map((k) => requests.filter((r) => r.body.messages.filter((m) => m.role === 'tool').length === k).length)).toEqual([1, 1]);
    }
    for (const runId of [reply.run_id, started[0]!]) {
      const events = await stack.runEvents(runId);
      expect(foldEvents(evolveRun, initialRunState(), events as unknown as RecordedEvent[])).toMatchObject({ status: 'completed', anomalies: [] });
    }
    expect(await first).toBeInstanceOf(Error);
  });
});
