/**
 * Issue 11 contracts complete: every subject used on the wire during a realistic workload (captured by a
 * wildcard subscription of the harness's admin identity, which sees every core-NATS message, JetStream appends
 * included) must be a channel of proto-contracts/asyncapi.yaml. NATS's own subjects ($JS, $KV, $O, $SYS) and
 * reply inboxes are the server's protocol, not ours.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { runCli } from './support/cli';
import { policyVersionsIn, SHIPPED_POLICY_DIR, START, uploadCase } from './support/governed-runs';
import { TestStack } from './support/stack';
import { Conversation } from './support/task-assistant';

jest.setTimeout(300_000);

const PROTOCOL = /^(\$JS|\$KV|\$O|\$SYS|_INBOX)/;

function channelPatterns(): RegExp[] {
  const doc = parse(readFileSync(join(__dirname, '..', 'proto-contracts', 'asyncapi.yaml'), 'utf8')) as { channels: Record<string, { address: string }> };
  return Object.values(doc.channels).map((c) => new RegExp(`^${c.address.split('.').map((t) => (/^\{\w+\}$/.test(t) ? '[^.]+' : t.replace(/[-$]/g, '\\$&'))).join('\\.')}$`));
}

describe('Issue 11 wire capture: every subject on the wire is in asyncapi.yaml', () => {
  let stack: TestStack;
  const seen = new Set<string>();

  beforeAll(async () => {
    stack = await TestStack.shared();
    const spy = await stack.connectAs('test-admin');
    spy.subscribe('>', { callback: (_err, m) => void seen.add(m.subject) });
    await spy.flush();
    try {
      const c = new Conversation(stack);
      await c.add('buy milk');
      await c.say('show my tasks');
      await c.say('delete buy milk');
      await c.say('yes');
      const caseId = `case-${randomUUID().slice(0, 8)}`;
      const inputs = await uploadCase(stack, caseId, policyVersionsIn(SHIPPED_POLICY_DIR));
      await stack.request(START, { agent_name: 'INTAKE_AGENT', case_id: caseId, input_artifacts: [inputs.form], parameters: {} }, 90_000);
      const env = stack.cliEnv('operator');
      await runCli(stack.url, ['runs', 'list'], env);
      await runCli(stack.url, ['deadletters', 'list'], env);
      await runCli(stack.url, ['audit', 'verify'], env);
      await stack.request('rl.audit.coverage', {});
      for (const svc of ['decision', 'audit-ledger']) await stack.request(`rl.health.${svc}`, {});
      await spy.flush();
    } finally {
      await spy.drain();
    }
  });
  afterAll(async () => stack?.stop());

  it('Issue 11 wire capture: no subject used on the wire is missing from asyncapi.yaml', () => {
    const patterns = channelPatterns();
    const ours = [...seen].filter((s) => !PROTOCOL.test(s));
    expect(ours.length).toBeGreaterThan(10);
    expect(ours.filter((s) => !patterns.some((p) => p.test(s))).sort()).toEqual([]);
    // The capture saw the operator subjects and the log, not only the front door.
    for (const s of ['rl.runs.list', 'rl.deadletters.list', 'rl.audit.verify', 'rl.audit.coverage', START]) expect(ours).toContain(s);
    expect(ours.some((s) => s.startsWith('rl.log.run.'))).toBe(true);
  });
});
