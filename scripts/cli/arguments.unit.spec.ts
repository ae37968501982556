/**
 * The operator commands' argument checks (scripts/cli/operator.ts parseArgs and the checks beside it, and each command's
 * own: auditArgs, replayArgs, listRequest): every value and combination the usage does not allow is a usage error
 * (exit 2: the error first, then the usage) decided here, before anything connects, so no stack runs in this suite.
 */
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { auditArgs, main as auditMain } from './audit';
import { refusalText } from './connection';
import { main as approvalsMain } from './approvals';
import { main as deadlettersMain, USAGE as DEADLETTERS_USAGE } from './deadletters';
import { CliError, parseArgs } from './operator';
import { replayArgs, USAGE as REPLAY_USAGE } from './replay';
import { listRequest, main as runsMain, USAGE as RUNS_USAGE } from './runs';

const ROOT = path.join(__dirname, '..', '..');
const POLICY = path.join(ROOT, 'policy', 'contract-v1');

/** What a check says: exit code and first line for a refusal, else 'ok'. */
function outcome(check: () => unknown): { code: number; first: string } | 'ok' {
  try {
    check();
    return 'ok';
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    return { code: err.exitCode, first: err.message.split('\n')[0] };
  }
}

const usageError = (first: string | RegExp) => ({ code: 2, first: typeof first === 'string' ? first : expect.stringMatching(first) });

describe('CLI arguments: checked before connecting (exit 2, the error then the usage)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'rl-cli-args-'));
  const chain = path.join(dir, 'chain.jsonl');
  const witness = path.join(dir, 'witness.json');
  writeFileSync(chain, '');
  writeFileSync(witness, '{}');
  const missing = path.join(dir, 'missing.pem');

  it('Probe finding 1, audit verify: a combination its usage does not allow is a usage error naming the option and what it needs, never silently ignored', () => {
    const cases: Array<[string[], ReturnType<typeof usageError> | 'ok']> = [
      [['verify', '--head', witness], usageError(/^--head needs --file \(/)],
      [['verify', '--public-key', witness], usageError(/^--public-key needs --file \(/)],
      [['verify', '--file', chain, '--anchor', witness], usageError(/^--anchor does not go with --file \(.*--head witness.json --public-key witness.json/)],
      [['verify', '--anchor', witness, '--head', witness], usageError(/^--head needs --file/)],
      [['verify', 'extra'], usageError('unexpected argument extra')],
      [['export', '--json'], usageError('unknown option --json')],
      [['verify', '--anchor', witness, '--json'], 'ok'],
      [['verify', '--file', chain, '--public-key', witness, '--head', witness], 'ok'],
    ];
    for (const [args, expected] of cases) expect({ args, result: outcome(() => auditArgs(args)) }).toEqual({ args, result: expected });
  });

  it('Probe finding 1, audit verify: a named file that does not exist or is no file is a usage error saying so (no raw ENOENT text)', () => {
    for (const option of ['--file', '--public-key', '--head', '--anchor']) {
      const args = option === '--file' || option === '--anchor' ? ['verify', option, missing] : ['verify', '--file', chain, option, missing];
      expect(outcome(() => auditArgs(args))).toEqual(usageError(`${option} ${missing}: does not exist`));
    }
    expect(outcome(() => auditArgs(['verify', '--file', dir]))).toEqual(usageError(`--file ${dir}: is a folder, not a file`));
  });

  it('Probe finding 5, --out: a folder that does not exist, a path through a file or an --out that is a folder is a usage error in words (no raw ENOENT text)', () => {
    for (const sub of [['export'], ['head'], ['anchor', 'export']]) {
      expect(outcome(() => auditArgs([...sub, '--out', '/nonexistent-dir/x.jsonl']))).toEqual(usageError('--out /nonexistent-dir/x.jsonl: the folder /nonexistent-dir does not exist'));
    }
    expect(outcome(() => auditArgs(['head', '--out', `${chain}/x.json`]))).toEqual(usageError(`--out ${chain}/x.json: ${chain} is not a folder`));
    expect(outcome(() => auditArgs(['export', '--out', dir]))).toEqual(usageError(`--out ${dir}: is a folder; name a file to write`));
    expect(outcome(() => auditArgs(['export', '--out', path.join(dir, 'new.jsonl')]))).toBe('ok');
  });

  it('Probe finding 2, replay: every option value (and that --policy names a policy folder) is checked before any work, and options of the other mode are refused', () => {
    const cases: Array<[string[], ReturnType<typeof usageError> | 'ok']> = [
      [['--check-runs', '-1'], usageError('--check-runs must be a whole number of at least 0, got "-1"')],
      [['--check-runs', 'abc'], usageError('--check-runs must be a whole number of at least 0, got "abc"')],
      [['--check-runs='], usageError('--check-runs needs a value')],
      [['--catch-up-timeout', '2.5'], usageError('--catch-up-timeout must be a whole number of at least 0, got "2.5"')],
      [['--policy', POLICY, '--since', 'garbage'], usageError(/^--since must be a date and time \(ISO 8601\)/)],
      [['--policy', POLICY, '--until', 'soon'], usageError(/^--until must be a date and time \(ISO 8601\)/)],
      [['--policy', '/nonexistent'], usageError('--policy /nonexistent: does not exist')],
      [['--policy', path.join(POLICY, 'lanes.yaml')], usageError(`--policy ${path.join(POLICY, 'lanes.yaml')}: is a file, not a folder`)],
      [['--policy', dir], usageError(/^--policy .*: cannot read its lanes.yaml and roles.yaml \(no such file or folder\)$/)],
      [['--policy', POLICY, '--check-runs', '5'], usageError(/^--check-runs does not go with --policy/)],
      [['--policy', POLICY, '--keep-store'], usageError(/^--keep-store does not go with --policy/)],
      [['--since', '2026-01-01T00:00:00Z'], usageError(/^--since needs --policy/)],
      [['now'], usageError('unexpected argument now')],
      [['--check-runs', '0', '--catch-up-timeout', '0', '--keep-store'], 'ok'],
      [['--policy', POLICY, '--since', '2026-01-01T00:00:00Z'], 'ok'],
    ];
    for (const [args, expected] of cases) expect({ args, result: outcome(() => replayArgs(args)) }).toEqual({ args, result: expected });
    const rebuild = replayArgs([]);
    expect(rebuild).toMatchObject({ kind: 'rebuild', rebuild: { checkRuns: 200, catchUpTimeoutS: 120, keepStore: false } });
  });

  it("Probe finding 2, runs list --limit: more than the server's page (500), 0 or not a number is refused by the CLI before connecting", () => {
    const list = (...args: string[]) => listRequest(parseArgs(args, { valued: ['limit'], switches: [] }, RUNS_USAGE));
    for (const v of ['501', '0', 'abc', '']) expect({ v, result: outcome(() => list('--limit', v)) }).toEqual({ v, result: usageError(v === '' ? '--limit needs a value' : `--limit must be a whole number from 1 to 500, got "${v}"`) });
    expect(list('--limit', '500')).toEqual({ limit: 500 });
  });

  it('Probe finding 5, --server / NATS_URL: a malformed server URL is a usage error naming where it came from, before connecting; a URL, host:port or a list is fine', () => {
    const saved = process.env.NATS_URL;
    try {
      delete process.env.NATS_URL;
      for (const server of ['notaurl::', 'nats://', 'http://127.0.0.1:4222', 'nats://h:99999', '']) {
        expect({ server, result: outcome(() => parseArgs(['--server', server], { valued: [], switches: [] }, 'usage')) })
          .toEqual({ server, result: usageError(`--server ${JSON.stringify(server)} is not a NATS server URL: give nats://HOST:PORT, tls://HOST:PORT or HOST:PORT (several separated by commas)`) });
      }
      for (const server of ['nats://127.0.0.1:4222', 'tls://nats.example:4222', 'localhost:4222', 'nats://a:4222,nats://b:4222']) {
        expect({ server, result: outcome(() => parseArgs(['--server', server], { valued: [], switches: [] }, 'usage')) }).toEqual({ server, result: 'ok' });
      }
      process.env.NATS_URL = 'notaurl::';
      expect(outcome(() => parseArgs([], { valued: [], switches: [] }, 'usage'))).toEqual(usageError(/^NATS_URL "notaurl::" is not a NATS server URL/));
    } finally {
      if (saved === undefined) delete process.env.NATS_URL;
      else process.env.NATS_URL = saved;
    }
  });

  it('Probe finding 3, --help says what each option takes and its default, and the exit codes: replay (--catch-up-timeout included) and deadletters', () => {
    for (const line of [
      '--check-runs N                runs re-checked against rl.runs.get, spread over the log (default 200, 0 for all)',
      '--catch-up-timeout SECONDS    how long to wait first for the live read models\' consumer to catch up',
      '(default 120; 0 compares at once)', '--keep-store', '--policy DIR                  a folder with lanes.yaml and roles.yaml',
      '--since ISO, --until ISO', 'exit codes: 0 no differences',
    ]) expect(REPLAY_USAGE).toContain(line);
    for (const line of ['--durable NAME  only those of one durable consumer', 'default: every one', 'exit codes: 0 done, 1 refused by the stack', '2 usage (said before connecting), 3 the stack cannot be reached']) expect(DEADLETTERS_USAGE).toContain(line);
  });

  it('Probe finding 4: a refused subscription under a reply inbox is said as the inbox, not as a request the identity may not ask; a refused publish stays the request', () => {
    const subscription = new Error('Permissions Violation for Subscription to "_INBOX_caller.Ab12.*"');
    expect(refusalText(subscription, undefined, () => 'the request')).toMatch(/^refused: this identity is not permitted to subscribe to its reply inbox _INBOX_caller\.Ab12\.\* \(inbox prefix _INBOX_caller\): the server lets an identity receive replies only under its own prefix, _INBOX_<identity>/);
    expect(refusalText(new Error('Permissions Violation for Subscription to "rl.live.run.*.*"'), undefined, () => 'the live feed')).toBe('the live feed');
    expect(refusalText(new Error('Permissions Violation for Publish to "rl.runs.list"'), undefined, () => 'the request')).toBe('the request');
    expect(refusalText(new Error('timeout'), undefined, () => 'the request')).toBeNull();
  });

  /** Runs `env` set (undefined: unset) around `body`, then puts the environment back. */
  const withEnv = async <T>(env: Record<string, string | undefined>, body: () => T | Promise<T>): Promise<T> => {
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    const set = (vars: Record<string, string | undefined>) => {
      for (const [k, v] of Object.entries(vars)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    };
    set(env);
    try {
      return await body();
    } finally {
      set(saved);
    }
  };

  it('README "Operator commands", offline audit verify: `audit verify --file` never connects, so a stale NATS_CREDS or NATS_CONTEXT does not refuse it; a command that connects still says it first (exit 2)', async () => {
    const stale = { NATS_CREDS: '/nonexistent/operator.creds', NATS_CONTEXT: undefined, NATS_URL: undefined };
    await withEnv(stale, () => {
      expect(outcome(() => auditArgs(['verify', '--file', chain]))).toBe('ok');
      expect(outcome(() => auditArgs(['verify', '--file', chain, '--public-key', witness, '--head', witness]))).toBe('ok');
      for (const args of [['verify'], ['export'], ['head'], ['coverage'], ['anchor', 'export']]) {
        expect({ args, result: outcome(() => auditArgs(args)) }).toEqual({ args, result: usageError(/\/nonexistent\/operator\.creds/) });
      }
    });
    await withEnv({ NATS_CREDS: undefined, NATS_CONTEXT: 'no-such-context-rl', NATS_URL: undefined, XDG_CONFIG_HOME: dir }, () => {
      expect(outcome(() => auditArgs(['verify', '--file', chain]))).toBe('ok');
      expect(outcome(() => auditArgs(['verify']))).toEqual(usageError(/^NATS context "no-such-context-rl" not found/));
    });
  });

  /** A command run in this process as operators run it: exit code and what it said on stderr (nothing can answer at port 1). */
  const run = async (main: (args: string[]) => Promise<number>, args: string[]): Promise<{ code: number; stderr: string }> => {
    const said: string[] = [];
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (said.push(String(chunk)), true));
    try {
      const code = await withEnv({ NATS_CREDS: undefined, NATS_CONTEXT: undefined, NATS_URL: undefined }, () => main([...args, '--server', 'nats://127.0.0.1:1']));
      return { code, stderr: said.join('') };
    } finally {
      spy.mockRestore();
    }
  };

  it('README "Operator commands", every wrong value exit 2 before connecting: a RUN_ID, CAMPAIGN_ID, ITEM_ID that is no UUID and a dead letter ID that is not DURABLE:SEQUENCE are usage errors, not requests the stack refuses', async () => {
    const runId = '6a1f0c1e-0000-4000-8000-000000000000';
    for (const sub of ['show', 'cancel', 'fork']) {
      const r = await run(runsMain, [sub, 'not-a-uuid', ...(sub === 'fork' ? ['--from', 'intake'] : [])]);
      expect({ sub, r }).toEqual({ sub, r: { code: 2, stderr: expect.stringMatching(/^RUN_ID must be a UUID \(8-4-4-4-12 hex digits\), got "not-a-uuid"\nusage: runledger runs list/) } });
    }
    // A UUID in upper case names the same run: it gets as far as connecting (exit 3: nothing answers at port 1).
    expect((await run(runsMain, ['show', runId.toUpperCase()])).code).toBe(3);
    const answer = (campaign: string, item: string) => run(approvalsMain, ['answer', campaign, item, '--approve']);
    expect(await answer('c-1', runId)).toEqual({ code: 2, stderr: expect.stringMatching(/^CAMPAIGN_ID must be a UUID .*, got "c-1"\nusage: runledger approvals list/) });
    expect(await answer(runId, 'item-1')).toEqual({ code: 2, stderr: expect.stringMatching(/^ITEM_ID must be a UUID .*, got "item-1"\nusage: runledger approvals list/) });
    expect((await answer(runId, runId)).code).toBe(3);
    for (const sub of ['show', 'retry']) {
      for (const id of ['42', 'audit-ledger', 'audit-ledger:x', 'a b:1']) {
        const r = await run(deadlettersMain, [sub, id]);
        expect({ sub, id, r }).toEqual({ sub, id, r: { code: 2, stderr: expect.stringMatching(new RegExp(`^ID must be DURABLE:SEQUENCE as deadletters list prints it \\(e\\.g\\. audit-ledger:42\\), got ${JSON.stringify(JSON.stringify(id)).slice(1, -1)}\nusage: runledger deadletters list`)) } });
      }
      expect((await run(deadlettersMain, [sub, 'decision-inbox:7'])).code).toBe(3);
    }
  });

  it('README "Operator commands", exit 2: a count outside its range or not in decimal digits (`--limit 0x10`, `1e3`, `5.0`) is refused, never converted, before connecting', async () => {
    const runId = '6a1f0c1e-0000-4000-8000-000000000000';
    // What the operator sees: exit 2, the error in one line, then the usage.
    const said = async (args: string[]) => {
      const r = await run(runsMain, args);
      return { code: r.code, first: r.stderr.split('\n')[0], usage: r.stderr.includes('\nusage: runledger runs list') };
    };
    for (const v of ['0x10', '1e3', '5.0', ' 5', '+5', '-5', '１６']) {
      expect({ v, r: await said(['list', '--limit', v]) }).toEqual({ v, r: { code: 2, first: `--limit must be a whole number from 1 to 500, got ${JSON.stringify(v)}`, usage: true } });
    }
    for (const v of ['5.0', '1e3', '0x10', '9007199254740993']) {
      expect({ v, r: await said(['cancel', runId, '--wait', '--timeout', v]) }).toEqual({ v, r: { code: 2, first: `--timeout must be a whole number of at least 1, got ${JSON.stringify(v)}`, usage: true } });
    }
    expect(outcome(() => replayArgs(['--check-runs', '0x10']))).toEqual(usageError('--check-runs must be a whole number of at least 0, got "0x10"'));
    // Decimal digits within the range get as far as connecting (exit 3: nothing answers at port 1); a leading 0 is still decimal.
    expect((await run(runsMain, ['list', '--limit', '016'])).code).toBe(3);
    expect((await run(runsMain, ['cancel', runId, '--wait', '--timeout', '5'])).code).toBe(3);
  });

  it('README CLI exit codes (2, an --out that cannot be written): --out /proc/x, which no permission bit forbids, is refused before connecting; the check leaves no file behind and an existing one as it was', () => {
    for (const sub of [['export'], ['head'], ['anchor', 'export']]) {
      expect(outcome(() => auditArgs([...sub, '--out', '/proc/x']))).toEqual(usageError('--out /proc/x: cannot be written (/proc takes no new files)'));
    }
    const fresh = path.join(dir, 'fresh.jsonl');
    expect(outcome(() => auditArgs(['export', '--out', fresh]))).toBe('ok');
    expect(existsSync(fresh)).toBe(false);
    const kept = path.join(dir, 'kept.json');
    writeFileSync(kept, 'earlier head');
    expect(outcome(() => auditArgs(['head', '--out', kept]))).toBe('ok');
    expect(readFileSync(kept, 'utf8')).toBe('earlier head');
  });

  it('README CLI exit codes (2, invalid input): a --since not before its --until names no time and is refused before connecting (replay --policy, runs list)', () => {
    const [early, late] = ['2026-11-24T07:00:00Z', '2026-11-25T07:00:00Z'];
    const empty = usageError('--since 2026-11-25T07:00:00.000Z is not before --until 2026-11-24T07:00:00.000Z: the range [since, until) would be empty');
    expect(outcome(() => replayArgs(['--policy', POLICY, '--since', late, '--until', early]))).toEqual(empty);
    expect(outcome(() => replayArgs(['--policy', POLICY, '--since', early, '--until', early]))).toEqual(usageError(/^--since .* is not before --until /));
    expect(outcome(() => replayArgs(['--policy', POLICY, '--since', early, '--until', late]))).toBe('ok');
    const list = (...args: string[]) => listRequest(parseArgs(args, { valued: ['since', 'until'], switches: [] }, RUNS_USAGE));
    expect(outcome(() => list('--since', late, '--until', early))).toEqual(empty);
    expect(list('--since', early, '--until', late)).toEqual({ since: '2026-11-24T07:00:00.000Z', until: '2026-11-25T07:00:00.000Z' });
  });

  it('README CLI exit codes (2, unreadable input): audit verify --file of an empty file is no exported chain, and a --public-key that is no Ed25519 public key is refused in our words (no OpenSSL text)', async () => {
    const key = path.join(dir, 'key.pub.pem');
    writeFileSync(key, generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }));
    for (const text of ['', '\n\n']) {
      writeFileSync(chain, text);
      expect(await run(auditMain, ['verify', '--file', chain, '--public-key', key])).toEqual({ code: 2, stderr: `--file ${chain}: is empty, not an exported audit chain (runledger audit export writes one JSON entry a line)\n` });
    }
    writeFileSync(chain, '{"seq":1}\n');
    const garbage = path.join(dir, 'garbage.pem');
    const rsa = path.join(dir, 'rsa.pub.pem');
    writeFileSync(garbage, 'garbage');
    writeFileSync(rsa, generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }));
    for (const file of [garbage, rsa, witness]) {
      const r = await run(auditMain, ['verify', '--file', chain, '--public-key', file]);
      expect({ file, r }).toEqual({ file, r: { code: 2, stderr: `--public-key ${file}: is not an Ed25519 public key: give the ledger's signing-key.pub.pem (a PEM "BEGIN PUBLIC KEY" block) or the JSON \`audit head\` or \`audit anchor export\` writes, which carries it\n` } });
    }
    // A witness copy whose key is no Ed25519 key is refused in words before connecting (it was a stack trace).
    const rsaWitness = path.join(dir, 'rsa-witness.json');
    const rsaPem = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    writeFileSync(rsaWitness, JSON.stringify({ statement: 'runledger.audit.witness.v1', log: { stream: 'x' }, checkpoint: { seq: 1 }, public_key_pem: rsaPem }));
    expect(await run(auditMain, ['verify', '--anchor', rsaWitness])).toEqual({ code: 2, stderr: `${rsaWitness}: its public_key_pem is not an Ed25519 public key (the chain is signed with nothing else)\n` });
    writeFileSync(chain, '');
  });

  it("README CLI exit codes (2, an id not of its form): deadletters list --durable that is no durable name (a.b, a b, >) is refused before asking, by the rule rl.deadletters.list applies", async () => {
    for (const durable of ['a.b', 'a b', '>', 'audit-ledger.*']) {
      const r = await run(deadlettersMain, ['list', '--durable', durable]);
      expect({ durable, r }).toEqual({ durable, r: { code: 2, stderr: expect.stringMatching(new RegExp(`^--durable must be a durable consumer name \\(letters, digits, _ or -, e\\.g\\. audit-ledger\\), got ${JSON.stringify(JSON.stringify(durable)).slice(1, -1).replace(/[.*>]/g, '\\$&')}\nusage: runledger deadletters list`)) } });
    }
    // A name of that form gets as far as connecting (exit 3: nothing answers at port 1).
    expect((await run(deadlettersMain, ['list', '--durable', 'decision-inbox'])).code).toBe(3);
  });
});
