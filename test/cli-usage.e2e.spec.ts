/**
 * Issue 25, a CLI people like: every command, subcommand and script answers --help with its usage (exit 0), a usage
 * error is exit 2 with a clear message, and valid values are listed. Usage is decided before any connection, so no
 * stack runs here: the commands point at a port where nothing listens.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { errorText, eventDetail, table } from '../scripts/cli/format';
import { CliResult, runCli } from './support/cli';

jest.setTimeout(120_000);

const NOWHERE = 'nats://127.0.0.1:1';
const ROOT = path.join(__dirname, '..');
const cli = (...args: string[]) => runCli(NOWHERE, args);

function runScript(script: string, args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts', script), ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('Issue 25 CLI: help, usage errors and exit codes', () => {
  it('Issue 25 CLI: runledger --help (and -h, help) prints every command and the exit codes, exit 0; no command is a usage error (exit 2)', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const r = await cli(flag);
      expect({ flag, code: r.code, stderr: r.stderr }).toEqual({ flag, code: 0, stderr: '' });
      for (const command of ['chat', 'audit verify', 'erase', 'runs list', 'deadletters', 'replay', 'agent']) expect(r.stdout).toContain(command);
      expect(r.stdout).toMatch(/Exit codes: 0 done; 1 .*2 usage/s);
    }
    const none = await cli();
    expect(none).toMatchObject({ code: 2, stdout: '' });
    expect(none.stderr).toContain('runledger <command>');
    const unknown = await cli('explode');
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toMatch(/^unknown command 'explode'\n/);
  });

  it('Issue 25 CLI: --help on every command and subcommand prints its usage and exits 0, without reaching for the stack', async () => {
    const cases: Array<[string[], string]> = [
      [['runs', '--help'], 'runledger runs list'], [['runs', 'list', '--help'], 'runledger runs list'], [['runs', 'show', '--help'], 'runledger runs show'],
      [['runs', 'tail', '--help'], 'runledger runs tail'], [['runs', 'cancel', 'x', '--help'], 'runledger runs cancel'],
      [['runs', 'fork', '--help'], 'runledger runs fork RUN_ID --from STEP_ID'],
      [['deadletters', '--help'], 'runledger deadletters list'], [['deadletters', 'retry', '--help'], 'runledger deadletters retry'], [['deadletters', 'show', '-h'], 'runledger deadletters show'],
      [['audit', '--help'], 'runledger audit verify'], [['audit', 'verify', '--help'], 'runledger audit verify'], [['audit', 'anchor', 'export', '--help'], 'runledger audit anchor export'],
      [['erase', '--help'], 'runledger erase --user ID'], [['replay', '--help'], 'runledger replay --policy DIR'],
      [['chat', '--help'], 'runledger chat --user'], [['agent', '--help'], 'runledger agent'],
    ];
    for (const [args, usage] of cases) {
      const r = await cli(...args);
      expect({ args, code: r.code, stderr: r.stderr, usage: r.stdout.includes(usage) }).toEqual({ args, code: 0, stderr: '', usage: true });
    }
  });

  it('Issue 25 CLI: valid values are listed in help, and a wrong one is a usage error (exit 2) naming them, before any connection', async () => {
    const statuses = 'created, authorized, running, completed, failed, denied, cancelled';
    expect((await cli('runs', 'list', '--help')).stdout).toContain(`--status is one of ${statuses}`);
    const bad = await cli('runs', 'list', '--status', 'exploded');
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr).toMatch(new RegExp(`^--status must be one of ${statuses}\n`));
    const unknown = await cli('deadletters', 'list', '--colour');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^unknown option --colour\n/);
    // runs fork: the checkpoint is required and the policy is two versions, said before any connection.
    const noFrom = await cli('runs', 'fork', '6a1f0c1e-0000-4000-8000-000000000000');
    expect(noFrom).toMatchObject({ code: 2, stdout: '' });
    expect(noFrom.stderr).toMatch(/^runs fork needs --from STEP_ID/);
    const badPolicy = await cli('runs', 'fork', '6a1f0c1e-0000-4000-8000-000000000000', '--from', 'intake', '--policy', 'lanes-only');
    expect(badPolicy).toMatchObject({ code: 2, stdout: '' });
    expect(badPolicy.stderr).toMatch(/^--policy is LANES_VERSION\/ROLES_VERSION/);
    const chat = await cli('chat');
    expect(chat).toMatchObject({ code: 2 });
    expect(chat.stderr).toContain('--user is required');
  });

  it('Probe findings, CLI help and README agree: every command is listed, agent --help has the bus mode, audit --help and erase --help their exit codes', async () => {
    const top = (await cli('--help')).stdout;
    for (const line of ['audit export [--out chain.jsonl]', 'audit head [--out head.json]', 'audit coverage', 'deadletters list|show|retry', 'agent --agent <profile-id> --prompt "<text>" [--request-id ID]']) expect(top).toContain(line);
    const agent = await cli('agent', '--help');
    expect(agent).toMatchObject({ code: 0, stderr: '' });
    for (const part of ['runledger agent --config <file>', 'runledger agent --agent <profile-id>', '--request-id ID', 'exit codes: 0 success']) expect(agent.stdout).toContain(part);
    expect((await cli('agent', '--agent', 'x', '--help')).stdout).toContain('runledger agent --agent <profile-id>');
    expect((await cli('audit', '--help')).stdout).toMatch(/exit codes: 0 chain intact.*2 usage.*3 the stack cannot be reached/s);
    expect((await cli('erase', '--user', '--help')).stdout).toMatch(/^usage: runledger erase --user ID \| --case ID.*\nexit codes: 0 erased.*2 usage.*3 the stack cannot be reached/s);
  });

  it('Probe findings, usage errors say what is wrong before the usage (exit 2): an unknown subcommand, a missing value, a credentials file that does not exist', async () => {
    for (const [args, first] of [
      [['runs', 'lsit'], "unknown command 'lsit'"], [['audit', 'frob'], "unknown command 'frob'"], [['deadletters', 'frob'], "unknown command 'frob'"],
      [['approvals'], 'a command is needed'], [['runs', 'list', '--user'], '--user needs a value'],
      [['runs', 'list', '--creds', '/nonexistent.nk'], 'credentials file /nonexistent.nk not found'],
      [['audit', 'head', '--creds', '/nonexistent.nk'], 'credentials file /nonexistent.nk not found'],
      [['chat', '--user', 'a', '--creds', '/nonexistent.nk'], 'runledger chat: credentials file /nonexistent.nk not found'],
      [['erase', '--user'], '--user needs a value'], [['erase', '--case'], '--case needs a value'], [['erase', '--user', '--case', 'c'], '--user needs a value'],
      [['erase'], 'erase needs --user ID or --case ID'], [['erase', '--user', 'u', '--case', 'c'], 'erase takes one of --user ID or --case ID, not both'],
      [['erase', '--user', 'u', 'v'], 'unexpected argument v'], [['erase', '--colour'], 'unknown option --colour'],
      // A value that starts with `--` but names no option of the command is a value (`--reason "--force"`).
      [['erase', '--user', '--colour', '--case', 'c'], 'erase takes one of --user ID or --case ID, not both'],
    ] as Array<[string[], string]>) {
      const r = await cli(...args);
      expect({ args, code: r.code, first: r.stderr.split('\n')[0] }).toEqual({ args, code: 2, first });
    }
  });

  it('Probe findings 1, 2 and 5: the commands the probe ran are usage errors with no stack (exit 2, before connecting: not 3), the error first, then the usage, no raw ENOENT text', async () => {
    for (const [args, first] of [
      [['audit', 'verify', '--head', 'head-bad.json'], '--head needs --file'], [['audit', 'verify', '--public-key', 'x.pem'], '--public-key needs --file'],
      [['audit', 'verify', '--file', 'chain.jsonl', '--anchor', 'witness.json'], '--anchor does not go with --file'],
      [['audit', 'verify', '--file', '/nonexistent/chain.jsonl'], '--file /nonexistent/chain.jsonl: does not exist'],
      [['replay', '--check-runs', '-1'], '--check-runs must be a whole number'], [['replay', '--check-runs', 'abc'], '--check-runs must be a whole number'],
      [['replay', '--policy', path.join(ROOT, 'policy', 'contract-v1'), '--since', 'garbage'], '--since must be a date and time'], [['replay', '--policy', '/nonexistent'], '--policy /nonexistent: does not exist'],
      [['runs', 'list', '--limit', '501'], '--limit must be a whole number from 1 to 500'], [['runs', 'list', '--limit', '0x10'], '--limit must be a whole number from 1 to 500, got "0x10"'], [['runs', 'list', '--server', 'notaurl::'], '--server "notaurl::" is not a NATS server URL'],
      [['audit', 'export', '--out', '/nonexistent-dir/x.jsonl'], '--out /nonexistent-dir/x.jsonl: the folder /nonexistent-dir does not exist'],
      [['audit', 'head', '--out', '/nonexistent-dir/x.json'], '--out /nonexistent-dir/x.json: the folder /nonexistent-dir does not exist'],
    ] as Array<[string[], string]>) {
      const r = await cli(...args);
      expect({ args, code: r.code, stdout: r.stdout, first: r.stderr.split('\n')[0].startsWith(first), usage: r.stderr.includes('\nusage: runledger ') }).toEqual({ args, code: 2, stdout: '', first: true, usage: true });
      expect(r.stderr).not.toMatch(/ENOENT|\n\s+at /);
    }
  });

  it('Probe findings, one formatter for runs tail and runs show: a sealed message is "[sealed]" (never [object Object]), a session error shows its kind, long cells are cut', () => {
    const sealed = { sealed: 'aes-256-gcm/v1', owner: 'case.x', iv: 'i', tag: 't', ciphertext: 'c' };
    expect(eventDetail({ type: 'RunFailed', data: { error: { error_code: 'TOOL.FAILED', message: sealed } } })).toBe(' TOOL.FAILED: [sealed]');
    expect(eventDetail({ type: 'RunFailed', data: { error: { error_code: 'TOOL.FAILED', message: 'The tool failed.' } } })).toBe(' TOOL.FAILED: The tool failed.');
    expect(eventDetail({ type: 'RunFailed', data: { error: { error_code: 'X', message: { erased: true } } } })).toBe(' X: [erased]');
    expect(eventDetail({ type: 'SessionFinished', data: { success: false, error: { kind: 'model_error', message: 'target openai/x failed' } } })).toBe(' model_error: target openai/x failed');
    expect(errorText({ error_code: 'RUN.ABANDONED', message: 'no worker' })).toBe('RUN.ABANDONED: no worker');
    const rows = table(['USER', 'STATUS'], [['u'.repeat(257), 'failed'], ['bob', 'completed']]).split('\n');
    expect(rows[1]).toBe(`${'u'.repeat(39)}…  failed`);
    expect(rows[2]).toBe(`bob${' '.repeat(37)}  completed`);
  });

  it('Issue 25 CLI: scripts/chaos.js --help and npm run bench -- --help print their usage and exit 0 (no fault suite, no benchmark); an unknown option or a count that is not a whole number in decimal digits (or 0 callers) is exit 2', async () => {
    const chaos = await runScript('chaos.js', ['--help']);
    expect(chaos).toMatchObject({ code: 0, stderr: '' });
    expect(chaos.stdout).toMatch(/^npm run chaos — the fault suite/);
    expect(chaos.stdout).toContain('--requests N (200)');
    const bench = await runScript('bench.js', ['--help']);
    expect(bench).toMatchObject({ code: 0, stderr: '' });
    expect(bench.stdout).toMatch(/^npm run bench — /);
    const wrong = await runScript('chaos.js', ['--requets', '5']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^unknown option --requets\n/);
    // A count it cannot use is refused before anything starts, in either spelling of the option, in the words of the
    // operator commands (one rule, scripts/lib/usage.js parseWholeNumber: decimal digits, so 0x10 or 1e3 are not counts).
    for (const [args, first] of [
      [['--requests=2.5'], '--requests must be a whole number of at least 1, got "2.5"'], [['--requests=0x10'], '--requests must be a whole number of at least 1, got "0x10"'],
      [['--kills', '-1'], '--kills must be a whole number of at least 0, got "-1"'], [['--load-deadline-s', 'soon'], '--load-deadline-s must be a whole number of at least 1, got "soon"'],
      [['--concurrency', '0'], '--concurrency must be a whole number of at least 1, got "0"'], [['--seed', '1e3'], '--seed must be a whole number of at least 0, got "1e3"'],
    ] as Array<[string[], string]>) {
      const refused = await runScript('chaos.js', args);
      expect({ args, code: refused.code, first: refused.stderr.split('\n')[0], usage: refused.stderr.includes('\n\nnpm run chaos — the fault suite') }).toEqual({ args, code: 2, first, usage: true });
    }
  });
});
