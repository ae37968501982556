import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/* eslint-disable @typescript-eslint/no-require-imports */
const { loadCompose, interpolate } = require('../scripts/lib/deployed/compose.js');
const { imageFacts } = require('../scripts/lib/deployed/manifests.js');
/* eslint-enable @typescript-eslint/no-require-imports */

type Service = { image?: string; build?: { dockerfile: string }; entrypoint?: string[]; command?: string[]; environment?: Record<string, string>; read_only?: boolean; tmpfs?: string[]; cap_drop?: string[]; volumes?: string[] };
const IDENTITIES = ['AUDIT_LEDGER', 'AUDIT_LEDGER_CONSUMER', 'DB_WRITE', 'DECISION', 'EXPORT', 'INTENT_CLASSIFICATION', 'PROMOTION', 'TOOL_GATEWAY', 'CALLER', 'OPERATOR', 'ADMIN', 'SYS'];

/**
 * Issue 24, docker-compose.yml as `docker compose` reads it (YAML with merges, then interpolation of the whole file).
 * Its containers are run as declared in test/deployed-compose-run.e2e.spec.ts.
 */
describe('Issue 24 docker-compose.yml as shipped', () => {
  it('Issue 24 compose: the README\'s `docker compose up jaeger` parses without a .env (no variable is required at parse time)', () => {
    expect(() => interpolate('${X:?set it}', {}, 'probe')).toThrow(/required variable X/);
    const project = loadCompose({});
    expect(project.services.jaeger.image).toMatch(/jaeger/);
  });

  it('Issue 24 compose: NATS refuses to start while a password is missing, naming it and how to make them', () => {
    const nats: Service = loadCompose({}).services.nats;
    const run = (env: Record<string, string>) => spawnSync(nats.entrypoint![0], [...nats.entrypoint!.slice(1), 'echo', 'nats-server started'], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
    const all = Object.fromEntries(IDENTITIES.map((id) => [`${id}_PASSWORD`, `p-${id.toLowerCase()}`]));
    expect(run(all)).toMatchObject({ status: 0, stdout: 'nats-server started\n' });
    const { DECISION_PASSWORD: _dropped, ...withoutOne } = all;
    const refused = run(withoutOne);
    expect(refused.status).toBe(78);
    expect(refused.stderr).toContain('DECISION_PASSWORD is not set: node scripts/render-k8s-nats.js --compose-env > .env');
    expect(nats.command![0]).toBe('nats-server');
  });

  it('Issue 24 compose: every Runledger container has a read-only root, no capabilities and writes only /tmp and its declared volumes; the ledger keeps its key and head on audit-data', () => {
    const project = loadCompose(Object.fromEntries(IDENTITIES.map((id) => [`${id}_PASSWORD`, 'p'])));
    const ours = Object.entries(project.services as Record<string, Service>).filter(([, s]) => s.build?.dockerfile === 'deploy/Dockerfile');
    expect(ours.length).toBeGreaterThanOrEqual(8);
    for (const [name, s] of ours) {
      expect([name, s.read_only, s.tmpfs, s.cap_drop]).toEqual([name, true, ['/tmp'], ['ALL']]);
    }
    const ledger = project.services['audit-ledger'] as Service;
    expect(ledger.volumes).toEqual(['audit-data:/var/lib/runledger/audit']);
    expect(Object.keys(project.volumes)).toContain('audit-data');
    expect(ledger.environment!.RL_AUDIT_KEY_FILE.startsWith('/var/lib/runledger/audit/')).toBe(true);
    expect(ledger.environment!.RL_AUDIT_HEAD_DIR.startsWith('/var/lib/runledger/audit/')).toBe(true);
    // The image makes that directory the service user's, so a new named volume there is writable by it.
    expect(imageFacts().user).toBe('10001:10001');
    expect(readFileSync(join(__dirname, '..', 'deploy', 'Dockerfile'), 'utf8')).toMatch(/install -d -o 10001 -g 10001 -m 0700 \/var\/lib\/runledger\/audit/);
  });
});
