import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { optionalSettingNumber, SETTINGS, SettingError, settingFlag, settingNumber, settingText } from './settings';

const ROOT = join(__dirname, '..', '..', '..');

describe('Settings: one typed table of every environment variable (issue 21)', () => {
  it('a number setting takes its value, else the computed fallback, else its default; text and flags likewise', () => {
    expect(settingNumber('TOOL_TIMEOUT_MS', {})).toBe(5_000);
    expect(settingNumber('TOOL_TIMEOUT_MS', { TOOL_TIMEOUT_MS: '750' })).toBe(750);
    expect(settingNumber('TOOL_TIMEOUT_MS', { TOOL_TIMEOUT_MS: '' })).toBe(5_000);
    expect(settingNumber('REPLY_TIMEOUT_MS', {}, 21_000)).toBe(21_000);
    expect(optionalSettingNumber('REPLY_TIMEOUT_MS', {})).toBeUndefined();
    expect(settingText('LOG_LEVEL', {})).toBe('log');
    expect(settingText('MONGO_URL', {})).toBeUndefined();
    expect(settingFlag('RL_ASYNC_TRACES', { RL_ASYNC_TRACES: '1' })).toBe(true);
    expect(settingFlag('RL_ASYNC_TRACES', {})).toBe(false);
  });

  it('a value that does not parse stops the process at start, naming the variable (never a NaN timeout or a negative bound)', () => {
    expect(() => settingNumber('TOOL_TIMEOUT_MS', { TOOL_TIMEOUT_MS: '5s' })).toThrow(new SettingError('TOOL_TIMEOUT_MS', 'must be a whole number, got "5s"'));
    expect(() => settingNumber('RL_LOG_REPLICAS', { RL_LOG_REPLICAS: '0' })).toThrow(/RL_LOG_REPLICAS: must be at least 1/);
    expect(() => settingNumber('RL_RESOLVER_IDLE_MS', { RL_RESOLVER_IDLE_MS: '-1' })).toThrow(/RL_RESOLVER_IDLE_MS/);
    expect(() => settingNumber('REPLY_TIMEOUT_MS', {})).toThrow(/REPLY_TIMEOUT_MS: is required/);
  });

  it('README: the Configuration table names exactly the variables of the table (and the OpenTelemetry ones the SDK reads)', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 5));
    const rows = section.split('\n').filter((l) => l.startsWith('| `'));
    const documented = new Set(rows.flatMap((r) => [...r.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)));
    const mentioned = new Set([...section.matchAll(/`([A-Z][A-Z0-9_]{2,})`/g)].map((m) => m[1]!));
    const declared = Object.keys(SETTINGS);
    expect(declared.filter((n) => !mentioned.has(n))).toEqual([]);
    const cliOrStandard = (n: string) => n.startsWith('OTEL_') || ['RL_NATS_PORT', 'RL_AUDIT_PUBLIC_KEY_FILE'].includes(n);
    expect([...documented].filter((n) => !declared.includes(n) && !cliOrStandard(n))).toEqual([]);
  });

  it('every read of a variable in services/ and libs/ goes through the table (a source scan)', () => {
    const allowed = new Set(['libs/kernel/src/settings.ts', 'libs/telemetry/src/sdk.ts']);
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (name === 'node_modules' || name === 'generated') continue;
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith('.ts') && !name.includes('.spec.') && !name.includes('.fixture.') && !name.includes('unit-support')) files.push(path);
      }
    };
    walk(join(ROOT, 'services'));
    walk(join(ROOT, 'libs'));
    const reads = files
      .filter((f) => !allowed.has(relative(ROOT, f)) && !relative(ROOT, f).startsWith('libs/testing/'))
      .flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/(?:process\.env|\benv)(?:\.|\[['"])([A-Z][A-Z0-9_]+)/g)].map((m) => `${relative(ROOT, f)}: ${m[1]}`));
    expect(reads).toEqual([]);
  });
});
