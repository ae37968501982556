import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { EventLog, LOG_STREAM } from '@runledger/event-log';
import { RunRepository } from '@runledger/runs';
import { decodeReply, encodeJson } from '@runledger/messaging';
import { tempDir, waitUntil, type TempDir } from '@runledger/testing';

/* eslint-disable @typescript-eslint/no-require-imports */
const { renderOverlay, objectNamed, entriesOf } = require('../scripts/lib/deployed/manifests.js');
const { ClusterNetwork, startContainer, untilProbe } = require('../scripts/lib/deployed/sandbox.js');
/* eslint-enable @typescript-eslint/no-require-imports */

jest.setTimeout(300_000);

type Obj = { kind: string; metadata: { name: string; namespace?: string }; spec: any; data?: Record<string, string> };
type Running = { name: string; exited: Promise<{ code: number | null }>; output(): string; stop(): Promise<unknown>; signal(s: string): void; child: { exitCode: number | null } };

/**
 * Issue 24, the ledger as shipped: the dev overlay rendered by kubectl's kustomize, and its NATS StatefulSet, bootstrap
 * Job and audit-ledger StatefulSet started as they declare (scripts/lib/deployed: bwrap, read-only root, only declared
 * volumes writable, declared user, env, Secrets and ConfigMaps as files, probes at their declared paths and periods).
 * Deviations, each forced by this machine: nats-server is 2.9 (the image's 2.10), so the rendered config's 2.10-only
 * `sync_interval` line is left out; the init container (nats-box's `nats stream info`) is the same check made here as
 * the ledger's user.
 */
describe('Issue 24 the ledger as shipped (dev overlay, containers run as declared)', () => {
  const objects: Obj[] = renderOverlay('k8s/overlays/dev');
  const ns = 'runledger';
  let dir: TempDir;
  let network: any;
  let nats: Running | undefined;
  let ledger: Running | undefined;
  const conns: NatsConnection[] = [];
  const password = (key: string) => entriesOf(objectNamed(objects, 'Secret', 'runledger-nats-auth'))[key].toString();
  const as = async (user: string, key: string, inbox: string) => {
    const nc = await connect({ servers: `nats://${network.ip}:4222`, user, pass: password(key), inboxPrefix: inbox, timeout: 10_000 });
    conns.push(nc);
    return nc;
  };
  const podOf = (set: Obj, ordinal: number, claims: Record<string, string>) => ({ name: `${set.metadata.name}-${ordinal}`, namespace: ns, spec: set.spec.template.spec, claims });

  const ledgerSet = objectNamed(objects, 'StatefulSet', 'audit-ledger') as Obj;
  const ledgerContainer = ledgerSet.spec.template.spec.containers[0];
  let headClaim: string;

  async function startLedger(rendered: Obj[] = objects): Promise<Running> {
    const pod = podOf(ledgerSet, 0, { 'audit-head': headClaim });
    const running: Running = startContainer({ network, objects: rendered, pod, container: ledgerContainer });
    await untilProbe(network, ledgerContainer, ledgerContainer.startupProbe, running);
    await untilProbe(network, ledgerContainer, ledgerContainer.readinessProbe, running);
    return running;
  }

  beforeAll(async () => {
    dir = await tempDir('runledger-deployed-ledger-');
    network = await ClusterNetwork.create(['runledger-nats', `runledger-nats.${ns}.svc`, 'runledger-nats-0.runledger-nats-headless']);
    // NATS: the StatefulSet's one pod (dev), its data claim a directory that outlives the container.
    const natsSet = objectNamed(objects, 'StatefulSet', 'runledger-nats') as Obj;
    const natsContainer = natsSet.spec.template.spec.containers[0];
    const conf = entriesOf(objectNamed(objects, 'ConfigMap', 'runledger-nats-config'))['nats.conf'].toString();
    const conf29 = conf.replace(/^\s*sync_interval:\s*always\s*$/m, '');
    expect(conf29).not.toBe(conf);
    nats = startContainer({
      network, objects, pod: podOf(natsSet, 0, { data: join(dir.path, 'nats-data-0') }), container: natsContainer,
      image: { workdir: '/', env: {}, user: null, cmd: null, entrypoint: null, root: null },
      substitute: { '/etc/nats/config/nats.conf': Buffer.from(conf29) },
    });
    await untilProbe(network, natsContainer, natsContainer.startupProbe, nats);
    // The bootstrap Job, restarted on failure up to its backoffLimit (restartPolicy OnFailure).
    const job = objectNamed(objects, 'Job', 'runledger-log-stream-bootstrap') as Obj;
    let attempts = 0;
    for (;;) {
      const run: Running = startContainer({ network, objects, pod: { name: `${job.metadata.name}-0`, namespace: ns, spec: job.spec.template.spec }, container: job.spec.template.spec.containers[0] });
      const { code } = await run.exited;
      if (code === 0) break;
      if (++attempts > job.spec.backoffLimit) throw new Error(`bootstrap Job failed ${attempts} times:\n${run.output()}`);
    }
    // What the init container wait-for-log-stream waits for, asked as the ledger's user.
    const ledgerNc = await as('runledger-audit-ledger', 'AUDIT_LEDGER_PASSWORD', '_INBOX_audit-ledger');
    expect((await (await jetstreamManager(ledgerNc)).streams.info(LOG_STREAM)).config.name).toBe(LOG_STREAM);
    headClaim = join(dir.path, 'audit-head-audit-ledger-0');
  });

  afterAll(async () => {
    for (const nc of conns) await nc.close().catch(() => undefined);
    await ledger?.stop();
    await nats?.stop();
    network?.close();
    await dir?.remove();
  });

  it('Issue 24 the ledger as shipped: one chain writer (a StatefulSet of one, its head volume ReadWriteOncePod, a PDB), its key from the Secret, its head on its volume', () => {
    expect(objects.filter((o) => o.kind === 'Deployment' && o.metadata.name === 'audit-ledger')).toHaveLength(0);
    expect(ledgerSet.spec.replicas).toBe(1);
    expect(ledgerSet.spec.volumeClaimTemplates.map((c: any) => [c.metadata.name, c.spec.accessModes])).toEqual([['audit-head', ['ReadWriteOncePod']]]);
    expect(objectNamed(objects, 'PodDisruptionBudget', 'audit-ledger').spec.selector.matchLabels).toEqual(ledgerSet.spec.selector.matchLabels);
    const env = Object.fromEntries(ledgerContainer.env.map((e: any) => [e.name, e.value]));
    const mounts = Object.fromEntries(ledgerContainer.volumeMounts.map((m: any) => [m.name, m]));
    expect(env.RL_AUDIT_KEY_FILE.startsWith(mounts['audit-key'].mountPath + '/')).toBe(true);
    expect(mounts['audit-key'].readOnly).toBe(true);
    expect(env.RL_AUDIT_HEAD_DIR.startsWith(mounts['audit-head'].mountPath + '/')).toBe(true);
    expect(ledgerContainer.securityContext.readOnlyRootFilesystem).toBe(true);
    // Issue 22: its durable is pulled and acked as its consumer identity, a user of its own in the Secret.
    expect(env).toMatchObject({ NATS_CONSUMER_USER: 'runledger-audit-ledger-consumer', NATS_CONSUMER_INBOX_PREFIX: '_INBOX_audit-ledger-consumer' });
    expect(ledgerContainer.env.find((e: any) => e.name === 'NATS_CONSUMER_PASSWORD').valueFrom.secretKeyRef.key).toBe('AUDIT_LEDGER_CONSUMER_PASSWORD');
  });

  it('Issue 24 the ledger as shipped: it starts read-only with the Secret\'s key, signs, its signed head continues across a restart and across a key rotation', async () => {
    const operator = await as('runledger-operator', 'OPERATOR_PASSWORD', '_INBOX_operator');
    const ask = async <T>(subject: string): Promise<T> => {
      const msg = await operator.request(subject, encodeJson({}), { timeout: 20_000 });
      const reply = decodeReply(msg.data, msg.headers);
      if (!reply.ok) throw new Error(`${subject}: ${JSON.stringify(reply.error)}`);
      return reply.body as T;
    };
    const admin = await as('runledger-admin', 'ADMIN_PASSWORD', '_INBOX_admin');
    // Written as decision writes its runs (producer and subject), so the ledger chains lawful runs.
    const log = new EventLog(jetstream(admin), await jetstreamManager(admin), { producer: 'decision', clock: { now: () => new Date() } });
    // A lawful run, then its end: two events to chain.
    const runs = new RunRepository(log);
    const appendRun = async () => {
      const runId = randomUUID();
      const versions = { lanes: 'deployed', roles: 'deployed' };
      await runs.append({ run_id: runId, root_run_id: runId, run_kind: 'agent' }, [
        { type: 'RunCreated', data: { run_id: runId, run_kind: 'agent', agent_name: 'TASK_AGENT', root_run_id: runId, contract_version: 'v1', policy_versions: versions, input_artifacts: [], parameters: {}, request_hash_sha256: '0'.repeat(64) } },
        { type: 'RunCancelled', data: { run_id: runId, reason: 'issue 24 deployed ledger' } },
      ], { expectedVersion: 0, commandId: `issue24:${runId}` });
    };
    type Head = { checkpoint: { seq: number; key_id: string; entry_hash: string } | null; key_id: string; public_key_pem: string };
    const secretPub = entriesOf(objectNamed(objects, 'Secret', 'runledger-audit-key'))['signing-key.pub.pem'].toString();

    ledger = await startLedger();
    for (let i = 0; i < 3; i++) await appendRun();
    const first = await waitUntil(async () => { const h = await ask<Head>('rl.audit.head'); return (h.checkpoint?.seq ?? 0) >= 3 ? h : null; }, { timeoutMs: 60_000, intervalMs: 200, description: 'the ledger chains three events' });
    // Signed with the key the Secret holds, not one made in the pod.
    expect(first.public_key_pem).toBe(secretPub);
    expect(first.checkpoint!.key_id).toBe(first.key_id);
    // Issue 22: chained through the durable the bootstrap Job made ack-all, which only runledger-audit-ledger-consumer may pull and ack.
    expect((await (await jetstreamManager(admin)).consumers.info(LOG_STREAM, 'audit-ledger')).config.ack_policy).toBe('all');

    // A clean stop (SIGTERM, as a rolling update) leaves the head on the volume, nowhere else.
    await ledger.stop();
    ledger = undefined;
    const heads = readdirSync(join(headClaim, 'heads'));
    expect(heads).toEqual([`${LOG_STREAM}.json`]);
    const anchored = JSON.parse(readFileSync(join(headClaim, 'heads', heads[0]), 'utf8'));
    expect(anchored.checkpoint.seq).toBe(first.checkpoint!.seq);

    // The replacement pod: same Secret, same volume; it builds on the signed head instead of refusing it.
    ledger = await startLedger();
    for (let i = 0; i < 2; i++) await appendRun();
    const second = await waitUntil(async () => { const h = await ask<Head>('rl.audit.head'); return (h.checkpoint?.seq ?? 0) >= first.checkpoint!.seq + 2 ? h : null; }, { timeoutMs: 60_000, intervalMs: 200, description: 'the restarted ledger chains two more' });
    expect(second.key_id).toBe(first.key_id);
    const verdict = await ask<{ ok: boolean; length: number; reason?: string }>('rl.audit.verify');
    expect(verdict).toMatchObject({ ok: true });
    expect(verdict.length).toBeGreaterThanOrEqual(5);

    // Key rotation as k8s/README.md says: a new key in the Secret, the old public key kept as retired-keys.pub.pem,
    // a rolling restart. The new pod builds on the old key's signed head and signs on with the new key.
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const rotated = objects.map((o) => o.kind === 'Secret' && o.metadata.name.startsWith('runledger-audit-key-')
      ? { ...o, data: {
        'signing-key.pem': Buffer.from(privateKey.export({ type: 'pkcs8', format: 'pem' })).toString('base64'),
        'signing-key.pub.pem': Buffer.from(publicKey.export({ type: 'spki', format: 'pem' })).toString('base64'),
        'retired-keys.pub.pem': Buffer.from(secretPub).toString('base64'),
      } }
      : o);
    await ledger.stop();
    ledger = await startLedger(rotated);
    await appendRun();
    const third = await waitUntil(async () => { const h = await ask<Head>('rl.audit.head'); return (h.checkpoint?.seq ?? 0) > second.checkpoint!.seq ? h : null; }, { timeoutMs: 60_000, intervalMs: 200, description: 'the ledger chains with its new key' });
    expect(third.key_id).not.toBe(first.key_id);
    expect(third.checkpoint!.key_id).toBe(third.key_id);
    expect(await ask<{ ok: boolean }>('rl.audit.verify')).toMatchObject({ ok: true });
  });
});
