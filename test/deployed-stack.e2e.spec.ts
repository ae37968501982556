import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { EventLog, LOG_STREAM } from '@runledger/event-log';
import { decodeReply, encodeJson } from '@runledger/messaging';
import { deterministicUuid } from '@runledger/kernel';
import { sleep, tempDir, waitUntil, type TempDir } from '@runledger/testing';

/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
const { renderOverlay, objectNamed, entriesOf } = require('../scripts/lib/deployed/manifests.js');
const { ClusterNetwork, startContainer, untilProbe } = require('../scripts/lib/deployed/sandbox.js');
const { settle, resolveLeftOpen, checkLog, checkAudit } = require('../scripts/lib/chaos/checks.js');

jest.setTimeout(600_000);

type Obj = { kind: string; metadata: { name: string; labels?: Record<string, string> }; spec: any; data?: Record<string, string> };
type Running = { name: string; exited: Promise<{ code: number | null; signal: string | null }>; output(): string; stop(graceMs?: number): Promise<unknown>; signal(s: string): void; child: { exitCode: number | null } };
type Pod = { name: string; ip: string; net: string; hosts: string; close(): void };

const NS = 'runledger';
const TAG = `deployed-${randomBytes(3).toString('hex')}`;
const item = (i: number) => `${TAG} item ${i}`;
const expected = (i: number) => `I've added '${item(i)}' to your tasks.`;

/**
 * The Secrets the base does not ship, created as k8s/README.md says (here with throwaway values): a password per NATS
 * user, the ledger's Ed25519 key, and MONGO_URL empty (documents in NATS KV: no MongoDB on this machine).
 */
function secretsOfTheApplyOrder(): Obj[] {
  const secret = (name: string, entries: Record<string, string>): Obj => ({
    kind: 'Secret', metadata: { name }, spec: undefined,
    data: Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  });
  const ids = ['AUDIT_LEDGER', 'DB_WRITE', 'DECISION', 'EXPORT', 'INTENT_CLASSIFICATION', 'PROMOTION', 'TOOL_GATEWAY', 'CALLER', 'OPERATOR', 'ADMIN', 'SYS'];
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
    const ask = async <T>(subject: string, body: unknown = {}): Promise<T> => {
      const msg = await admin.request(subject, encodeJson(body), { timeout: 60_000 });
      const reply = decodeReply(msg.data, msg.headers);
      if (!reply.ok) throw new Error(`${subject}: ${JSON.stringify(reply.error)}`);
      return reply.body as T;
    };

    const replies: Array<{ run_id: string; response_text: string } | undefined> = [];
    const attempts: number[] = [];
    /**
     * One request as @runledger/client makes it: the same request_id on every attempt, asked again when no reply came
     * in time (a lost reply), nobody served it yet, or the reply says "taking longer" (the run goes on; the same
     * request_id joins it), until the final answer.
     */
    const request = async (i: number) => {
      const body = encodeJson({ user_id: `${TAG}-user-${i}`, conversation_id: deterministicUuid(TAG, 'conversation', String(i)), request_id: `${TAG}-req-${i}`, message: `add task ${item(i)}` });
      for (attempts[i] = 1; attempts[i] <= 8; attempts[i]++) {
        const msg = await caller.request('agents.task-assistant.process', body, { timeout: 30_000 }).catch((err: Error) => {
          if (!/timeout|no responders/i.test(err.message)) throw err;
          return null;
        });
        const reply = msg && decodeReply(msg.data, msg.headers);
        if (reply && !reply.ok && !reply.error.retryable) throw new Error(`request ${i}: ${JSON.stringify(reply.error)}`);
        const answer = reply?.ok ? (reply.body as { run_id: string; response_text: string }) : null;
        if (answer && !/taking longer/.test(answer.response_text ?? '')) return void (replies[i] = answer);
        await sleep(Math.min(5_000, 250 * 2 ** attempts[i])); // the client's backoff, not a condition
      }
      throw new Error(`request ${i}: no final answer in ${attempts[i] - 1} attempts`);
    };
    await request(0);
    type Head = { checkpoint: { seq: number } | null; key_id: string };
    const before = await ask<Head>('rl.audit.head');

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
    expect(replies.map((r, i) => (r?.response_text === expected(i) ? 'ok' : `${i}: ${JSON.stringify(r)}`)).filter((x) => x !== 'ok')).toEqual([]);
    expect(new Set(replies.map((r) => r!.run_id)).size).toBe(sent);

    // What the log says: nothing duplicated at the tool (one agent run, tool call and write per request), nothing lost,
    // every run terminal (the resolver closes what nobody carries any more), the chain continuous.
    const progress = (line: string) => process.stderr.write(`[deployed] ${line}\n`);
    const jsm = await jetstreamManager(admin);
    const log = new EventLog(jetstream(admin), jsm, { producer: 'deployed-test', clock: { now: () => new Date() } });
    await settle(jsm, progress);
    const leftOpen = await resolveLeftOpen(admin, log, new Set(replies.map((r) => r!.run_id)), progress);
    await settle(jsm, progress);
    const counts = { ...leftOpen, ...(await checkLog(log, replies)), ...(await checkAudit(admin, progress)) };
    progress(`${sent} requests (${attempts.filter((a) => a > 1).length} asked again after "taking longer"), NATS node killed: ${killed}; ${JSON.stringify(counts)}`);
    expect(counts).toMatchObject({ non_terminal: 0, lies: 0, duplicates: 0, lost: 0, coverage_violations: 0, chain_ok: true });

    // The ledger was replaced: its signed head continues, signed with the same key from the Secret.
    const after = await ask<Head>('rl.audit.head');
    expect(after.key_id).toBe(before.key_id);
    expect(after.checkpoint!.seq).toBeGreaterThan(before.checkpoint!.seq);
  });
});
