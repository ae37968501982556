'use strict';
/**
 * Containers started as their manifests declare them, without a container runtime: each is a bubblewrap (`bwrap`)
 * sandbox with a read-only root (the host's, standing in for the image's base layer, and the repository bound read-only
 * at the image's WORKDIR, where the image has its dist/, node_modules/, policy/ …), only the declared volumes writable
 * (emptyDir: a fresh tmpfs; a PersistentVolumeClaim: a directory that outlives the container), ConfigMaps and Secrets
 * mounted read-only as files (Secrets 0440 under a pod fsGroup, as the kubelet makes them), the declared user and
 * group, its env (literals, ConfigMap and Secret references, fieldRefs) over the image's ENV, its command and args over
 * the image's ENTRYPOINT/CMD, and Service names resolving (/etc/hosts) inside one network namespace: the "cluster
 * network", reachable from the host through a veth pair. Needs root (network namespace) and bwrap.
 */
const { execFileSync, spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { ROOT, entriesOf, imageFacts, objectNamed } = require('./manifests');

/** One network namespace for every pod; the host reaches it at `ip` (the namespace's side of a veth pair). */
class ClusterNetwork {
  static async create(hostnames) {
    const holder = spawn('unshare', ['--net', '--fork', '--', 'cat'], { stdio: ['pipe', 'ignore', 'inherit'] });
    await new Promise((resolve, reject) => { holder.once('spawn', resolve); holder.once('error', reject); });
    // `unshare --fork` runs cat as its child: the namespace is the child's.
    const pid = await waitForChild(holder.pid);
    const net = `/proc/${pid}/ns/net`;
    const n = 1 + (randomBytes(1)[0] % 250);
    const suffix = randomBytes(3).toString('hex');
    const [hostIf, nsIf] = [`rlh${suffix}`, `rln${suffix}`];
    const hostIp = `10.213.${n}.1`;
    const ip = `10.213.${n}.2`;
    const sh = (args, inNs = false) => execFileSync(inNs ? 'nsenter' : 'ip', inNs ? [`--net=${net}`, 'ip', ...args] : args, { stdio: ['ignore', 'ignore', 'pipe'] });
    sh(['link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf]);
    sh(['link', 'set', nsIf, 'netns', String(pid)]);
    sh(['addr', 'add', `${hostIp}/30`, 'dev', hostIf]);
    sh(['link', 'set', hostIf, 'up']);
    sh(['link', 'set', 'lo', 'up'], true);
    sh(['addr', 'add', `${ip}/30`, 'dev', nsIf], true);
    sh(['link', 'set', nsIf, 'up'], true);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'rl-cluster-'));
    const hosts = path.join(dir, 'hosts');
    writeFileSync(hosts, `127.0.0.1 localhost\n${ip} ${hostnames.join(' ')}\n`);
    return new ClusterNetwork(holder, net, ip, hosts, dir, hostIf, hostIp);
  }

  /** `hostIp`: the host's side of the veth pair (a server the test runs there is reachable from every pod). */
  constructor(holder, net, ip, hosts, dir, hostIf, hostIp) {
    Object.assign(this, { holder, net, ip, hosts, dir, hostIf, hostIp });
  }

  /**
   * A pod of its own network namespace (its own loopback and ports, as a pod has), on a bridge in the cluster
   * namespace that routes to the host. Returns a network for startContainer: { net, ip, hosts, close }.
   */
  async pod(name) {
    this.pods ??= 0;
    // The pods' subnet, as the cluster network's own, is this network's (another suite's network, run at the same time
    // on this machine, routes its own).
    const subnet = `10.215.${this.ip.split('.')[2]}`;
    if (this.pods === 0) {
      const inNs = (...args) => execFileSync('nsenter', [`--net=${this.net}`, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
      inNs('ip', 'link', 'add', 'rlbr0', 'type', 'bridge');
      inNs('ip', 'addr', 'add', `${subnet}.1/24`, 'dev', 'rlbr0');
      inNs('ip', 'link', 'set', 'rlbr0', 'up');
      inNs('sh', '-c', 'echo 1 > /proc/sys/net/ipv4/ip_forward');
      execFileSync('ip', ['route', 'replace', `${subnet}.0/24`, 'via', this.ip, 'dev', this.hostIf], { stdio: ['ignore', 'ignore', 'pipe'] });
      this.podRoute = `${subnet}.0/24`;
    }
    const k = ++this.pods;
    const holder = spawn('unshare', ['--net', '--fork', '--', 'cat'], { stdio: ['pipe', 'ignore', 'inherit'] });
    await new Promise((resolve, reject) => { holder.once('spawn', resolve); holder.once('error', reject); });
    const pid = await waitForChild(holder.pid);
    const net = `/proc/${pid}/ns/net`;
    const ip = `${subnet}.${10 + k}`;
    const inCluster = (...args) => execFileSync('nsenter', [`--net=${this.net}`, 'ip', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    const inPod = (...args) => execFileSync('nsenter', [`--net=${net}`, 'ip', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    inCluster('link', 'add', `rlp${k}`, 'type', 'veth', 'peer', 'name', `rle${k}`);
    inCluster('link', 'set', `rle${k}`, 'netns', String(pid));
    inCluster('link', 'set', `rlp${k}`, 'master', 'rlbr0');
    inCluster('link', 'set', `rlp${k}`, 'up');
    inPod('link', 'set', 'lo', 'up');
    inPod('addr', 'add', `${ip}/24`, 'dev', `rle${k}`);
    inPod('link', 'set', `rle${k}`, 'up');
    inPod('route', 'add', 'default', 'via', `${subnet}.1`);
    return { name, net, ip, hosts: this.hosts, close: () => holder.stdin.end() };
  }

  /** Names (Services, pods) resolving to addresses, as cluster DNS would: the shared /etc/hosts of every pod. */
  setHosts(entries) {
    writeFileSync(this.hosts, `127.0.0.1 localhost\n${entries.map(([ip, names]) => `${ip} ${names.join(' ')}`).join('\n')}\n`);
  }

  close() {
    if (this.podRoute) try { execFileSync('ip', ['route', 'del', this.podRoute], { stdio: 'ignore' }); } catch { /* none */ }
    try { execFileSync('ip', ['link', 'del', this.hostIf], { stdio: 'ignore' }); } catch { /* went with the namespace */ }
    this.holder.stdin.end();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function waitForChild(pid) {
  for (;;) {
    try {
      const kids = require('node:fs').readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
      if (kids) return Number(kids.split(/\s+/)[0]);
    } catch { /* not yet */ }
    await new Promise((r) => setImmediate(r));
  }
}

/** The value of a container's env entry (literal, ConfigMap/Secret key, or the pod's own fields). */
function envValue(entry, objects, pod) {
  if ('value' in entry) return String(entry.value);
  const from = entry.valueFrom;
  if (from.secretKeyRef) return entriesOf(objectNamed(objects, 'Secret', from.secretKeyRef.name))[from.secretKeyRef.key].toString();
  if (from.configMapKeyRef) return entriesOf(objectNamed(objects, 'ConfigMap', from.configMapKeyRef.name))[from.configMapKeyRef.key].toString();
  if (from.fieldRef) {
    const field = { 'metadata.name': pod.name, 'metadata.namespace': pod.namespace }[from.fieldRef.fieldPath];
    if (field === undefined) throw new Error(`fieldRef ${from.fieldRef.fieldPath} is not emulated`);
    return field;
  }
  throw new Error(`env ${entry.name}: unsupported source ${JSON.stringify(from)}`);
}

/** The process environment a container starts with: the image's ENV, then envFrom, then env (later wins, as kubelet). */
function containerEnv(container, objects, pod, image) {
  const env = { PATH: `${path.dirname(process.execPath)}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`, HOSTNAME: pod.name, ...image.env };
  for (const from of container.envFrom ?? []) {
    const obj = from.configMapRef ? objectNamed(objects, 'ConfigMap', from.configMapRef.name) : objectNamed(objects, 'Secret', from.secretRef.name);
    for (const [k, v] of Object.entries(entriesOf(obj))) env[(from.prefix ?? '') + k] = v.toString();
  }
  for (const entry of container.env ?? []) env[entry.name] = envValue(entry, objects, pod);
  return env;
}

/**
 * Starts one container of a pod (a Deployment's, StatefulSet's or Job's pod template) as it declares. `pod`: { name,
 * namespace, spec, claims: { [claimName]: hostDir } } (claims: the pod's PersistentVolumeClaims, kept by the caller
 * across restarts). `image`: the image's facts (imageFacts) and where its files are (`root`, the repository).
 * `substitute`: { [mountPath/key]: Buffer } to replace a mounted file's content (named in the caller's report).
 */
function startContainer({ network, objects, pod, container, image = { ...imageFacts(), root: ROOT }, substitute = {}, log }) {
  const spec = pod.spec;
  const psc = spec.securityContext ?? {};
  const csc = container.securityContext ?? {};
  const uid = csc.runAsUser ?? psc.runAsUser ?? Number(String(image.user ?? '0').split(':')[0]);
  const gid = csc.runAsGroup ?? psc.runAsGroup ?? Number(String(image.user ?? '0:0').split(':')[1] ?? uid);
  if ((csc.runAsNonRoot ?? psc.runAsNonRoot) && uid === 0) throw new Error(`${container.name}: runAsNonRoot with user 0 would not start`);
  if (csc.readOnlyRootFilesystem !== true) throw new Error(`${container.name}: no readOnlyRootFilesystem (every Runledger container declares it)`);
  // Our image holds dist/ (its Dockerfile builds it): compiled for this source before the first container of it, as
  // the stack's launcher does (a suite that runs first, on a fresh checkout, would find no dist/ otherwise).
  if (image.root === ROOT) require('../stack').ensureBuilt();
  const scratch = mkdtempSync(path.join(os.tmpdir(), `rl-${pod.name}-`));
  const mountPaths = ['/dev', '/proc', '/etc/hosts', ...(image.root ? [image.workdir] : []), ...(container.volumeMounts ?? []).map((m) => m.mountPath)];
  const args = ['--tmpfs', '/', ...hostTree('/', mountPaths.map(hostReal)), ...(image.root ? ['--ro-bind', image.root, image.workdir] : []), '--dev', '/dev', '--proc', '/proc',
    '--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--hostname', pod.name, '--uid', String(uid), '--gid', String(gid),
    '--ro-bind', network.hosts, '/etc/hosts', '--die-with-parent', '--new-session', '--clearenv'];
  const volumes = new Map((spec.volumes ?? []).map((v) => [v.name, v]));
  const written = [];
  for (const mount of container.volumeMounts ?? []) {
    // Where bwrap mounts it: through the host's symlinks (bwrap resolves them against the host while it sets up).
    const dest = hostReal(mount.mountPath);
    const volume = volumes.get(mount.name);
    const claim = pod.claims?.[mount.name];
    if (claim) {
      mkdirSync(claim, { recursive: true }); // provisioned on first use, kept after
      args.push(mount.readOnly ? '--ro-bind' : '--bind', claim, dest);
    } else if (!volume) {
      throw new Error(`${container.name}: volume ${mount.name} is mounted but neither declared nor claimed`);
    } else if (volume.hostPath) {
      // A file or directory of the host (compose's bind mounts: `./deploy/nats/compose.conf:/etc/nats/nats.conf:ro`).
      args.push(mount.readOnly ? '--ro-bind' : '--bind', volume.hostPath.path, dest);
    } else if (volume.emptyDir) {
      args.push('--tmpfs', dest);
      if (volume.emptyDir.sizeLimit) written.push(mount.mountPath);
    } else if (volume.secret || volume.configMap) {
      const src = volume.secret ? objectNamed(objects, 'Secret', volume.secret.secretName) : objectNamed(objects, 'ConfigMap', volume.configMap.name);
      const entries = entriesOf(src);
      const items = (volume.secret ?? volume.configMap).items ?? Object.keys(entries).map((key) => ({ key, path: key }));
      const dir = path.join(scratch, 'volumes', mount.name);
      mkdirSync(dir, { recursive: true });
      // Secrets and ConfigMaps are files owned by root (here: the sandbox's user, mapped from the host's root), mode
      // defaultMode (0644 unless set) with group read added under an fsGroup, as the kubelet sets them.
      const mode = ((volume.secret ?? volume.configMap).defaultMode ?? 0o644) | (psc.fsGroup !== undefined ? 0o040 : 0);
      for (const item of items) {
        const content = substitute[`${mount.mountPath}/${item.path}`] ?? entries[item.key];
        if (content === undefined) throw new Error(`${src.kind} ${src.metadata.name} has no key ${item.key}`);
        writeFileSync(path.join(dir, item.path), content);
        chmodSync(path.join(dir, item.path), item.mode ?? mode);
      }
      args.push('--ro-bind', dir, dest);
    } else {
      throw new Error(`${container.name}: volume ${mount.name} of an unsupported kind`);
    }
  }
  // Every mount point made: the root itself read-only from here on (readOnlyRootFilesystem).
  args.push('--remount-ro', '/');
  // Capabilities as declared: a sandbox user 0 would keep the user namespace's full set unless they are dropped.
  for (const cap of csc.capabilities?.drop ?? []) args.push('--cap-drop', cap === 'ALL' ? 'ALL' : `CAP_${cap}`);
  for (const cap of csc.capabilities?.add ?? []) args.push('--cap-add', `CAP_${cap}`);
  const env = containerEnv(container, objects, pod, image);
  for (const [k, v] of Object.entries(env)) args.push('--setenv', k, v);
  args.push('--chdir', container.workingDir ?? image.workdir);
  // Kubernetes: command replaces ENTRYPOINT (and drops CMD); args replace CMD.
  const entry = container.command ?? image.entrypoint ?? [];
  const cmd = container.args ?? (container.command ? [] : image.cmd ?? []);
  const argv = [...entry, ...cmd].map((a) => a.replace(/\$\((\w+)\)/g, (m, k) => env[k] ?? m));
  const child = spawn('nsenter', [`--net=${network.net}`, '--', 'bwrap', ...args, '--', ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (c) => { output = (output + c.toString()).slice(-20_000); log?.(c.toString()); };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    name: pod.name, child, exited, argv, uid, gid,
    output: () => output,
    /** The container's main process (its command; bwrap's own init above it is not the container's). */
    mainPid() {
      return descendants(child.pid).find((pid) => { try { return require('node:fs').readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'bwrap'; } catch { return false; } });
    },
    /** A signal to the container's main process, as the kubelet sends it (bwrap does not forward signals). */
    signal(sig) {
      const pid = this.mainPid();
      if (pid) try { process.kill(pid, sig); } catch { /* gone */ }
    },
    /**
     * A command run inside the running container (its namespaces, user, working directory and environment), as
     * `docker exec` and an exec probe or hook run it. Resolves to { code, output }; a command past `timeoutMs` is killed.
     */
    exec(command, { timeoutMs = 30_000 } = {}) {
      const pid = this.mainPid();
      if (!pid) return Promise.resolve({ code: null, output: 'container not running' });
      const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
      // With the container's capabilities: none when it dropped them all (a user 0 entering the namespace has all).
      const dropped = (csc.capabilities?.drop ?? []).includes('ALL') ? ['setpriv', '--bounding-set=-all', '--inh-caps=-all', '--'] : [];
      const run = spawn('nsenter', ['-t', String(pid), '-a', '-S', String(uid), '-G', String(gid), '-w', '--', ...dropped, 'env', '-i', ...envArgs, ...command], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      run.stdout.on('data', (c) => { out += c; });
      run.stderr.on('data', (c) => { out += c; });
      const timer = setTimeout(() => run.kill('SIGKILL'), timeoutMs);
      return new Promise((resolve) => run.once('exit', (code) => { clearTimeout(timer); resolve({ code, output: out }); }));
    },
    /** Kubernetes' termination: the preStop hook (run inside the container), SIGTERM, SIGKILL after the grace period (0: at once, no hook). */
    async stop(graceMs = (spec.terminationGracePeriodSeconds ?? 30) * 1000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      const preStop = container.lifecycle?.preStop?.exec?.command;
      if (preStop && graceMs > 0) await this.exec(preStop, { timeoutMs: graceMs });
      this.signal('SIGTERM');
      const timer = setTimeout(() => { for (const p of descendants(child.pid).reverse()) { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } } }, graceMs);
      const res = await exited;
      clearTimeout(timer);
      rmSync(scratch, { recursive: true, force: true });
      return res;
    },
  };
}

/**
 * The host's file system, read-only, as the image's base layer, on a fresh root so that the container's mount points
 * can be made (the host has no /etc/nats/config or /app): every host entry is bound read-only, except along the
 * path to a mount point, where the directory is made and its other entries bound one by one.
 */
function hostTree(dir, mountPaths) {
  const { lstatSync, readdirSync, readlinkSync } = require('node:fs');
  const args = [];
  for (const name of readdirSync(dir)) {
    const full = path.posix.join(dir, name);
    if (mountPaths.includes(full)) continue;
    const st = lstatSync(full);
    if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(full), full);
    else if (st.isDirectory() && mountPaths.some((m) => m.startsWith(full + '/'))) args.push('--dir', full, ...hostTree(full, mountPaths));
    else if (st.isDirectory() || st.isFile()) args.push('--ro-bind', full, full);
  }
  // A mount point the host lacks is made by bwrap itself (its parents here are directories of the fresh root).
  return args;
}

/** A path with its longest existing prefix resolved through the host's symlinks (/var/run/nats → /run/nats). */
function hostReal(p) {
  const { realpathSync } = require('node:fs');
  let head = p;
  const rest = [];
  while (head !== '/') {
    try { return path.posix.join(realpathSync(head), ...rest); } catch { rest.unshift(path.posix.basename(head)); head = path.posix.dirname(head); }
  }
  return p;
}

/** Every process under `pid`, parents first. */
function descendants(pid) {
  const out = [];
  const walk = (p) => {
    let kids = '';
    try { kids = require('node:fs').readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim(); } catch { return; }
    for (const k of kids ? kids.split(/\s+/).map(Number) : []) { out.push(k); walk(k); }
  };
  walk(pid);
  return out;
}

/** One HTTP GET of a declared probe (httpGet, named or numbered port) against the cluster network; true on 2xx/3xx. */
function probeOnce(network, container, probe) {
  const get = probe.httpGet;
  const port = typeof get.port === 'number' ? get.port : container.ports.find((p) => p.name === get.port).containerPort;
  return new Promise((resolve) => {
    const req = http.get({ host: network.ip, port, path: get.path, timeout: (probe.timeoutSeconds ?? 1) * 1000, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode >= 200 && res.statusCode < 400);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

/**
 * Polls a probe at its declared period until it succeeds, as the kubelet would; a startup or liveness probe fails
 * after failureThreshold consecutive failures (after initialDelaySeconds), any probe as soon as the container exits.
 */
async function untilProbe(network, container, probe, running, { readiness = probe === container.readinessProbe } = {}) {
  let failures = 0;
  const threshold = probe.failureThreshold ?? 3;
  if (probe.initialDelaySeconds) await new Promise((r) => setTimeout(r, probe.initialDelaySeconds * 1000));
  for (;;) {
    const exit = running.child.exitCode ?? running.child.signalCode;
    if (exit !== null) throw new Error(`${running.name} exited (${exit}) before its probe ${probe.httpGet.path} passed:\n${running.output()}`);
    if (await probeOnce(network, container, probe)) return;
    // A failing readiness probe only keeps the pod out of its Service (the kubelet keeps probing); startup and
    // liveness probes past their threshold restart the container: here that is a failure.
    if (++failures >= threshold && !readiness) throw new Error(`${running.name}: probe ${probe.httpGet.path} failed ${failures} times:\n${running.output()}`);
    await new Promise((r) => setTimeout(r, (probe.periodSeconds ?? 10) * 1000));
  }
}

module.exports = { ClusterNetwork, startContainer, containerEnv, untilProbe, probeOnce };
