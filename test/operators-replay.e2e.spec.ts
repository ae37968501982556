/**
 * Issue 11: `runledger replay` rebuilds every projection and read model from the log into a fresh store and
 * compares it with the live one (and can fail); `runledger replay --policy` re-decides recorded authorizations.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './support/cli';
import { policyVersionsIn, SHIPPED_POLICY_DIR, START, uploadCase } from './support/governed-runs';
import { seedRuns } from './support/seed-runs';
import { TestStack } from './support/stack';
import { Conversation } from './support/task-assistant';

jest.setTimeout(300_000);

describe('Issue 11 replay: rebuild every projection and compare with live; what-if under another policy', () => {
  let stack: TestStack;
  // Operators read the log; rebuilding read models into fresh buckets and reading the live ones is the
  // bootstrap identity's right (deploy/nats/permissions.yaml), so replay runs as admin.
  const cli = (...args: string[]) => runCli(stack.url, args, stack.cliEnv(args[0] === 'replay' && !args.includes('--policy') ? 'admin' : 'operator'));
  let deleteRunId = '';

  beforeAll(async () => {
    stack = await TestStack.start();
    // A realistic workload: two people using the task assistant (writes, a confirmed delete), a governed
    // case run with child runs and domain writes, a denied run, and a few hundred recorded runs.
    const alice = new Conversation(stack);
    await alice.add('buy milk', 'call mom');
    await alice.say('rename call mom to call mom tonight');
    await alice.say('mark buy milk as done');
    await alice.say('delete call mom tonight');
    const yes = await alice.say('yes');
    deleteRunId = yes.run_id;
    const bob = new Conversation(stack);
    await bob.add('water plants');
    await bob.say('show my tasks');
    const caseId = `case-${randomUUID().slice(0, 8)}`;
    const inputs = await uploadCase(stack, caseId, policyVersionsIn(SHIPPED_POLICY_DIR));
    const intake = await stack.request<{ outcome: string }>(START, { agent_name: 'INTAKE_AGENT', case_id: caseId, input_artifacts: [inputs.form], parameters: {} }, 90_000);
    expect(intake.body.outcome).toBe('success');
    await stack.request(START, { agent_name: 'NOPE_AGENT', case_id: caseId, input_artifacts: [], parameters: {} }, 90_000);
    await seedRuns(stack, { agent: 'SEED_AGENT', count: 200, failing: [3] });
  });
  afterAll(async () => stack?.stop());

  it('Issue 11 replay: after a realistic workload every projection rebuilt from the log equals the live one ("no differences", exit 0) with a progress bar', async () => {
    const r = await cli('replay', '--check-runs', '0');
    expect({ code: r.code, tail: r.stdout.split('\n').slice(-2).join('\n') }).toEqual({ code: 0, tail: 'no differences\n' });
    for (const model of ['runs_index', 'audit_events', 'audit_decisions', 'tasks', 'audit chain', 'runs (rl.runs.get', 'conversations (run contexts)']) expect(r.stdout).toContain(`  ${model}`);
    // Every rebuilt model holds something: a comparison of two empty sets proves nothing.
    for (const line of r.stdout.split('\n').filter((l) => l.startsWith('  '))) expect(line).not.toMatch(/rebuilt\s+0\s/);
    expect(r.stderr).toMatch(/replaying \[#+\] 100%\s+[\d,]+ events\s+[\d,]+ events\/s/);
  });

  it('Issue 11 replay: a corrupted live read model (runs index row, task document) is reported as a difference, exit 1', async () => {
    const live = stack.documents();
    const rows = await live.collection<Record<string, unknown>>('runs_index').find({ agent_name: 'SEED_AGENT', failed: true });
    expect(rows).toHaveLength(1);
    const row = rows[0];
    await live.collection('runs_index').put(row.id, { ...row.value, status: 'completed', failed: false });
    const tasks = await live.collection<Record<string, unknown>>('tasks').find({});
    const task = tasks[0];
    await live.collection('tasks').put(task.id, { ...task.value, description: 'tampered' });
    try {
      const r = await cli('replay', '--check-runs', '10');
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(`DIFFERENCE runs_index ${row.id}: differs — failed: rebuilt true, live false`);
      expect(r.stdout).toContain(`DIFFERENCE tasks ${task.id}: differs — description:`);
      expect(r.stdout).toMatch(/\n2 difference\(s\)\n$/);
    } finally {
      await live.collection('runs_index').put(row.id, row.value);
      await live.collection('tasks').put(task.id, task.value);
      await live.close();
    }
  });

  it('Issue 23 replay: a live runs-index row whose ownership track takes its run as forged (so rl.runs.list leaves it out) is reported as a difference, exit 1', async () => {
    const live = stack.documents();
    const row = (await live.collection<Record<string, unknown>>('runs_index').find({ agent_name: 'SEED_AGENT' }))[0];
    const track = row.value.ownership as { owner: string; groups: Record<string, string> };
    expect(track.owner).toBeDefined();
    await live.collection('runs_index').put(row.id, { ...row.value, ownership: { ...track, foreign: { run_id: row.id, subject: 'rl.log.run.x', seq: 1, reason: 'tampered' } } });
    try {
      const r = await cli('replay', '--check-runs', '10');
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(`DIFFERENCE runs_index ${row.id}: differs — listed: rebuilt true, live false`);
      expect(r.stdout).toMatch(/\n1 difference\(s\)\n$/);
    } finally {
      await live.collection('runs_index').put(row.id, row.value);
      await live.close();
    }
  });

  it('Issue 22 replay: a live runs-index row whose audit trail puts an event at another chain place is an audit_events difference, exit 1', async () => {
    const live = stack.documents();
    const row = (await live.collection<Record<string, unknown>>('runs_index').find({ agent_name: 'SEED_AGENT' }))[0];
    const trail = row.value.audit_trail as Array<[number, number, number, string]>;
    expect(trail.length).toBeGreaterThan(1);
    await live.collection('runs_index').put(row.id, { ...row.value, audit_trail: [[trail[0][0] + 1_000_000, ...trail[0].slice(1)], ...trail.slice(1)] });
    try {
      const r = await cli('replay', '--check-runs', '10');
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(`DIFFERENCE audit_events ${row.id}: differs — events:`);
      expect(r.stdout).toMatch(/\n1 difference\(s\)\n$/);
    } finally {
      await live.collection('runs_index').put(row.id, row.value);
      await live.close();
    }
  });

  it('Issue 11 what-if: replay --policy re-decides every recorded authorization and prints the ones that would change', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rl-policy-'));
    copyFileSync(join(SHIPPED_POLICY_DIR, 'roles.yaml'), join(dir, 'roles.yaml'));
    const lanes = readFileSync(join(SHIPPED_POLICY_DIR, 'lanes.yaml'), 'utf8');
    const stricter = lanes.replace(/\n\s+- delete_task\n/, '\n').replace(/^version: .*$/m, 'version: lanes-what-if-1');
    expect(stricter).not.toBe(lanes);
    writeFileSync(join(dir, 'lanes.yaml'), stricter);

    const r = await cli('replay', '--policy', dir);
    expect(r.code).toBe(0);
    const roles = policyVersionsIn(SHIPPED_POLICY_DIR).roles.replace(/\./g, '\\.');
    expect(r.stdout).toMatch(new RegExp(`^what-if under lanes-what-if-1 / ${roles}: re-decided \\d+ recorded authorization\\(s\\)\n {2}1 allow→deny, 0 deny→allow, \\d+ unchanged`));
    const change = r.stdout.split('\n').find((l) => l.startsWith('allow→deny'));
    expect(change).toMatch(new RegExp(`^allow→deny\\s+TASK_ASSISTANT\\s+TASKS\\s+delete_task\\s+LANE\\.ACTION_DENIED\\s+1\\s+\\S+ \\S+\\s+\\S+ \\S+\\s+[0-9a-f-]{36}$`));
    expect(r.stderr).not.toContain('warning');

    const asJson = JSON.parse((await cli('replay', '--policy', dir, '--json')).stdout) as { changes: { run_id: string; root_run_id: string }[] };
    expect(asJson.changes).toHaveLength(1);
    expect(asJson.changes[0].root_run_id).toBe(deleteRunId);

    const later = await cli('replay', '--policy', dir, '--since', new Date(Date.now() + 60_000).toISOString());
    expect(later.stdout).toContain('re-decided 0 recorded authorization(s)');
    expect(later.stdout).toContain('no decision would change');
  });

  it('Issue 25 what-if: identical changes are one line with their count (by change, agent, lane, action, rule), and a changed policy that kept its version is warned about', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rl-policy-'));
    copyFileSync(join(SHIPPED_POLICY_DIR, 'roles.yaml'), join(dir, 'roles.yaml'));
    const lanes = readFileSync(join(SHIPPED_POLICY_DIR, 'lanes.yaml'), 'utf8');
    // add_task taken out of the task lane, under the version the shipped file has (and the log published).
    const changed = lanes.replace(/\n\s+- add_task\n/, '\n');
    expect(changed).not.toBe(lanes);
    writeFileSync(join(dir, 'lanes.yaml'), changed);
    const { lanes: version } = policyVersionsIn(SHIPPED_POLICY_DIR);

    const r = await cli('replay', '--policy', dir);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`warning: lanes.yaml in ${dir} keeps version ${version}, which the log holds with other content`);
    const asJson = JSON.parse((await cli('replay', '--policy', dir, '--json')).stdout) as { warnings: string[]; groups: Array<{ action: string; runs: number }>; changes: unknown[] };
    expect(asJson.warnings).toHaveLength(1);
    // Three task runs added a task (Alice's two, Bob's one): one kind of change, counted, not three lines.
    expect(asJson.changes.length).toBeGreaterThanOrEqual(3);
    expect(asJson.groups).toEqual([expect.objectContaining({ change: 'allow→deny', agent_name: 'TASK_ASSISTANT', lane: 'TASKS', action: 'add_task', code: 'LANE.ACTION_DENIED', runs: asJson.changes.length })]);
    const lines = r.stdout.split('\n').filter((l) => l.startsWith('allow→deny'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^allow→deny\\s+TASK_ASSISTANT\\s+TASKS\\s+add_task\\s+LANE\\.ACTION_DENIED\\s+${asJson.changes.length}\\s`));
    expect(r.stdout).toContain(`1 kind(s) of change over ${asJson.changes.length} decision(s); --json lists every one\n`);
  });

  it('Issue 11 audit verify / coverage: verify waits for the verdict with no fixed limit; coverage reads the whole log with a progress bar', async () => {
    const verify = await cli('audit', 'verify');
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(/^audit chain OK: \d+ entries, head [0-9a-f]{64}\n/);
    const coverage = await cli('audit', 'coverage');
    expect(coverage.stderr).toMatch(/coverage {2}\[#+\] 100%/);
    expect(coverage.stdout).toMatch(/^audit coverage OK: \d+ runs/);
    expect(coverage.code).toBe(0);
  });

  it('Issue 11 what-if: a folder without a valid policy is refused with its problems (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rl-policy-'));
    writeFileSync(join(dir, 'lanes.yaml'), 'version: broken\nlanes: nope\n');
    copyFileSync(join(SHIPPED_POLICY_DIR, 'roles.yaml'), join(dir, 'roles.yaml'));
    const r = await cli('replay', '--policy', dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the policy in ${dir} is not valid`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
