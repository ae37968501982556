import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, nkeyAuthenticator, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node';
import { freePort, tempDir, waitUntil } from './helpers';
import { TEST_ADMIN, type TestIdentity } from './nats-server';
import { trackChild } from './reaper';

// The launcher's own way of starting a JetStream cluster node (the fault suite's --cluster uses it too).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const stack = require('../../../scripts/lib/stack.js') as {
  startNats(opts: Record<string, unknown>): Promise<{ child: ChildProcess; url: string; creds: Record<string, TestIdentity> }>;
  stopProcess(child: unknown, signal?: string): Promise<void>;
};

/** A JetStream cluster of nats-server children on loopback, owned by the current test file. */
export interface NatsClusterHandle {
  /** `nats://127.0.0.1:PORT` of each node, in node order. */
  readonly urls: readonly string[];
  /** One `test-admin` connection to each node: writers on different nodes reach a stream leader by different routes. */
  readonly conns: readonly NatsConnection[];
  /** Credentials of every identity of deploy/nats/permissions.yaml, plus `test-admin` (full rights). */
  readonly creds: Readonly<Record<string, TestIdentity>>;
  /** Options to connect to node `node` as `identity` (default `test-admin`). */
  connectOptions(node: number, identity?: string): Partial<ConnectionOptions> & { servers: string };
  /** Closes the connections, stops every node and removes their stores. */
  stop(): Promise<void>;
}

/**
 * Starts an `size`-node JetStream cluster (the configuration npm start and the fault suite render, each node its own
 * server name and routes to the others) and resolves once its JetStream can create a stream replicated on every node:
 * a cluster still electing its meta leader refuses stream creation for a while.
 */
export async function startNatsCluster(size = 3, opts: { readyTimeoutMs?: number } = {}): Promise<NatsClusterHandle> {
  const readyTimeoutMs = opts.readyTimeoutMs ?? 120_000;
  const store = await tempDir('runledger-cluster-');
  const nodes: ChildProcess[] = [];
  const conns: NatsConnection[] = [];
  const stop = async () => {
    await Promise.all(conns.map((c) => c.close().catch(() => undefined)));
    await Promise.all(nodes.map((child) => stack.stopProcess(child)));
    await store.remove();
  };
  try {
    const ports = await Promise.all(Array.from({ length: 2 * size }, () => freePort()));
    const routes = ports.slice(size);
    const started = await Promise.all(Array.from({ length: size }, async (_, i) => {
      const node = await stack.startNats({
        port: ports[i],
        storeDir: join(store.path, `n${i + 1}`),
        credsDir: join(store.path, 'credentials'),
        fullRights: [TEST_ADMIN],
        readyTimeoutMs: 60_000,
        cluster: { name: 'runledger', serverName: `n${i + 1}`, port: routes[i], routes: routes.filter((_, j) => j !== i) },
      });
      trackChild(node.child); // killed if this process exits before stop()
      nodes.push(node.child);
      return node;
    }));
    const creds = started[0].creds;
    const urls = started.map((n) => n.url);
    const connectOptions = (node: number, identity = TEST_ADMIN) => {
      const id = creds[identity];
      if (!id || !urls[node]) throw new Error(`no node ${node} or identity "${identity}" in this cluster`);
      const seed = new TextEncoder().encode(readFileSync(id.file, 'utf8').trim());
      return { servers: urls[node], authenticator: nkeyAuthenticator(seed), inboxPrefix: id.inboxPrefix };
    };
    for (let i = 0; i < size; i++) conns.push(await connect(connectOptions(i)));
    const probe = { name: 'CLUSTER_READY_PROBE', subjects: ['cluster.ready.probe'], num_replicas: size };
    // Even opening a manager asks the meta leader (account info): "JetStream system temporarily unavailable" until then.
    const jsm = await waitUntil(async () => {
      const manager = await jetstreamManager(conns[0]);
      await manager.streams.add(probe);
      return manager;
    }, { timeoutMs: readyTimeoutMs, intervalMs: 500, description: `a ${size}-node JetStream cluster` });
    await jsm.streams.delete(probe.name);
    return { urls, conns, creds, connectOptions, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
