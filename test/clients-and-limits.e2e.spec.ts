import { jetstreamManager } from '@nats-io/jetstream';
import { LOG_STREAM } from '@runledger/event-log';
import { runCli } from './support/cli';
import { TestStack } from './support/stack';

jest.setTimeout(240_000);

/**
 * Issue 9 "Clients" and "Nobody forges the log": the CLI takes credentials the NATS way and says clearly when it is
 * refused (exit 3, one sentence, no stack trace); a service refuses to start on a log whose limits were changed.
 */
describe('Issue 9 clients and log limits', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['audit-ledger'] });
  });
  afterAll(() => stack?.stop());

  it('Issue 9 clients: an operator command with no credentials is refused clearly (exit 3, no stack trace)', async () => {
    const r = await runCli(stack.url, ['runs', 'list'], { NATS_CREDS: '', NATS_USER: '', NATS_CONTEXT: '' });
    expect(r.code).toBe(3);
    // It says none were given and every way to give them; npm start's file only as where a stack npm start runs keeps
    // it (this server is not known to be one: probe finding L2).
    expect(r.stderr).toMatch(/wants credentials and none were given .*--creds FILE \(or NATS_CREDS=FILE\), --nats-user U --nats-password P \(or NATS_USER and NATS_PASSWORD\) or --context NAME \(or NATS_CONTEXT\); a stack npm start runs has this command's identity, the operator, in \S*credentials\/operator\.nk/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('README audit (probe finding L7): `audit export` of a chain with no entries yet refuses (exit 1) instead of writing an empty copy, which `audit verify --file` would refuse', async () => {
    // Only the audit-ledger runs here and nothing was asked: its chain has no entry.
    const r = await runCli(stack.url, ['audit', 'export'], stack.cliEnv('operator'));
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: 'the audit chain has no entries yet: nothing to export\n' });
  });

  it('Issue 9 clients: wrong credentials (an unknown user and password) are refused clearly (exit 3)', async () => {
    const r = await runCli(stack.url, ['runs', 'list', '--nats-user', 'mallory', '--nats-password', 'guess'], { NATS_CREDS: '' });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/refused these credentials/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('Issue 9 clients: a caller identity asking for an operator command is refused clearly (exit 3), not left waiting', async () => {
    const r = await runCli(stack.url, ['runs', 'list'], stack.cliEnv('caller'));
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/refused: this identity is not permitted to ask rl.runs.list/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('Issue 9 clients: every command a caller may not use is refused in words (exit 3), also those that read the log or a store rather than ask a subject', async () => {
    const commands = [['runs', 'tail'], ['approvals', 'list'], ['audit', 'coverage'], ['audit', 'export'], ['replay'], ['replay', '--policy', 'policy/contract-v1']];
    const results = await Promise.all(commands.map((args) => runCli(stack.url, args, stack.cliEnv('caller'), 60_000)));
    for (const [i, r] of results.entries()) {
      expect({ command: commands[i].join(' '), code: r.code, stdout: r.stdout }).toEqual({ command: commands[i].join(' '), code: 3, stdout: '' });
      expect(r.stderr).toMatch(/^refused: this identity is not permitted to /);
      expect(r.stderr).not.toMatch(/Permissions Violation|\n\s+at /);
    }
    // A rebuild is the admin's, so the refusal names the admin; the log readers name the operator.
    expect(results[4].stderr).toMatch(/rebuild the read models .* the admin's credentials/);
    expect(results[0].stderr).toMatch(/the operator's credentials/);
  });

  it("Issue 9 clients: the operator's replay without --policy (a rebuild, which opens sealed data with the data keys) is refused in words as the admin's act (exit 3)", async () => {
    const r = await runCli(stack.url, ['replay'], stack.cliEnv('operator'), 60_000);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 3, stdout: '' });
    expect(r.stderr).toMatch(/^refused: this identity is not permitted to rebuild the read models \(a replay opens sealed data with the data keys, rl_data_keys, and writes fresh buckets: the bootstrap admin's act; `replay --policy DIR` is an operator's\)/);
    expect(r.stderr).toMatch(/the admin's credentials \(\.data\/credentials\/admin\.nk/);
    expect(r.stderr).not.toMatch(/Permissions Violation|\n\s+at /);
  });

  it("Probe finding 4, a wrong --inbox-prefix: the refused subscription to the reply inbox is said as such (exit 3), naming the prefix the operator's credentials may use, not as a request the identity may not ask", async () => {
    for (const command of [['runs', 'list'], ['audit', 'head'], ['replay', '--policy', 'policy/contract-v1']]) {
      const r = await runCli(stack.url, [...command, '--inbox-prefix', '_INBOX_caller'], stack.cliEnv('operator'), 60_000);
      expect({ command: command.join(' '), code: r.code, stdout: r.stdout }).toEqual({ command: command.join(' '), code: 3, stdout: '' });
      expect(r.stderr).toMatch(/^refused: this identity is not permitted to subscribe to its reply inbox _INBOX_caller\.\S+ \(inbox prefix _INBOX_caller\): the server lets an identity receive replies only under its own prefix, _INBOX_operator for these credentials; pass --inbox-prefix _INBOX_operator/);
      expect(r.stderr).not.toMatch(/to ask |Permissions Violation|\n\s+at /);
    }
  });

  it('Issue 9 clients: the operator identity given with --creds is let in (exit 0)', async () => {
    const env = stack.cliEnv('operator');
    const r = await runCli(stack.url, ['runs', 'list', '--creds', env.NATS_CREDS, '--inbox-prefix', env.NATS_INBOX_PREFIX], { NATS_CREDS: '' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('Issue 9 chat: `runledger chat` with no credentials says it was refused instead of a bare error', async () => {
    const r = await runCli(stack.url, ['chat', '--user', 'u-1'], { NATS_CREDS: '', NATS_USER: '', NATS_CONTEXT: '' }, 60_000);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/refused these credentials|needs credentials|--creds/);
  });

  it("Issue 9 log limits: a service refuses to start on a log whose limits were changed (max_age), and says why", async () => {
    const jsm = await jetstreamManager(stack.nc);
    const { config } = await jsm.streams.info(LOG_STREAM);
    await jsm.streams.update(LOG_STREAM, { ...config, max_age: 3_600 * 1_000_000_000 });
    try {
      await expect(stack.startService('db-write')).rejects.toThrow();
      expect(stack.logs.join('\n')).toMatch(/not an immutable log: has limits/);
    } finally {
      await jsm.streams.update(LOG_STREAM, { ...config, max_age: 0 });
    }
  });
});
