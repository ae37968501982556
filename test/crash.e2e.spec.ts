import { checkAuditCoverage, CoverageEvent } from '@runledger/governance';
import { RecordedEvent, foldEvents } from '@runledger/event-log';
import { evolveRun, initialRunState } from '@runledger/runs';
import { deterministicUuid } from '@runledger/kernel';
import { TestStack } from './support/stack';

jest.setTimeout(180_000);

const REQUESTS = 30;
let retried = 0;

describe('Crash safety: SIGKILL a service in the middle of a stream of agent requests', () => {
  let stack: TestStack;
  beforeAll(async () => {
    // A short ack wait so redelivery after the crash happens within the test.
    stack = await TestStack.start({ env: { RL_INBOX_ACK_WAIT_MS: '2000', REPLY_TIMEOUT_MS: '8000' } });
  });
  afterAll(async () => stack?.stop());

  /** A caller that retries with the same request_id until it gets an answer: idempotent by contract. */
  async function send(i: number): Promise<{ run_id: string; response_text: string }> {
    const body = { user_id: `crash-user-${i}`, conversation_id: deterministicUuid('crash-conv', i), request_id: `req-${i}`, message: `add task crash item ${i}` };
    for (let attempt = 1; attempt <= 30; attempt++) {
      try {
        const r = await stack.request<{ run_id: string; response_text: string }>('agents.task-assistant.process', body, 10_000);
        if (r.ok && !/taking longer/.test(r.body.response_text ?? '')) {
          if (attempt > 1) retried++;
          return r.body;
        }
      } catch {
        // no responders while the service is down, or a reply lost in the crash: ask again
      }
      await new Promise((res) => setTimeout(res, 300));
    }
    throw new Error(`request ${i} never completed`);
  }

  it('Every run reaches a terminal state, no acknowledged event is lost, no side effect runs twice', async () => {
    const results: Array<Promise<{ run_id: string; response_text: string }>> = [];
    for (let i = 0; i < REQUESTS; i++) {
      results.push(send(i));
      if (i === 10) {
        await stack.kill('decision', 'SIGKILL');
        await new Promise((r) => setTimeout(r, 500));
        await stack.startService('decision');
      }
      await new Promise((r) => setTimeout(r, 40));
    }
    const replies = await Promise.all(results);
    // The crash hit work in flight: some callers lost their reply or found no responder and asked again.
    expect(retried).toBeGreaterThan(0);

    // Every caller got the decision carried out, for its own item.
    replies.forEach((r, i) => expect(r.response_text).toBe(`I've added 'crash item ${i}' to your tasks.`));
    const { state: all } = await stack.log.replay<RecordedEvent[]>((acc, e) => (acc.push(e as unknown as RecordedEvent), acc), [], { filter: 'rl.log.run.*' });
    const byRun = new Map<string, RecordedEvent[]>();
    for (const e of all) {
      const id = (e as unknown as { metadata: { stream_id: string } }).metadata.stream_id;
      byRun.set(id, [...(byRun.get(id) ?? []), e]);
    }
    // Every run (agent, tool_gateway, db_write) is terminal and followed the lifecycle without anomalies.
    for (const [runId, events] of byRun) {
      const s = foldEvents(evolveRun, initialRunState(), events);
      expect({ runId, status: s.status, anomalies: s.anomalies }).toEqual({ runId, status: 'completed', anomalies: [] });
    }
    // Exactly one agent run per request, one tool call per run, one write per tool call: no effect twice.
    const kinds = (k: string) => [...byRun.values()].filter((ev) => (ev[0].data as { run_kind: string }).run_kind === k);
    expect(new Set(replies.map((r) => r.run_id)).size).toBe(REQUESTS);
    expect(kinds('agent')).toHaveLength(REQUESTS);
    expect(kinds('tool_gateway')).toHaveLength(REQUESTS);
    expect(kinds('db_write')).toHaveLength(REQUESTS);
    expect(all.filter((e) => e.type === 'ToolCallAudited')).toHaveLength(REQUESTS);
    expect(all.filter((e) => e.type === 'DbWriteAudited')).toHaveLength(REQUESTS);
    // The stored data agrees: each user has exactly one task.
    for (const i of [0, 10, 11, REQUESTS - 1]) {
      const list = await stack.request<{ response_text: string }>('agents.task-assistant.process', { user_id: `crash-user-${i}`, conversation_id: deterministicUuid('crash-list', i), message: 'show tasks' });
      expect(list.body.response_text).toBe(`Here are your tasks:\n1. crash item ${i}`);
    }
    // Audit coverage holds for every run, and the audit chain has each event once and verifies.
    const coverage = checkAuditCoverage(all.map((e) => ({ run_id: (e as unknown as { metadata: { stream_id: string } }).metadata.stream_id, type: e.type, data: e.data }) as CoverageEvent));
    expect(coverage.violations).toEqual([]);
    const chained = all.filter((e) => ['RunCreated', 'AuthzDecided', 'RunCompleted', 'ToolCallAudited', 'DbWriteAudited', 'DecisionRecorded'].includes(e.type)).length;
    const verified = await stack.waitFor(async () => {
      const v = await stack.request<{ ok: boolean; length: number }>('rl.audit.verify', {});
      return v.body.length >= chained ? v.body : undefined;
    }, 20_000);
    // verifyChain also refuses a repeated event id, so "each event once" is part of ok.
    expect(verified).toMatchObject({ ok: true });
  });
});
