import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { decodeReply, encodeJson } from '@runledger/messaging';
import { tempDir, type TempDir } from '@runledger/testing';

/* eslint-disable @typescript-eslint/no-require-imports */
const { renderOverlay, objectNamed, entriesOf } = require('../scripts/lib/deployed/manifests.js');
const { ClusterNetwork, startContainer, untilProbe } = require('../scripts/lib/deployed/sandbox.js');
/* eslint-enable @typescript-eslint/no-require-imports */

jest.setTimeout(600_000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = { kind: string; metadata: { name: string; labels?: Record<string, string> }; spec: any };
type Running = { name: string; exited: Promise<{ code: number | null }>; output(): string; stop(): Promise<unknown>; child: { exitCode: number | null } };
type Pod = { name: string; ip: string; net: string; hosts: string; close(): void };

/**
 * Issue 24, the dev overlay run as declared: its NATS, its bootstrap Job and every workload (six Deployments and the
 * audit-ledger StatefulSet), each pod in its own network namespace (its own ports, as a pod has) with Service names
 * resolving to the pods, read-only roots, declared volumes, users, env and probes (scripts/lib/deployed). Then task
 * requests as the caller identity while every Deployment is restarted one pod at a time (the new pod ready before
 * the old one stops: maxSurge 1, maxUnavailable 0) and the ledger is restarted: every request is answered once, the
 * chain verifies and the signed head continues. Deviations: nats-server 2.9 here (the rendered config's 2.10-only
 * sync_interval line left out); init containers (nats-box) are not run: the bootstrap has completed before any
 * service starts.
 */
// About four and a half minutes on two cores: run by `npm run deployed`, not by `npm test` (nor CI yet: README "Tests").
const deployedStack = process.env.RL_DEPLOYED_STACK === '1' ? describe : describe.skip;

deployedStack('Issue 24 the dev overlay run as declared, through a rolling restart', () => {
  const objects: Obj[] = renderOverlay('k8s/overlays/dev');
  const ns = 'runledger';
  let dir: TempDir;
  let network: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  const running = new Map<string, { pod: Pod; c: Running }>();
  const conns: NatsConnection[] = [];
  let natsIp = '';
  const hosts: Array<[string, string[]]> = [];
  const password = (key: string) => entriesOf(objectNamed(objects, 'Secret', 'runledger-nats-auth'))[key].toString();
  const as = async (user: string, key: string, inbox: string) => {
    const nc = await connect({ servers: `nats://${natsIp}:4222`, user, pass: password(key), inboxPrefix: inbox, timeout: 10_000 });
    conns.push(nc);
    return nc;
  };
  const workloads = objects.filter((o) => (o.kind === 'Deployment' && o.metadata.labels?.['app.kubernetes.io/component'] === 'service') || (o.kind === 'StatefulSet' && o.metadata.name === 'audit-ledger'));
  const claims = (w: Obj, podName: string) => Object.fromEntries((w.spec.volumeClaimTemplates ?? []).map((c: Obj) => [c.metadata.name, join(dir.path, `${c.metadata.name}-${podName}`)]));

  async function startPod(w: Obj, podName: string, opts: { image?: unknown; substitute?: Record<string, Buffer> } = {}, given?: Pod): Promise<{ pod: Pod; c: Running }> {
    const pod: Pod = given ?? await network.pod(podName);
    const container = w.spec.template.spec.containers[0];
    const c: Running = startContainer({ network: pod, objects, pod: { name: podName, namespace: ns, spec: w.spec.template.spec, claims: claims(w, podName) }, container, ...opts });
    running.set(podName, { pod, c }); // stopped in afterAll even when it never becomes ready
    if (container.startupProbe) await untilProbe(pod, container, container.startupProbe, c);
    if (container.readinessProbe) await untilProbe(pod, container, container.readinessProbe, c);
    return { pod, c };
  }
  async function stopPod(podName: string) {
    const p = running.get(podName)!;
    await p.c.stop();
    p.pod.close();
    running.delete(podName);
  }

  beforeAll(async () => {
    dir = await tempDir('runledger-deployed-dev-');
    network = await ClusterNetwork.create([]);
    const natsSet = objectNamed(objects, 'StatefulSet', 'runledger-nats');
    const natsPod: Pod = await network.pod('runledger-nats-0');
    natsIp = natsPod.ip;
    hosts.push([natsIp, ['runledger-nats', `runledger-nats.${ns}.svc`, 'runledger-nats-0.runledger-nats-headless']]);
    network.setHosts(hosts);
    const conf = entriesOf(objectNamed(objects, 'ConfigMap', 'runledger-nats-config'))['nats.conf'].toString().replace(/^\s*sync_interval:\s*always\s*$/m, '');
    await startPod(natsSet, 'runledger-nats-0', { image: { workdir: '/', env: {}, user: null, cmd: null, entrypoint: null, root: null }, substitute: { '/etc/nats/config/nats.conf': Buffer.from(conf) } }, natsPod);
    const job = objectNamed(objects, 'Job', 'runledger-log-stream-bootstrap');
    for (let attempt = 0; ; attempt++) {
      const pod: Pod = await network.pod(`${job.metadata.name}-${attempt}`);
      const run: Running = startContainer({ network: pod, objects, pod: { name: pod.name, namespace: ns, spec: job.spec.template.spec }, container: job.spec.template.spec.containers[0] });
      const { code } = await run.exited;
      pod.close();
      if (code === 0) break;
      if (attempt >= job.spec.backoffLimit) throw new Error(`bootstrap failed:\n${run.output()}`);
    }
    // Every workload at its declared replica count (a StatefulSet's pods by ordinal, one at a time).
    for (const w of workloads) {
      for (let i = 0; i < w.spec.replicas; i++) await startPod(w, w.kind === 'StatefulSet' ? `${w.metadata.name}-${i}` : `${w.metadata.name}-a${i}`);
    }
  });

  afterAll(async () => {
    for (const nc of conns) await nc.close().catch(() => undefined);
    for (const name of [...running.keys()].reverse()) await stopPod(name).catch(() => undefined);
    network?.close();
    await dir?.remove();
  });

  it('Issue 24 deployed (dev): every request is answered once through a rolling restart of every workload, the chain verifies and its signed head continues', async () => {
    expect(workloads.map((w) => w.metadata.name).sort()).toEqual(['audit-ledger', 'db-write', 'decision', 'export', 'intent-classification', 'promotion', 'tool-gateway']);
    const caller = await as('runledger-caller', 'CALLER_PASSWORD', '_INBOX_caller');
    const operator = await as('runledger-operator', 'OPERATOR_PASSWORD', '_INBOX_operator');
    const ask = async <T>(nc: NatsConnection, subject: string, body: unknown, timeout = 60_000): Promise<T> => {
      const msg = await nc.request(subject, encodeJson(body), { timeout });
      const reply = decodeReply(msg.data, msg.headers);
      if (!reply.ok) throw new Error(`${subject}: ${JSON.stringify(reply.error)}`);
      return reply.body as T;
    };
    const runIds: string[] = [];
    let stop = false;
    const request = async (i: number) => {
      const body = await ask<{ run_id: string }>(caller, 'agents.task-assistant.process', { user_id: 'u-deployed', conversation_id: randomUUID(), message: `add task deployed ${i}` }, 120_000);
      runIds.push(body.run_id);
    };
    await request(0).catch((err) => { throw new Error(`first request: ${err}`); });
    type Head = { checkpoint: { seq: number } | null; key_id: string };
    const before = await ask<Head>(operator, 'rl.audit.head', {});

    // The workload runs while every workload restarts: a steady stream of requests, two at a time.
    let sent = 1;
    const load = (async () => {
      while (!stop) await Promise.all([request(sent++), request(sent++)]);
    })();
    for (const w of workloads) {
      const old = [...running.keys()].filter((n) => n.startsWith(`${w.metadata.name}-`));
      for (const name of old) {
        if (w.kind === 'StatefulSet') {
          await stopPod(name); // a StatefulSet replaces its pod only after the old one is gone
          await startPod(w, name);
        } else {
          await startPod(w, `${w.metadata.name}-${randomUUID().slice(0, 5)}`); // maxSurge 1: the new pod ready first
          await stopPod(name);
        }
      }
    }
    stop = true;
    await load;
    expect(runIds.length).toBe(sent);
    expect(new Set(runIds).size).toBe(sent);

    const verdict = await ask<{ ok: boolean; length: number }>(operator, 'rl.audit.verify', {});
    expect(verdict).toMatchObject({ ok: true });
    const after = await ask<Head>(operator, 'rl.audit.head', {});
    expect(after.key_id).toBe(before.key_id);
    expect(after.checkpoint!.seq).toBeGreaterThan(before.checkpoint!.seq);
  });
});
