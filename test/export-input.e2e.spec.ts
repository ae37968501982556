import { randomUUID } from 'node:crypto';
import { TEST_ADMIN } from '@runledger/testing';
import { ingestAs, startRun } from './support/governed-runs';
import { TestStack } from './support/stack';

jest.setTimeout(180_000);

/**
 * Probe finding (helper-87 M1): an export_request naming something that is no artifact id ("../../x") failed the
 * EXPORT_AGENT run INTERNAL, retryable ("The agent failed unexpectedly.", a stack trace in decision's log): the export
 * service's REQUEST.INVALID crossed the step as an unknown error. It is the request's problem: INVALID_INPUT, said.
 */
describe('Bad input gets a specific error code: an export_request naming what is no artifact id', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await TestStack.shared();
  });
  afterAll(async () => stack?.stop());

  it.each([['a path', '../../x'], ['a number', 5], ['an empty id', '']])('§2.2 EXPORT_AGENT whose export_request names %s fails INVALID_INPUT, not retryable, naming the entry; a retry answers the same', async (_what, id) => {
    const case_id = `case-${randomUUID().slice(0, 8)}`;
    const request = await ingestAs(stack, TEST_ADMIN, { case_id, agent_name: 'EXPORT_AGENT', kind: 'export_request', content: { artifact_ids: ['art-ok', id] } });
    if (!request.ok) throw new Error(`ingest refused: ${JSON.stringify(request.error)}`);
    const start = { agent_name: 'EXPORT_AGENT', case_id, input_artifacts: [request.body], parameters: {}, run_id: randomUUID() };
    const failed = await startRun(stack, start);
    expect(failed).toMatchObject({ outcome: 'failure', error: { error_code: 'INVALID_INPUT', retryable: false, message: expect.stringContaining('artifact_ids.1 is not an artifact id') } });
    expect(await startRun(stack, start)).toMatchObject({ run_id: failed.run_id, outcome: 'failure', error: failed.error });
  });
});
