import { randomUUID } from 'node:crypto';
import type { SessionReply } from '@runledger/contracts';
import { startOpenAiStub, type OpenAiStub } from '@runledger/testing';
import { call, campaignEvents, ofType } from './support/campaigns';
import { startHttpMcpServer } from './support/mcp/http-server';
import { SESSION_GET, sessionFixtures } from './support/sessions';
import { TestStack } from './support/stack';

jest.setTimeout(240_000);

const PROPOSER = {
  id: 'campaign-proposer', version: '1', role: 'SESSION_AGENT', lane: 'TOOL_SESSION_TEST', targets: ['stub/stub-model'], tools: [],
  session: { toolTransport: 'native', maxTurns: 3, maxRetries: 1, systemPrompt: 'You propose one contract-003 action as JSON.' },
};
const PROPOSAL = { action_type: 'create_task', task: { description: 'Visit the profile of the best lead' }, justification: 'Start with research' };

describe('Issue 8 + issue 7: a campaign whose proposals come from LLM agent sessions (sessions started in process)', () => {
  let stack: TestStack;
  let stub: OpenAiStub;
  let web: Awaited<ReturnType<typeof startHttpMcpServer>>;

  beforeAll(async () => {
    stub = await startOpenAiStub(() => ({ tool_calls: [{ name: 'agent__final_report', arguments: JSON.stringify({ format: 'text', report_content: JSON.stringify(PROPOSAL) }) }] }));
    web = await startHttpMcpServer();
    const fixtures = await sessionFixtures({ stubBaseUrl: stub.baseURL, httpMcpUrl: web.url, profiles: [PROPOSER], laneTools: ['web__lookup'] });
    stack = await TestStack.start({ services: ['decision', 'tool-gateway', 'db-write'], env: fixtures.env });
  });
  afterAll(async () => {
    await stack?.stop();
    await web?.stop();
    await stub?.stop();
  });

  it('Issue 8 session agent: each proposal is one recorded session run; its final report is validated and executed like any proposal', async () => {
    const campaign_id = randomUUID();
    await call(stack, 'create', { campaign_id, name: 'Session campaign', agent: { kind: 'session', agent: 'campaign-proposer' } });
    await call(stack, 'start', { campaign_id });
    const reply = await call(stack, 'cycle', { campaign_id }, 180_000);
    expect(reply.ran![0]).toMatchObject({ outcome: 'executed', action_type: 'create_task' });
    expect(reply.tasks.map((t) => t.description)).toEqual([PROPOSAL.task.description]);

    const recorded = ofType<{ verdict: string; agent: { kind: string; run_id: string; status: string } }>(await campaignEvents(stack, campaign_id), 'ProposalRecorded')[0]!;
    expect(recorded).toMatchObject({ verdict: 'valid', agent: { kind: 'session', status: 'completed' } });
    // The session is a governed run of its own, with every model call on the log; its prompt was the snapshot.
    // A session decision started for itself is no caller's (issue 26: sessions.get answers RUN.NOT_FOUND); the log shows it.
    const asCaller = await stack.request<SessionReply>(SESSION_GET, { run_id: recorded.agent.run_id });
    expect(asCaller.body).toMatchObject({ code: 'RUN.NOT_FOUND' });
    const events = await stack.runEvents(recorded.agent.run_id);
    const created = events.find((e) => e.type === 'RunCreated')?.data as { requested_by?: string; parameters: unknown };
    expect(created).toMatchObject({ parameters: { session: { agent: 'campaign-proposer' } } });
    expect(created.requested_by).toBeUndefined();
    const types = events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['RunCreated', 'StepCompleted', 'SessionAccounted', 'RunCompleted']));
    expect(String(stub.requests[0]!.body.messages.find((m) => m.role === 'user')?.content)).toContain('State snapshot');
  });
});
