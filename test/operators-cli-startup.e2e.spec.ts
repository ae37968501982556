/**
 * Issue 25 "commands start in well under a second": a command loads only what it uses. Loading `runs` (for `runs
 * list`, `show`, `cancel`) does not load the live-feed follower, the fork, bulk cancel or waterfall code nor the event
 * log and messaging libraries behind them; `agent` without --agent does not load the bus client. Checked by the
 * modules Node loaded (no wall clock): a subprocess requires the command as scripts/runledger.js does.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..');

/** The repository files Node loaded to require scripts/cli/<command>. */
function loadedBy(command: string): string[] {
  const script = `require(${JSON.stringify(path.join(ROOT, 'scripts', 'lib', 'ts-register.js'))});`
    + `require(${JSON.stringify(path.join(ROOT, 'scripts', 'cli', command))});`
    + `process.stdout.write(JSON.stringify(Object.keys(require.cache).filter((f)=>!f.includes('node_modules')).map((f)=>f.slice(${JSON.stringify(`${ROOT}/`)}.length))));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' })) as string[];
}

describe('Issue 25 CLI start-up: a command loads only what it uses', () => {
  it('Issue 25 runs: the runs command loads neither tail, fork, bulk cancel nor waterfall code, nor the event log or messaging libraries', () => {
    const loaded = loadedBy('runs');
    expect(loaded).toContain('scripts/cli/runs.ts');
    for (const lazy of ['scripts/cli/runs-tail.ts', 'scripts/cli/runs-fork.ts', 'scripts/cli/runs-bulk-cli.ts', 'scripts/cli/console/waterfall.ts']) expect(loaded).not.toContain(lazy);
    expect(loaded.filter((f) => f.startsWith('libs/event-log/') || f.startsWith('libs/runs/') || f === 'libs/messaging/src/index.ts')).toEqual([]);
  });

  it('Issue 25 agent: a local session (or --help) does not load the bus client and the messaging library', () => {
    const loaded = loadedBy('agent');
    expect(loaded).not.toContain('scripts/cli/agent-bus.ts');
    expect(loaded).not.toContain('libs/messaging/src/index.ts');
  });
});
