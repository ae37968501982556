import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { LOG_STREAM } from '@runledger/event-log';
import { tempDir, waitUntil, type TempDir } from '@runledger/testing';

/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
const { renderOverlay, objectNamed, entriesOf } = require('../scripts/lib/deployed/manifests.js');
const { ClusterNetwork, startContainer, untilProbe } = require('../scripts/lib/deployed/sandbox.js');
const { taskRequests, checkWorkload, explainRuns, ask } = require('../scripts/lib/deployed/workload.js');
const { jetStreamLag, desiredReplicas } = require('../scripts/lib/deployed/scaler.js');
const permissions = require('../scripts/lib/permissions.js');

jest.setTimeout(600_000);

type Obj = { kind: string; metadata: { name: string; labels?: Record<string, string> }; spec: any; data?: Record<string, string> };
type Running = { name: string; exited: Promise<{ code: number | null; signal: string | null }>; output(): string; stop(graceMs?: number): Promise<unknown>; signal(s: string): void; child: { exitCode: number | null } };
type Pod = { name: string; ip: string; net: string; hosts: string; close(): void };

const NS = 'runledger';
const TAG = `deployed-${randomBytes(3).toString('hex')}`;

/**
 * The Secrets the base does not ship, created as k8s/README.md says (here with throwaway values): a password per NATS
 * user, the ledger's Ed25519 key, and MONGO_URL empty (documents in NATS KV: no MongoDB on this machine).
 */
function secretsOfTheApplyOrder(): Obj[] {
  const secret = (name: string, entries: Record<string, string>): Obj => ({
    kind: 'Secret', metadata: { name }, spec: undefined,
    data: Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  });
  // Every identity of the permissions table, the admin and the system account's user (as k8s/README.md lists them).
  const ids = [...permissions.identities(permissions.loadTable()), 'admin', 'sys'].map((id: string) => id.toUpperCase().replace(/-/g, '_'));
  const key = generateKeyPairSync('ed25519');
  return [
    secret('runledger-nats-auth', Object.fromEntries(ids.map((id) => [`${id}_PASSWORD`, `p${randomBytes(24).toString('hex')}`]))),
    secret('runledger-secrets', { MONGO_URL: '' }),
    secret('runledger-audit-key', {
      'signing-key.pem': key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      'signing-key.pub.pem': key.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    }),
  ];
}

/**
 * Issue 24, the deployment as shipped, run as declared: k8s/base (the production shape: a three-node NATS cluster
 * with routes, the bootstrap Job, every Deployment at its two replicas, the ledger's StatefulSet of one) rendered by
 * kubectl's kustomize, each pod in its own network namespace with the Services' names resolving to their ready pods,
 * each container as it declares (scripts/lib/deployed: bwrap, read-only root, only declared volumes writable, its user,
 * env, Secrets and ConfigMaps as files, probes at their paths and periods, preStop, SIGTERM, SIGKILL after the grace
 * period). A steady load of task requests from the caller identity through @runledger/client (each with its own
 * request_id; a reply that says "taking longer" is asked again with the same request_id) runs while every Deployment
 * rolls (as `kubectl rollout restart`: all Deployments at once, each one pod at a time, new pod ready before the old
 * one stops), the ledger is replaced and the log stream's leader NATS node is SIGKILLed and restarted on its volume.
 * Deviations, each forced by this machine: nats-server is 2.9 (the image's 2.10): the rendered config's 2.10-only
 * `sync_interval` line is left out; the init containers (nats-box's `nats stream info`) are not run: the bootstrap
 * Job has completed before any service starts; the Secrets are made here (above); no OpenTelemetry collector.
 */
describe('Issue 24 the base deployment run as declared, through a rolling restart and a NATS node kill', () => {
  const objects: Obj[] = [...renderOverlay('k8s/base'), ...secretsOfTheApplyOrder()];
  let dir: TempDir;
  let logs = '';
  let network: any;
  const running = new Map<string, { pod: Pod; c: Running }>();
  const conns: Array<{ close(): Promise<void> }> = [];
  const natsSet = objectNamed(objects, 'StatefulSet', 'runledger-nats') as Obj;
  const natsReady = new Map<string, string>(); // pod name → IP, for the Service's endpoints
  const natsIps = new Map<string, string>();
  const password = (key: string) => entriesOf(objectNamed(objects, 'Secret', 'runledger-nats-auth'))[key].toString();
  const servers = () => [...natsIps.values()].map((ip) => `nats://${ip}:4222`);
  const as = async (user: string, key: string, inbox: string) => {
    const nc = await connect({ servers: servers(), user, pass: password(key), inboxPrefix: inbox, timeout: 10_000, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
    conns.push(nc);
    return nc;
  };
  const workloads = objects.filter((o) => (o.kind === 'Deployment' && o.metadata.labels?.['app.kubernetes.io/component'] === 'service') || (o.kind === 'StatefulSet' && o.metadata.name === 'audit-ledger'));
  const claims = (w: Obj, podName: string) => Object.fromEntries((w.spec.volumeClaimTemplates ?? []).map((c: Obj) => [c.metadata.name, join(dir.path, `${c.metadata.name}-${podName}`)]));
  const podsOf = (w: Obj) => [...running.keys()].filter((n) => n.startsWith(`${w.metadata.name}-`));
  let serial = 0;
  const newPodName = (w: Obj) => `${w.metadata.name}-${(++serial).toString(36).padStart(5, '0')}`;

  /** Cluster DNS: each NATS pod by its headless name; the Service `runledger-nats` to a ready pod (its endpoints). */
  function publishEndpoints() {
    const entries: Array<[string, string[]]> = [...natsIps.entries()].map(([name, ip]) => [ip, [`${name}.runledger-nats-headless`, `${name}.runledger-nats-headless.${NS}.svc`]]);
    const endpoint = [...natsReady.values()][0];
    if (endpoint) entries.find(([ip]) => ip === endpoint)![1].push('runledger-nats', `runledger-nats.${NS}.svc`);
    network.setHosts(entries);
  }

  async function startPod(w: Obj, podName: string, given?: Pod, opts: Record<string, unknown> = {}): Promise<{ pod: Pod; c: Running }> {
    const pod: Pod = given ?? await network.pod(podName);
    const container = w.spec.template.spec.containers[0];
    const c: Running = startContainer({ network: pod, objects, pod: { name: podName, namespace: NS, spec: w.spec.template.spec, claims: claims(w, podName) }, container, log: (s: string) => appendFileSync(join(logs, `${podName}.log`), s), ...opts });
    running.set(podName, { pod, c }); // stopped in afterAll even when it never becomes ready
    if (container.startupProbe) await untilProbe(pod, container, container.startupProbe, c);
    if (container.readinessProbe) await untilProbe(pod, container, container.readinessProbe, c);
    return { pod, c };
  }
  async function stopPod(podName: string, graceMs?: number) {
    const p = running.get(podName)!;
    await p.c.stop(graceMs);
    p.pod.close();
    running.delete(podName);
  }

  /** A NATS pod (the StatefulSet's ordinal `i`): its container started, or restarted in the same pod, as the kubelet does. */
  async function startNats(i: number, pod?: Pod) {
    const name = `runledger-nats-${i}`;
    const conf = entriesOf(objectNamed(objects, 'ConfigMap', 'runledger-nats-config'))['nats.conf'].toString().replace(/^\s*sync_interval:\s*always\s*$/m, '');
    const natsImage = { workdir: '/', env: {}, user: null, cmd: null, entrypoint: null, root: null };
    pod ??= await network.pod(name);
    natsIps.set(name, pod!.ip);
    publishEndpoints();
    await startPod(natsSet, name, pod, { image: natsImage, substitute: { '/etc/nats/config/nats.conf': Buffer.from(conf) } });
    natsReady.set(name, pod!.ip);
    publishEndpoints();
  }

  beforeAll(async () => {
    dir = await tempDir('runledger-deployed-stack-');
    logs = process.env.RL_DEPLOYED_LOGS ?? dir.path;
    network = await ClusterNetwork.create([]);
    // podManagementPolicy: Parallel (the routes retry until every peer's name resolves and it listens).
    await Promise.all(Array.from({ length: natsSet.spec.replicas }, (_, i) => startNats(i)));
    const job = objectNamed(objects, 'Job', 'runledger-log-stream-bootstrap') as Obj;
    for (let attempt = 0; ; attempt++) {
      const pod: Pod = await network.pod(`${job.metadata.name}-${attempt}`);
      const run: Running = startContainer({ network: pod, objects, pod: { name: pod.name, namespace: NS, spec: job.spec.template.spec }, container: job.spec.template.spec.containers[0], log: (s: string) => appendFileSync(join(logs, `${pod.name}.log`), s) });
      const { code } = await run.exited;
      pod.close();
      if (code === 0) break;
      if (attempt >= job.spec.backoffLimit) throw new Error(`bootstrap failed:\n${run.output()}`);
    }
    // Every workload at its declared replicas, the Deployments' pods in parallel, a StatefulSet's by ordinal.
    await Promise.all(workloads.map(async (w) => {
      if (w.kind === 'StatefulSet') for (let i = 0; i < w.spec.replicas; i++) await startPod(w, `${w.metadata.name}-${i}`);
      else await Promise.all(Array.from({ length: w.spec.replicas }, () => startPod(w, newPodName(w))));
    }));
  });

  afterAll(async () => {
    for (const nc of conns) await nc.close().catch(() => undefined);
    // The suite is over: every pod at once, without the grace period.
    await Promise.all([...running.keys()].map((name) => stopPod(name, 0).catch(() => undefined)));
    network?.close();
    if (!process.env.RL_DEPLOYED_LOGS) await dir?.remove();
  });

  /** `kubectl rollout restart`: a Deployment one pod at a time (maxSurge 1, maxUnavailable 0); a StatefulSet old pod first. */
  async function rollingRestart(w: Obj) {
    for (const old of podsOf(w)) {
      if (w.kind === 'StatefulSet') {
        await stopPod(old);
        await startPod(w, old);
      } else {
        expect(w.spec.strategy.rollingUpdate).toEqual({ maxUnavailable: 0, maxSurge: 1 });
        await startPod(w, newPodName(w));
        await stopPod(old);
      }
    }
  }

  /** SIGKILL the node leading the log stream; the kubelet restarts its container in the same pod, on the same volume. */
  async function killLogLeader(admin: NatsConnection): Promise<string> {
    const jsm = await jetstreamManager(admin);
    const leader = (await jsm.streams.info(LOG_STREAM)).cluster!.leader!;
    const p = running.get(leader)!;
    natsReady.delete(leader);
    publishEndpoints();
    p.c.signal('SIGKILL');
    await p.c.exited;
    running.delete(leader);
    await startNats(Number(leader.split('-').pop()), p.pod);
    return leader;
  }

  it('Issue 24 deployed (base): every request answered once through a rolling restart of every workload and a NATS node kill; nothing duplicated or lost, every run terminal, the chain verifies and its signed head continues', async () => {
    expect(workloads.map((w) => `${w.metadata.name}×${w.spec.replicas}`).sort()).toEqual(['audit-ledger×1', 'db-write×2', 'decision×2', 'export×2', 'intent-classification×2', 'promotion×2', 'tool-gateway×2']);
    expect(natsSet.spec.replicas).toBe(3);
    const admin = await as('runledger-admin', 'ADMIN_PASSWORD', '_INBOX_admin');
    const caller = await as('runledger-caller', 'CALLER_PASSWORD', '_INBOX_caller');
    const { replies, attempts, request, wrongAnswers } = taskRequests(caller, TAG);
    await request(0);
    type Head = { checkpoint: { seq: number } | null; key_id: string };
    const before: Head = await ask(admin, 'rl.audit.head');

    // Two callers keep requests coming while everything restarts and a NATS node dies.
    let stop = false;
    let sent = 1;
    let failed: unknown;
    const load = Promise.all([0, 1].map(async () => {
      while (!stop) await request(sent++);
    })).catch((err) => {
      failed = err;
      stop = true;
    });
    // n answers, or the load's failure as soon as it fails.
    const answered = (n: number) => Promise.race([
      waitUntil(() => replies.filter(Boolean).length >= n, { timeoutMs: 180_000 }),
      load.then(() => Promise.reject(failed ?? new Error('the load ended'))),
    ]);
    await answered(5);
    await Promise.all(workloads.map((w) => rollingRestart(w)));
    const killed = await killLogLeader(admin);
    await answered(replies.filter(Boolean).length + 4);
    stop = true;
    await load;
    if (failed) throw failed;

    // Every request answered, with the answer that matches what it asked, and one run each.
    expect(replies.length).toBe(sent);
    expect(wrongAnswers()).toEqual([]);
    expect(new Set(replies.map((r: { run_id: string }) => r.run_id)).size).toBe(sent);

    // What the log says: nothing duplicated at the tool (one agent run, tool call and write per request), nothing lost,
    // every run terminal (the resolver closes what nobody carries any more), the chain continuous.
    const progress = (line: string) => process.stderr.write(`[deployed] ${line}\n`);
    const counts = await checkWorkload(admin, replies, progress);
    progress(`${sent} requests (${attempts.filter((a: number) => a > 1).length} asked again after "taking longer"), NATS node killed: ${killed}; ${JSON.stringify(counts)}`);
    expect(counts).toMatchObject({ non_terminal: 0, lies: 0, duplicates: 0, lost: 0, coverage_violations: 0, chain_ok: true });

    // The ledger was replaced: its signed head continues, signed with the same key from the Secret.
    const after: Head = await ask(admin, 'rl.audit.head');
    expect(after.key_id).toBe(before.key_id);
    expect(after.checkpoint!.seq).toBeGreaterThan(before.checkpoint!.seq);
  });
  /**
   * Issue 24, scaling out on an existing engine: decision's ScaledObject (k8s/overlays/production/scaledobjects.yaml) on
   * this base, the test in KEDA's place (scripts/lib/deployed/scaler.js). A backlog builds on decision's inbox while
   * tool-gateway has no pod (its two pods stopped: a choke point down; no run can finish, so the lag holds still and
   * the count is exact); the lag is read as the trigger declares it (its stream, consumer, lagThreshold, from the NATS
   * monitoring endpoint of the consumer's leader) and the replicas computed as KEDA's HPA would; the new decision pods
   * start as the Deployment declares, then tool-gateway comes back. Who handled what is seen on the bus: the admin
   * listens to the runs' appends (a JetStream publish carries the reply inbox of the connection that made it) and
   * /connz says which pod's connection that inbox is. Nothing done twice: one agent run, tool call and write per request in the log, one task per request in
   * the store.
   */
  it('Issue 24 scale out on consumer lag: decision goes from 2 to the replicas its ScaledObject asks for, every instance handles part of the backlog, nothing is done twice', async () => {
    const scaled = objectNamed(renderOverlay('k8s/overlays/production'), 'ScaledObject', 'decision') as Obj;
    const trigger = scaled.spec.triggers.find((t: { type: string }) => t.type === 'nats-jetstream');
    const decision = workloads.find((w) => w.metadata.name === scaled.spec.scaleTargetRef.name)!;
    const gateway = workloads.find((w) => w.metadata.name === 'tool-gateway')!;
    const current = podsOf(decision).length;
    expect([current, decision.spec.replicas]).toEqual([scaled.spec.minReplicaCount, scaled.spec.minReplicaCount]);
    const port = trigger.metadata.natsServerMonitoringEndpoint.split(':').pop();
    const lagNow = () => jetStreamLag(trigger, [...natsIps.values()].map((ip) => `${ip}:${port}`));
    const admin = await as('runledger-admin', 'ADMIN_PASSWORD', '_INBOX_admin');
    const caller = await as('runledger-caller', 'CALLER_PASSWORD', '_INBOX_caller');
    // The cluster may still be electing after the last test's node kill: the keys' consumer is given time to be created.
    const tasks = await new Kvm(jetstream(admin, { timeout: 30_000 })).open('rl_doc_tasks');
    const taskCount = async () => { let n = 0; for await (const _ of await tasks.keys()) n++; return n; };
    const tasksBefore = await taskCount();
    // Idle first: the last test's requests may still be on their way out of decision's inbox on a busy machine (its
    // acks are what the lag counts); a backlog that never drains fails here.
    await waitUntil(async () => (await lagNow()).lag === 0, { timeoutMs: 120_000, intervalMs: 500 });

    // The bus, as the admin sees it: each run's completion appended by decision, with the reply inbox of the instance
    // that appended it (a JetStream publish is a request; the inbox is that instance's connection's).
    const completedBy = new Map<string, string>(); // run id → inbox token
    admin.subscribe('rl.log.run.decision.*', { callback: (_e, m) => {
      if (m.reply?.startsWith('_INBOX_decision.') && new TextDecoder().decode(m.data).includes('"RunCompleted"')) completedBy.set(m.subject.split('.').pop()!, m.reply.split('.')[1]);
    } });
    await admin.flush();

    // The backlog: enough requests that KEDA would ask for more than the two replicas (past the HPA's 10 % tolerance).
    const threshold = Number(trigger.metadata.lagThreshold);
    const n = Math.ceil(current * threshold * 1.25);
    await Promise.all(podsOf(gateway).map((p) => stopPod(p)));
    const load = taskRequests(caller, `${TAG}-scale`);
    let failed: unknown;
    const answered = Promise.all(Array.from({ length: n }, (_, i) => load.request(i))).catch((err) => { failed = err; });
    const { lag, leader } = await waitUntil(async () => { const r = await lagNow(); return r.lag >= n && r; }, { timeoutMs: 120_000, intervalMs: 500 });
    const desired = desiredReplicas(scaled, trigger, lag, current);
    process.stderr.write(`[deployed] ${trigger.metadata.consumer} lag ${lag} (leader ${leader}), lagThreshold ${threshold}: ${current} → ${desired} replicas\n`);
    expect(lag).toBe(n);
    expect(desired).toBe(Math.min(scaled.spec.maxReplicaCount, Math.ceil(n / threshold)));
    expect(desired).toBeGreaterThan(current);

    // Scale out as declared, then the choke point back at its replicas; the backlog drains.
    await Promise.all(Array.from({ length: desired - current }, () => startPod(decision, newPodName(decision))));
    await Promise.all(Array.from({ length: gateway.spec.replicas }, () => startPod(gateway, newPodName(gateway))));
    await answered;
    if (failed) throw failed;
    const wrong = load.wrongAnswers();
    if (wrong.length) process.stderr.write(`[deployed] ${await explainRuns(admin, wrong.slice(0, 3).map((w: string) => JSON.parse(w.slice(w.indexOf(' ') + 1)).run_id))}\n`);
    expect(wrong).toEqual([]);
    expect(new Set(load.replies.map((r: { run_id: string }) => r.run_id)).size).toBe(n);

    // Every instance handled part of the backlog: completed some of its runs (the inbox each completion came from,
    // and /connz: whose connection subscribes to that inbox).
    const podOfInbox = new Map<string, string>();
    for (const ip of natsIps.values()) {
      const connz = (await (await fetch(`http://${ip}:${port}/connz?subs=1&limit=1024`)).json()) as { connections?: Array<{ ip: string; subscriptions_list?: string[] }> };
      for (const c of connz.connections ?? []) {
        const pod = [...running].find(([, r]) => r.pod.ip === c.ip)?.[0];
        for (const sub of c.subscriptions_list ?? []) if (pod && sub.startsWith('_INBOX_decision.')) podOfInbox.set(sub.split('.')[1], pod);
      }
    }
    const handled = new Map<string, number>();
    for (const r of load.replies as Array<{ run_id: string }>) {
      const token = completedBy.get(r.run_id);
      const pod = token === undefined ? 'completion not seen' : podOfInbox.get(token) ?? `inbox ${token}`;
      handled.set(pod, (handled.get(pod) ?? 0) + 1);
    }
    process.stderr.write(`[deployed] runs completed per decision pod: ${JSON.stringify(Object.fromEntries(handled))}\n`);
    expect(podsOf(decision)).toHaveLength(desired);
    expect(podsOf(decision).filter((p) => !handled.get(p))).toEqual([]);
    expect([...handled.keys()].filter((p) => !podsOf(decision).includes(p))).toEqual([]);

    // Nothing done twice: the log (one run, tool call and write per request, chain OK) and the store (one task each).
    const counts = await checkWorkload(admin, load.replies, (line: string) => process.stderr.write(`[deployed] ${line}\n`));
    expect(counts).toMatchObject({ non_terminal: 0, lies: 0, duplicates: 0, lost: 0, coverage_violations: 0, chain_ok: true });
    expect((await taskCount()) - tasksBefore).toBe(n);
  });
});
