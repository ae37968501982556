import { ERROR_CODES } from '@runledger/kernel';
import { TestStack } from './support/stack';
import { START } from './support/governed-runs';

jest.setTimeout(120_000);

/** Every request/reply subject other services can reach (the task assistant answers with templates instead). */
const SUBJECTS = [
  'rl.runs.get', 'rl.intent.classify', 'rl.tool.invoke', 'rl.db.write', 'rl.db.read',
  'rl.artifacts.put', 'rl.artifacts.get', 'rl.promotion.promote', 'rl.export.bundle', 'rl.audit.query',
];

const BAD_INPUTS: Array<[string, Uint8Array]> = [
  ['malformed JSON', Buffer.from('{"oops": ')],
  ['a JSON array', Buffer.from('[1,2,3]')],
  ['a JSON string', Buffer.from('"hello"')],
  ['an empty object', Buffer.from('{}')],
  ['wrong types and an unknown field', Buffer.from(JSON.stringify({ run_id: 42, governance: 'x', collection: ['a'], $where: 'sleep(1000)', __proto__: { admin: true } }))],
  ['hostile strings', Buffer.from(JSON.stringify({ run_id: "'; DROP TABLE runs; --", conversation_id: '../../etc/passwd', call_id: '${process.env.SECRET}', tool_name: '<script>', message: 'x'.repeat(20_000) }))],
];

/** What must never reach a caller. */
const INTERNALS = /\bat \S+ \(|\.ts:\d+|node_modules|Error:|ECONNREFUSED|nats:\/\/|mongodb:\/\/|SELECT |stack|TypeError|Cannot read|undefined is not/;

describe('Bad input at every boundary: a clear, specific error, never internals', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await TestStack.shared();
  });
  afterAll(async () => stack?.stop());

  it.each(SUBJECTS)('%s answers every malformed request with a stable error code and no internals', async (subject) => {
    for (const [what, bytes] of BAD_INPUTS) {
      const r = await stack.request<{ code: string; message: string; retryable: boolean; details?: string[] }>(subject, null, 10_000, bytes);
      const text = JSON.stringify(r.body);
      expect({ what, ok: r.ok }).toEqual({ what, ok: false });
      expect({ what, known: r.body.code in ERROR_CODES }).toEqual({ what, known: true });
      expect({ what, code: r.body.code }).not.toEqual({ what, code: 'INTERNAL' });
      expect({ what, leaks: INTERNALS.test(text) ? text : null }).toEqual({ what, leaks: null });
    }
  });

  it('A caller\'s runs.start answers every malformed request with the §2.2 response: outcome failure, INVALID_INPUT, no internals', async () => {
    for (const [what, bytes] of BAD_INPUTS) {
      const r = await stack.request<{ outcome: string; run_id: string; error: { error_code: string; message: string; retryable: boolean } }>(START, null, 10_000, bytes);
      const text = JSON.stringify(r.body);
      expect({ what, ok: r.ok, outcome: r.body.outcome, code: r.body.error?.error_code, retryable: r.body.error?.retryable }).toEqual({ what, ok: true, outcome: 'failure', code: 'INVALID_INPUT', retryable: false });
      expect({ what, leaks: INTERNALS.test(text) ? text : null }).toEqual({ what, leaks: null });
    }
  });

  it('the services are still healthy after all of it', async () => {
    for (const service of ['decision', 'tool-gateway', 'db-write', 'promotion', 'export', 'audit-ledger', 'intent-classification']) {
      expect((await stack.request<{ status: string }>(`rl.health.${service}`, {})).body.status).toBe('ok');
    }
  });
});
