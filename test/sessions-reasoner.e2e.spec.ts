import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startOpenAiStub, type ChatRequestBody, type OpenAiStub } from '@runledger/testing';
import type { SessionReply } from '@runledger/contracts';
import { runSubject } from '@runledger/runs';
import { dataKeyName } from '@runledger/messaging';
import { TestStack } from './support/stack';
import { childrenOf, policyVersionsIn, putArtifact, runTree, SHIPPED_POLICY_DIR, startRun, uploader } from './support/governed-runs';
import { SESSION_GET } from './support/sessions';

jest.setTimeout(300_000);

const ASSESSMENT = {
  summary: { decision: 'accept', flags: ['model-assessed'], narrative: 'Retaliation after a wage complaint.', missing_fields: [] },
  checklist: { required_fields: ['name', 'contact', 'matter_description', 'incident_date', 'opposing_party'], missing: [], complete: true },
  entities: [{ entity_type: 'person', name: 'Dana Reyes', role: 'client' }, { entity_type: 'organization', name: 'Acme Widgets Inc', role: 'opposing_party' }],
};
const form = (name: string) => ({ name, contact: { email: 'dana@example.com' }, matter_description: 'Fired after asking about overtime.', incident_date: '2026-03-02', opposing_party: 'Acme Widgets Inc' });

describe('Issue 7 governed runs can think: an LLM reasoner built on agent sessions', () => {
  let stack: TestStack;
  let stub: OpenAiStub;
  const versions = policyVersionsIn(SHIPPED_POLICY_DIR);

  beforeAll(async () => {
    // The model assesses the form; for the client "Bad Model" it answers an entity role the schema does not allow.
    stub = await startOpenAiStub((body: ChatRequestBody) => {
      const prompt = String(body.messages.find((m) => m.role === 'user')?.content ?? '');
      const answer = prompt.includes('Bad Model') ? { ...ASSESSMENT, entities: [{ entity_type: 'person', name: 'Bad Model', role: 'judge' }] } : ASSESSMENT;
      return { tool_calls: [{ name: 'agent__final_report', arguments: JSON.stringify({ format: 'json', content_json: answer }) }] };
    });
    const root = await mkdtemp(path.join(tmpdir(), 'reasoner-'));
    const dir = path.join(root, 'agents');
    await mkdir(dir);
    await writeFile(path.join(dir, 'intake-reasoner.json'), JSON.stringify({
      id: 'intake-reasoner', version: '1', role: 'INTAKE_AGENT', targets: ['stub/stub-model'],
      session: { toolTransport: 'native', expectedOutputFormat: 'json', maxTurns: 2, systemPrompt: 'You triage legal intake forms.' },
    }));
    await writeFile(path.join(root, 'agent-config.json'), JSON.stringify({ providers: { stub: { baseUrl: stub.baseURL, apiKey: 'sk-test' } } }));
    stack = await TestStack.start({
      services: ['db-write', 'tool-gateway', 'decision'],
      env: { AGENT_PROFILES_DIR: dir, RL_AGENT_CONFIG: path.join(root, 'agent-config.json'), RL_REASONER_PROFILES: JSON.stringify({ INTAKE_AGENT: 'intake-reasoner' }) },
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await stub?.stop();
  });

  it('INTAKE with an LLM reasoner: the assessment comes from a recorded child session of the run, and its entities are written', async () => {
    const ref = await putArtifact(stack, await uploader(stack, 'case-llm-1', versions), 'client_intake_form', form('Dana Reyes'));
    const run = await startRun(stack, { agent_name: 'INTAKE_AGENT', case_id: 'case-llm-1', input_artifacts: [ref], parameters: {} });
    expect(run).toMatchObject({ outcome: 'success' });
    const tree = await runTree(stack, run.run_id);
    const own = tree.find((r) => r.run_id === run.run_id)!;
    expect(own.events.at(-1)!.data).toMatchObject({ result: { decision: 'accept', flags: ['model-assessed'] } });
    const sessions = childrenOf(tree, run.run_id, 'agent');
    expect(sessions).toHaveLength(1);
    const session = await stack.request<SessionReply>(SESSION_GET, { run_id: sessions[0]!.run_id });
    expect(session.body).toMatchObject({ status: 'completed', agent: 'intake-reasoner', usage: { llmRequests: 1 } });
    expect(sessions[0]!.types).toEqual(expect.arrayContaining(['StepCompleted', 'SessionAccounted']));
    expect(childrenOf(tree, run.run_id, 'db_write')).toHaveLength(2);
    // Issue 9 erasure (review 1): the session carries the run's case, so the case key seals the form it was sent.
    const stored = await stack.storedLog.read({ kind: 'run', id: sessions[0]!.run_id, subject: runSubject('decision', sessions[0]!.run_id) });
    expect(stored.map((e) => e.metadata.case_id)).toEqual(stored.map(() => 'case-llm-1'));
    expect((stored[0]!.data as { parameters: { prompt: unknown } }).parameters.prompt).toMatchObject({ sealed: 'aes-256-gcm/v1', owner: dataKeyName({ kind: 'case', id: 'case-llm-1' }) });
    for (const text of ['dana@example.com', 'Dana Reyes', 'overtime']) expect(JSON.stringify(stored)).not.toContain(text);
  });

  it('Model output is validated before any write: an answer outside the schema fails the run with REASONER.INVALID_OUTPUT and nothing is written', async () => {
    const ref = await putArtifact(stack, await uploader(stack, 'case-llm-2', versions), 'client_intake_form', form('Bad Model'));
    const run = await startRun(stack, { agent_name: 'INTAKE_AGENT', case_id: 'case-llm-2', input_artifacts: [ref], parameters: {} });
    expect(run).toMatchObject({ outcome: 'failure', error: { error_code: 'REASONER.INVALID_OUTPUT' } });
    const tree = await runTree(stack, run.run_id);
    expect(childrenOf(tree, run.run_id, 'db_write')).toHaveLength(0);
  });
});
