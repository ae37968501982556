import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import type { DbResult, GovernanceScope } from '@runledger/contracts';
import type { WireError } from '@runledger/kernel';
import { decodeReply, encodeJson } from '@runledger/messaging';
import { childRunId } from '@runledger/runs';
import { policyVersionsIn, recordedCaller, SHIPPED_POLICY_DIR } from './support/governed-runs';
import { TestStack } from './support/stack';

jest.setTimeout(180_000);

/**
 * Probe finding: a write db-write refused for its own input (a document id the store cannot keep) reached the calling
 * run as INTERNAL, retryable, so the run retried what can never succeed. The request is refused at the door as
 * REQUEST.INVALID, not retryable, naming the field (the store's own rule), and nothing is recorded or stored.
 */
describe('Bad input gets a specific error code: rl.db.write and rl.db.read refuse what the document store would refuse', () => {
  let stack: TestStack;
  let decision: NatsConnection;
  const versions = policyVersionsIn(SHIPPED_POLICY_DIR);

  beforeAll(async () => {
    stack = await TestStack.shared();
    decision = await stack.connectAs('decision');
  });
  afterAll(async () => {
    await decision?.close();
    await stack?.stop();
  });

  /** A request as decision sends it (its identity), answered as decision reads it. */
  const ask = async (subject: string, body: unknown): Promise<{ ok: boolean; body: DbResult | WireError }> => {
    const msg = await decision.request(subject, encodeJson(body), { timeout: 20_000 });
    const reply = decodeReply(msg.data, msg.headers);
    return reply.ok ? { ok: true, body: reply.body as DbResult } : { ok: false, body: reply.error as WireError };
  };
  const interview = (caseId: string) => recordedCaller(stack, 'INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseId, versions);

  it.each([
    ['a control character', 'doc\u0001id', 'document_id must not hold control characters'],
    ['more than 512 bytes as UTF-8', '€'.repeat(171), 'document_id must be at most 512 bytes as UTF-8 (it is 513)'],
  ])('a write whose document id has %s is REQUEST.INVALID, not retryable, naming document_id; a retry answers the same, and nothing is recorded or stored', async (_what, document_id, words) => {
    const caseId = `case-${randomUUID().slice(0, 8)}`;
    const governance: GovernanceScope = await interview(caseId);
    const write = { write_id: `w-${randomUUID()}`, collection: 'transcripts', operation: 'append', document_id, document: { case_id: caseId, text: 'notes' }, governance };
    const first = await ask('rl.db.write', write);
    expect(first).toEqual({ ok: false, body: { code: 'REQUEST.INVALID', message: 'The request is not valid.', retryable: false, details: [words] } });
    expect(await ask('rl.db.write', write)).toEqual(first);
    expect(await stack.runEvents(childRunId('db_write', governance.parent_run_id, write.write_id))).toEqual([]);
    // The same write with a storable id is stored, and is all the case holds.
    const storable = `doc-${randomUUID()}`;
    expect(await ask('rl.db.write', { ...write, write_id: `w-${randomUUID()}`, document_id: storable })).toMatchObject({ ok: true, body: { status: 'ok' } });
    expect((await stack.documents().collection('transcripts').find({ case_id: caseId })).map((d) => d.id)).toEqual([storable]);
  });

  it('a read by a document id the store would refuse is REQUEST.INVALID naming document_id; a filter field name it cannot query is REQUEST.INVALID, never INTERNAL', async () => {
    const governance = await recordedCaller(stack, 'TASK_ASSISTANT', 'TASKS', undefined, versions, undefined, 'u-input');
    const tasks = (over: Record<string, unknown>) => ask('rl.db.read', { collection: 'tasks', governance, ...over });
    expect(await tasks({ document_id: 'task\nid' })).toEqual({ ok: false, body: { code: 'REQUEST.INVALID', message: 'The request is not valid.', retryable: false, details: ['document_id must not hold control characters'] } });
    for (const field of ['a.b', '$where']) {
      const r = await tasks({ filter: { [field]: 1 } });
      expect(r).toEqual({ ok: false, body: { code: 'REQUEST.INVALID', retryable: false, message: expect.stringContaining('invalid filter field name') } });
    }
  });
});
