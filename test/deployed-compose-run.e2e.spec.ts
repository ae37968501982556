import { execFileSync } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { tempDir, waitUntil, type TempDir } from '@runledger/testing';

/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
const { loadCompose, composeContainer, untilHealthy } = require('../scripts/lib/deployed/compose.js');
const { ROOT } = require('../scripts/lib/deployed/manifests.js');
const { ClusterNetwork, startContainer } = require('../scripts/lib/deployed/sandbox.js');
const { taskRequests, checkWorkload } = require('../scripts/lib/deployed/workload.js');

jest.setTimeout(600_000);

type Running = { name: string; exited: Promise<{ code: number | null }>; output(): string; mainPid(): number; stop(graceMs?: number): Promise<unknown>; exec(argv: string[]): Promise<{ code: number | null; output: string }> };

/** The one deviation from docker-compose.yml: no MongoDB on this machine, so the store is the embedded default (NATS KV). */
const DEVIATION = { unset: ['MONGO_URL'], notRun: ['mongo'] };

/**
 * Issue 24, docker-compose.yml run as declared, in the sandbox of the Kubernetes suite (scripts/lib/deployed): the
 * passwords made as the file's header says (`node scripts/render-k8s-nats.js --compose-env > .env`), the nats service
 * with its entrypoint, command and mounted compose.conf, the bootstrap step to completion, then every Runledger
 * service, each in its own network namespace with the services' names resolving, as compose's network does: its
 * entrypoint/command over deploy/Dockerfile's (built with its SERVICE arg), its environment, read_only, tmpfs, named
 * volumes (kept across a restart) and bind mounts, user and cap_drop; depends_on's order; healthchecks run inside the
 * container at their interval, timeout, start_period and retries. Exactly one deviation, declared in DEVIATION: no
 * MongoDB (no server, no Docker here), so MONGO_URL is left unset and the services keep documents in the embedded
 * default store (NATS KV); nothing else is changed. The jaeger image is not a Runledger container and is not run:
 * `jaeger` resolves to a stand-in OTLP/HTTP receiver on the host, which counts what the services export. NATS's
 * published ports are not bound on this host's loopback: the test reaches NATS at its container's address.
 */
describe('Issue 24 docker-compose.yml run as declared (the one deviation: no MongoDB)', () => {
  const env = Object.fromEntries(execFileSync(process.execPath, [join(ROOT, 'scripts/render-k8s-nats.js'), '--compose-env'], { encoding: 'utf8' }).trim().split('\n').map((l) => l.split(/=(.*)/s).slice(0, 2)));
  const project = loadCompose(env);
  const services = project.services as Record<string, any>;
  const ours = Object.keys(services).filter((n) => services[n].build?.dockerfile === 'deploy/Dockerfile' && n !== 'bootstrap');
  const TAG = `compose-${randomBytes(3).toString('hex')}`;
  let dir: TempDir;
  let network: any;
  let otlp: Server;
  const exported: string[] = [];
  const pods = new Map<string, { ip: string; close(): void }>();
  const running = new Map<string, Running>();
  const conns: NatsConnection[] = [];

  function start(name: string): Running {
    const c = composeContainer(project, name, { claim: (volume: string) => join(dir.path, volume), unset: DEVIATION.unset });
    const r: Running = startContainer({ network: pods.get(name), objects: [], pod: c.pod, container: c.container, image: c.image, log: (s: string) => appendFileSync(join(dir.path, `${name}.log`), s) });
    running.set(name, r);
    return r;
  }
  const healthy = (name: string) => untilHealthy(running.get(name), services[name].healthcheck);

  beforeAll(async () => {
    dir = await tempDir('runledger-deployed-compose-');
    network = await ClusterNetwork.create([]);
    otlp = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => {
        const body = Buffer.concat(chunks);
        if (req.url === '/v1/traces') exported.push(...ours.filter((n) => body.includes(n)));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((resolve) => otlp.listen(4318, network.hostIp, resolve));
    for (const name of ['nats', 'bootstrap', ...ours]) pods.set(name, await network.pod(name));
    network.setHosts([...[...pods].map(([name, pod]): [string, string[]] => [pod.ip, [name]]), [network.hostIp, ['jaeger']]]);
    // depends_on: nats healthy, then bootstrap completed successfully, then the services (mongo: the deviation).
    for (const s of ours) expect(Object.keys(services[s].depends_on).sort()).toEqual(['bootstrap', 'jaeger', 'mongo', 'nats']);
    start('nats');
    await healthy('nats');
    const { code } = await start('bootstrap').exited;
    if (code !== 0) throw new Error(`bootstrap exited ${code}:\n${running.get('bootstrap')!.output()}`);
    await Promise.all(ours.map(async (name) => {
      start(name);
      await healthy(name);
    }));
  });

  afterAll(async () => {
    for (const nc of conns) await nc.close().catch(() => undefined);
    await Promise.all([...running.values()].map((r) => r.stop(0).catch(() => undefined)));
    for (const pod of pods.values()) pod.close();
    network?.close();
    otlp?.close();
    await dir?.remove();
  });

  it('Issue 24 compose: every Runledger container runs as its service declares (user, no capabilities, read-only root, /tmp writable)', async () => {
    expect(ours.sort()).toEqual(['audit-ledger', 'db-write', 'decision', 'export', 'intent-classification', 'promotion', 'tool-gateway']);
    for (const name of ['nats', ...ours]) {
      const { output } = await running.get(name)!.exec(['/bin/sh', '-c', 'id -u; grep CapEff /proc/self/status; touch /app/x /x 2>/dev/null && echo root-writable; touch /tmp/x 2>/dev/null && echo tmp-writable']);
      const user = name === 'nats' ? '0' : '10001'; // the nats image runs as root; deploy/Dockerfile's USER 10001
      expect([name, output.trim().split('\n')]).toEqual([name, [user, 'CapEff:\t0000000000000000', ...(services[name].tmpfs ? ['tmp-writable'] : [])]]);
      // The container's own process, seen from the host: no capabilities, no_new_privs (security_opt).
      const status = readFileSync(`/proc/${running.get(name)!.mainPid()}/status`, 'utf8');
      expect([name, /^CapEff:\s*(\w+)/m.exec(status)![1], /^NoNewPrivs:\s*(\d)/m.exec(status)![1]]).toEqual([name, '0000000000000000', '1']);
    }
    // The ledger's signing key (made on first start) on its named volume audit-data; NATS's store on nats-data.
    expect(readdirSync(join(dir.path, 'audit-data'))).toContain('signing-key.pem');
    expect(readdirSync(join(dir.path, 'nats-data'))).toContain('jetstream');
  });

  it('Issue 24 compose: a small acceptance workload through the compose stack: every request answered once, every run terminal, the audit chain verifies; traces reach the declared collector', async () => {
    const nats = `nats://${pods.get('nats')!.ip}:4222`;
    const as = async (user: string, pass: string, inboxPrefix: string) => {
      const nc = await connect({ servers: nats, user, pass, inboxPrefix, timeout: 10_000 });
      conns.push(nc);
      return nc;
    };
    const caller = await as('runledger-caller', env.CALLER_PASSWORD, '_INBOX_caller');
    const admin = await as('runledger-admin', env.ADMIN_PASSWORD, '_INBOX_admin');
    const load = taskRequests(caller, TAG);
    await Promise.all([0, 1, 2, 3].map((i) => load.request(i)));
    expect(load.wrongAnswers()).toEqual([]);
    expect(new Set(load.replies.map((r: { run_id: string }) => r.run_id)).size).toBe(4);
    const counts = await checkWorkload(admin, load.replies, (line: string) => process.stderr.write(`[compose] ${line}\n`));
    expect(counts).toMatchObject({ non_terminal: 0, lies: 0, duplicates: 0, lost: 0, coverage_violations: 0, chain_ok: true });
    await waitUntil(() => exported.includes('decision'), { timeoutMs: 60_000 });
  });
});
