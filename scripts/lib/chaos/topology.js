/**
 * The fault suite's stack: one nats-server, or a three-node JetStream cluster on loopback (log and buckets with three
 * replicas), and the services (one instance each, or two with --cluster), with ways to SIGKILL and restart any of
 * them. Every wait is bounded and says what it waited for.
 */
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { ensureNatsServerBinary, freePort, startNats, runBootstrap, startService, stopProcess } = require('../stack');

const SERVICES = ['intent-classification', 'db-write', 'tool-gateway', 'audit-ledger', 'decision'];

/** Whether the nats-server binary is at least major.minor (`nats-server --version`). */
function serverAtLeast(major, minor) {
  const out = spawnSync(ensureNatsServerBinary(), ['--version'], { encoding: 'utf8' }).stdout ?? '';
  const m = /v(\d+)\.(\d+)/.exec(out);
  return Boolean(m) && (Number(m[1]) > major || (Number(m[1]) === major && Number(m[2]) >= minor));
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

class Topology {
  /**
   * @param {{ store: string, cluster: boolean, env: Record<string, string>, readyWaitMs: number, progress: (line: string) => void, random: () => number }} opts
   */
  constructor(opts) {
    this.opts = opts;
    this.nodes = [];
    this.instances = new Map();
    /** Service processes that exited without being killed by the suite. */
    this.crashed = 0;
    this.stopping = false;
    this.logsDir = path.join(opts.store, 'logs');
    fs.mkdirSync(this.logsDir, { recursive: true });
  }

  /** Replicas of the log, buckets and object stores. */
  get replicas() {
    return this.opts.cluster ? 3 : 1;
  }

  /** Every node's client URL (clients fail over between them). */
  get natsUrl() {
    return this.nodes.map((n) => n.url).join(',');
  }

  get creds() {
    return this.nodes[0].handle.creds;
  }

  async start() {
    const count = this.opts.cluster ? 3 : 1;
    const syncAlways = this.opts.cluster && serverAtLeast(2, 10);
    if (this.opts.cluster && !syncAlways) {
      this.opts.progress('nats-server before 2.10 has no sync_interval: a SIGKILLed node loses what it had not fsynced, and its log can then differ from its peers\' (use >= 2.10, as k8s/ does)');
    }
    const ports = await Promise.all(Array.from({ length: count * 2 }, freePort));
    this.nodes = Array.from({ length: count }, (_, i) => ({
      name: `n${i + 1}`,
      url: `nats://127.0.0.1:${ports[i]}`,
      natsOpts: {
        port: ports[i],
        storeDir: path.join(this.opts.store, `nats-n${i + 1}`),
        credsDir: path.join(this.opts.store, 'credentials'),
        logFile: path.join(this.logsDir, `nats-n${i + 1}.log`),
        readyTimeoutMs: 60_000,
        ...(this.opts.cluster ? { cluster: { name: 'runledger', serverName: `n${i + 1}`, port: ports[count + i], routes: ports.slice(count).filter((_, j) => j !== i), syncAlways } } : {}),
      },
    }));
    await Promise.all(this.nodes.map(async (n) => (n.handle = await startNats(n.natsOpts))));
    await this.bootstrap();
    const names = SERVICES.flatMap((s) => (this.opts.cluster ? [`${s}#1`, `${s}#2`] : [`${s}#1`]));
    await Promise.all(names.map((n) => this.startInstance(n)));
  }

  /** The admin's bootstrap; a cluster still electing its JetStream leader refuses it for a while: ask again, bounded. */
  async bootstrap() {
    const env = { RL_LOG_REPLICAS: String(this.replicas), RL_KV_REPLICAS: String(this.replicas) };
    const deadline = Date.now() + 120_000;
    for (;;) {
      try {
        return await runBootstrap({ natsUrl: this.natsUrl, creds: this.creds, env });
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`bootstrap did not succeed within 120 s: ${err.message}`);
        await sleep(2_000);
      }
    }
  }

  /** Starts one instance ("db-write#2"); a start that never reports ready is retried, then reported, never awaited forever. */
  async startInstance(instance, attempt = 1) {
    const name = instance.split('#')[0];
    const out = fs.createWriteStream(path.join(this.logsDir, `${instance}.log`), { flags: 'a' });
    const stamp = () => new Date().toISOString();
    // Instances of one service spread their first connection over the nodes (they fail over to the others).
    const k = Number(instance.split('#')[1]) - 1;
    const urls = this.nodes.map((n) => n.url);
    const natsUrl = [...urls.slice(k % urls.length), ...urls.slice(0, k % urls.length)].join(',');
    // The ledger's key and anchor in this run's store, not the shared .data folder (the anchor is per stream name: the
    // next `npm start` would read its log as replaced).
    const env = { RL_AUDIT_KEY_FILE: path.join(this.opts.store, 'audit', 'signing-key.pem'), ...this.opts.env, RL_LOG_REPLICAS: String(this.replicas) };
    const p = startService(name, { natsUrl, creds: this.creds, env, onLine: (_s, line) => out.write(`${stamp()} ${line}\n`) });
    p.child.once('exit', (code, signal) => {
      out.write(`${stamp()} exited code=${code} signal=${signal}\n`);
      // Not killed by the suite: a crash of its own is a finding (counted); the instance is started again at once.
      if (p.killedBySuite || this.stopping) return;
      this.crashed++;
      this.opts.progress(`${instance} exited on its own (code ${code}, signal ${signal}): starting it again; see ${instance}.log`);
      void this.startInstance(instance);
    });
    this.instances.set(instance, p);
    let timer;
    const ready = await Promise.race([
      p.ready.then(() => true, (err) => (this.opts.progress(`${instance}: ${err.message}`), false)),
      new Promise((r) => (timer = setTimeout(() => r(false), this.opts.readyWaitMs))),
    ]).finally(() => clearTimeout(timer));
    if (!ready) this.opts.progress(`${instance} not ready (attempt ${attempt}, waited at most ${this.opts.readyWaitMs / 1000} s)`);
    if (ready || attempt >= 3) return;
    p.killedBySuite = true;
    await stopProcess(p.child, 'SIGKILL');
    await this.startInstance(instance, attempt + 1);
  }

  /** SIGKILLs one instance of a random service and starts it again; returns what it killed. */
  async killService() {
    const names = [...this.instances.keys()];
    const victim = names[Math.floor(this.opts.random() * names.length)];
    this.opts.progress(`SIGKILL ${victim}`);
    const p = this.instances.get(victim);
    p.killedBySuite = true;
    await stopProcess(p.child, 'SIGKILL');
    await this.startInstance(victim);
    return victim;
  }

  /** SIGKILLs one nats-server (a random node of the cluster) and starts it again on the same store. */
  async killNats() {
    const node = this.nodes[Math.floor(this.opts.random() * this.nodes.length)];
    this.opts.progress(`SIGKILL nats-server ${node.name}`);
    await stopProcess(node.handle.child, 'SIGKILL');
    node.handle = await startNats(node.natsOpts);
    return node.name;
  }

  async stop() {
    this.stopping = true;
    await Promise.all([...this.instances.values()].map((p) => stopProcess(p.child)));
    await Promise.all(this.nodes.filter((n) => n.handle).map((n) => stopProcess(n.handle.child)));
  }
}

module.exports = { Topology, SERVICES };
