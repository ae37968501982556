/**
 * Issue 25: every operator action is checked where it is executed against the pinned operators' roles policy
 * (policy/operators.yaml) and recorded on the log with who, why and the policy version (OperatorActionDecided on
 * rl.log.operator.<identity>); bulk cancel by filter (`runs cancel --filter`) cancels each matching open run through
 * the per-run cancel, after a dry run that cancels nothing.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunsListResult } from '@runledger/contracts';
import { aggregateRef } from '@runledger/event-log';
import { decodeReply, encodeJson } from '@runledger/messaging';
import { runCli } from './support/cli';
import { seedRuns } from './support/seed-runs';
import { TestStack } from './support/stack';

jest.setTimeout(300_000);

const SHIPPED = join(__dirname, '..', 'policy', 'operators.yaml');
/** A stack whose operator identity may only look. */
const READ_ONLY = join(mkdtempSync(join(tmpdir(), 'rl-operators-')), 'operators.yaml');
writeFileSync(READ_ONLY, 'version: operators-test-read-only\nroles:\n  read-only:\n    actions: []\nidentities:\n  operator: read-only\n');

interface Decided {
  action: string;
  identity: string;
  role: string | null;
  requested_by: string;
  reason?: string;
  target: Record<string, string>;
  policy_version: string;
  granted: boolean;
  error_code?: string;
}

describe('Issue 25 operator actions: the operators\' roles policy and bulk cancel', () => {
  let stack: TestStack;
  let bulk: string[] = [];
  const cli = (...args: string[]) => runCli(stack.url, args, { ...stack.cliEnv('operator'), USER: 'ops-alice' });
  const decided = async (): Promise<Decided[]> => (await stack.log.read(aggregateRef('operator', 'operator'))).map((e) => e.data as Decided);
  const cancelRequests = async (runId: string) => (await stack.runEvents(runId)).filter((e) => e.type === 'RunCancelRequested').map((e) => e.data);

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['decision', 'audit-ledger'], env: { OPERATOR_ROLES_FILE: READ_ONLY } });
    // Five runs of one agent: three still open (no outcome), two ended.
    bulk = await seedRuns(stack, { agent: 'BULK_AGENT', count: 5, open: [0, 2, 4] });
    await stack.waitFor(async () => {
      const r = await cli('runs', 'list', '--agent', 'BULK_AGENT', '--json');
      return r.code === 0 && (JSON.parse(r.stdout) as RunsListResult).matched === 5;
    }, 60_000);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('Issue 25 roles: with a read-only role every operator action is refused OPERATOR.ACTION_NOT_GRANTED where it is executed, recorded with who, why and the policy version, and nothing happens', async () => {
    const refused = [
      await cli('runs', 'cancel', bulk[0], '--reason', 'drill'),
      await cli('runs', 'fork', bulk[1], '--from', 'interview'),
      await cli('deadletters', 'retry', 'decision-inbox:1'),
      await cli('approvals', 'answer', randomUUID(), randomUUID(), '--approve', '--approver', 'ops-alice'),
      await cli('runs', 'cancel', '--filter', '--agent', 'BULK_AGENT', '--yes'),
    ];
    for (const r of refused) expect({ code: r.code, refused: `${r.stdout}${r.stderr}`.includes('OPERATOR.ACTION_NOT_GRANTED') }).toEqual({ code: 1, refused: true });
    // Issue 25 review: a resolver sweep (rl.runs.resolve) needs `resolve` too, asked as operator.
    const operator = await stack.connectAs('operator');
    try {
      const sweep = await operator.request('rl.runs.resolve', encodeJson({ requested_by: 'ops-alice' }), { timeout: 30_000 });
      expect(decodeReply(sweep.data, sweep.headers)).toMatchObject({ ok: false, error: { code: 'OPERATOR.ACTION_NOT_GRANTED' } });
    } finally {
      await operator.close();
    }
    expect(refused[4].stdout).toContain('cancel recorded for 0 run(s)');
    expect(refused[4].stdout).toContain('3 refused');
    for (const id of bulk) expect(await cancelRequests(id)).toEqual([]);

    const log = await decided();
    expect(log.map((d) => d.action).sort()).toEqual(['approve', 'cancel', 'cancel', 'cancel', 'cancel', 'deadletter_retry', 'fork', 'resolve']);
    for (const d of log) expect(d).toMatchObject({ identity: 'operator', role: 'read-only', requested_by: 'ops-alice', policy_version: 'operators-test-read-only', granted: false, error_code: 'OPERATOR.ACTION_NOT_GRANTED' });
    expect(log.find((d) => d.action === 'cancel' && d.target.run_id === bulk[0])).toMatchObject({ reason: 'drill' });
    expect(log.find((d) => d.action === 'deadletter_retry')).toMatchObject({ target: { dead_letter_id: 'decision-inbox:1' } });
  });

  it('Issue 25 bulk cancel: runs cancel --filter counts the open runs it matches and cancels nothing; with --yes each is cancelled through the per-run cancel, with who and why, granted by the shipped policy', async () => {
    // The shipped policy (operator-admin) from now on.
    await stack.kill('decision', 'SIGTERM');
    await stack.startService('decision', { OPERATOR_ROLES_FILE: SHIPPED });
    const before = (await decided()).length;

    const dry = await cli('runs', 'cancel', '--filter', '--agent', 'BULK_AGENT');
    expect(dry).toMatchObject({ code: 0, stderr: '' });
    expect(dry.stdout).toContain('5 run(s) match agent_name=BULK_AGENT; 3 of them have no outcome yet and would be cancelled');
    expect(dry.stdout).toContain('Nothing was cancelled: add --yes --selection ');
    for (const i of [0, 2, 4]) expect(dry.stdout).toContain(bulk[i]);
    expect((await decided()).length).toBe(before);
    const selection = /--selection (\S+)/.exec(dry.stdout)![1]!;
    // Issue 25 review: an open run of the agent that starts after the dry run is not one it showed.
    const [late] = await seedRuns(stack, { agent: 'BULK_AGENT', count: 1, open: [0] });
    await stack.waitFor(async () => {
      const r = await cli('runs', 'list', '--agent', 'BULK_AGENT', '--json');
      return r.code === 0 && (JSON.parse(r.stdout) as RunsListResult).matched === 6;
    }, 60_000);
    // A selection the filter no longer matches exactly (its digest) cancels nothing.
    const stale = await cli('runs', 'cancel', '--filter', '--agent', 'BULK_AGENT', '--yes', '--selection', selection.replace(/\/.*/, `/${'0'.repeat(32)}`));
    expect({ code: stale.code, said: stale.stderr.includes('not the ones the dry run showed') }).toEqual({ code: 1, said: true });
    expect((await decided()).length).toBe(before);

    const noFilter = await cli('runs', 'cancel', '--filter', '--yes');
    expect(noFilter.code).toBe(2);
    const mixed = await cli('runs', 'cancel', bulk[0], '--agent', 'BULK_AGENT');
    expect(mixed.code).toBe(2);

    const done = await cli('runs', 'cancel', '--filter', '--agent', 'BULK_AGENT', '--reason', 'bulk drill', '--yes', '--selection', selection);
    expect(done).toMatchObject({ code: 0, stderr: '' });
    expect(done.stdout).toBe('cancel recorded for 3 run(s) (their workers stop them at their next step); 0 had already ended\n');
    for (const i of [0, 2, 4]) expect(await cancelRequests(bulk[i])).toEqual([expect.objectContaining({ reason: 'bulk drill', requested_by: 'ops-alice' })]);
    for (const i of [1, 3]) expect(await cancelRequests(bulk[i])).toEqual([]);
    // Exactly the runs the dry run showed: the later one is left alone.
    expect(await cancelRequests(late!)).toEqual([]);
    const granted = (await decided()).slice(before);
    expect(granted).toHaveLength(3);
    for (const d of granted) expect(d).toMatchObject({ action: 'cancel', identity: 'operator', role: 'operator-admin', requested_by: 'ops-alice', reason: 'bulk drill', policy_version: 'operators-2026.11.2', granted: true });
  });
});
