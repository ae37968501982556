/**
 * Issue 10: the short version of `npm run chaos` in CI — a few requests while two services are SIGKILLed and
 * nats-server is SIGKILLed and restarted; every count of the fault suite must be zero and the chain must verify.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

jest.setTimeout(900_000);

describe('Issue 10 fault suite (short): npm run chaos with 12 requests, 2 service kills, 1 nats-server restart', () => {
  it('Issue 10 chaos: every request answered truthfully, no run left open, no lie, no duplicate, nothing lost, coverage clean, chain verifies', async () => {
    const script = path.join(__dirname, '..', 'scripts', 'chaos.js');
    const child = spawn(process.execPath, [script, '--requests', '12', '--kills', '2', '--nats-restarts', '1', '--concurrency', '4', '--seed', '10'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect({ code, stderr: code === 0 ? '' : stderr.slice(-2000) }).toEqual({ code: 0, stderr: '' });
    const counts = JSON.parse(stdout.slice(stdout.indexOf('{'), stdout.lastIndexOf('}') + 1)) as Record<string, number | boolean>;
    expect(counts).toMatchObject({
      requests: 12, answered: 12, unanswered: 0, wrong_answers: 0, service_kills: 2, nats_restarts: 1,
      non_terminal: 0, lies: 0, duplicates: 0, lost: 0, coverage_violations: 0, chain_ok: true,
    });
  });
});
