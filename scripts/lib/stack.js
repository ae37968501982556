/**
 * Starts and stops Runledger's processes: a nats-server when none answers, and the seven services.
 * Used by `npm start`, the e2e test harness and the benchmark, so all three run the same stack.
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const { ADMIN } = require('./permissions');
const { allIdentities, ensureCredentials, identityEnv, localServerConfig, writeServerConfig } = require('./nats-auth');

const ROOT = path.resolve(__dirname, '..', '..');
/** Where `npm start` runs its own secured nats-server, and where the CLI looks by default. */
const { LOCAL_NATS_URL, LOCAL_DATA_DIR, parseNatsUrl } = require('./nats-url');
const SERVICES = ['intent-classification', 'db-write', 'tool-gateway', 'audit-ledger', 'promotion', 'export', 'decision'];

const canApt = () => process.getuid && process.getuid() === 0 && fs.existsSync('/usr/bin/apt-get');
const onPath = (name) => (process.env.PATH || '').split(':').map((d) => path.join(d, name));

/**
 * A binary from a Debian package: found among `candidates`, else installed with apt-get when we may (root), else an
 * error that says exactly what to run. CI runs on a clean machine, so the project installs what it needs itself.
 */
function ensureDebianBinary({ candidates, pkg, what, envVar }) {
  const find = () => candidates().find((c) => c && fs.existsSync(c));
  let bin = find();
  if (bin) return bin;
  if (canApt()) {
    process.stderr.write(`${what} not found: installing the Debian package ${pkg}\n`);
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    spawnSync('apt-get', ['install', '-y', '-qq', pkg], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    bin = find();
  }
  if (!bin) throw new Error(`${what} is not installed. Install it with \`sudo apt-get install -y ${pkg}\` (Debian/Ubuntu) or set ${envVar}.`);
  return bin;
}

function findNatsServer() {
  return [process.env.NATS_SERVER_BIN, ...onPath('nats-server'), '/usr/sbin/nats-server', '/usr/bin/nats-server'].find((c) => c && fs.existsSync(c));
}

/** Debian's nats-server (NATS_SERVER_BIN overrides). */
function ensureNatsServerBinary() {
  return ensureDebianBinary({ candidates: () => [findNatsServer()], pkg: 'nats-server', what: 'nats-server', envVar: 'NATS_SERVER_BIN' });
}

/** Debian's Chromium, which the browser tools drive through playwright-core (CHROMIUM_PATH overrides). */
function ensureChromium() {
  return ensureDebianBinary({ candidates: () => [process.env.CHROMIUM_PATH, '/usr/bin/chromium', ...onPath('chromium')], pkg: 'chromium', what: 'Chromium', envVar: 'CHROMIUM_PATH' });
}

/**
 * What the deployment checks (test/deployed-*, npm run deployed) run the manifests with: kubectl's kustomize renders
 * the overlays, bubblewrap holds each container to its declared filesystem (both found on PATH).
 */
function ensureDeploymentTools() {
  return {
    kubectl: ensureDebianBinary({ candidates: () => ['/usr/bin/kubectl', ...onPath('kubectl')], pkg: 'kubectl', what: 'kubectl', envVar: 'PATH' }),
    bwrap: ensureDebianBinary({ candidates: () => ['/usr/bin/bwrap', ...onPath('bwrap')], pkg: 'bubblewrap', what: 'bubblewrap', envVar: 'PATH' }),
  };
}

function canConnect({ host, port }, timeoutMs = 500) {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    const done = (ok) => { s.destroy(); resolve(ok); };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.once('error', reject);
  });
}

async function waitFor(pred, timeoutMs, what) {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    if (await pred()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Starts a nats-server with JetStream and a store under `storeDir`, on `port`, secured by the permissions
 * table: every identity's nkey seed is generated on first start under `credsDir` (mode 0600) and reused after.
 * `fullRights` names identities besides the admin that may do everything (the test harness's `test-admin`).
 * `cluster` ({ name, serverName, port, routes }) makes it one node of a JetStream cluster (see localServerConfig).
 */
async function startNats({ port, storeDir, logFile, credsDir = path.join(storeDir, '..', 'credentials'), fullRights = [], cluster, readyTimeoutMs = 10_000, onSpawn }) {
  const bin = ensureNatsServerBinary();
  fs.mkdirSync(storeDir, { recursive: true });
  const out = logFile ? fs.openSync(logFile, 'a') : 'ignore';
  const creds = ensureCredentials(credsDir, [...allIdentities(), ...fullRights]);
  const config = writeServerConfig(path.join(storeDir, 'nats-server.conf'), localServerConfig({ creds, fullRights: [ADMIN, ...fullRights], cluster }));
  // RL_NATS_SERVER_ARGS: extra nats-server flags (profiling: `--profile 6061` serves Go's pprof while the bench runs).
  const extra = (process.env.RL_NATS_SERVER_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(bin, ['-c', config, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir, ...extra], { stdio: ['ignore', out, out] });
  if (out !== 'ignore') fs.closeSync(out);
  onSpawn?.(child); // before the wait: whoever stops everything on a signal knows it from now on
  await waitFor(() => canConnect({ host: '127.0.0.1', port }), readyTimeoutMs, `nats-server on port ${port}`);
  return { url: `nats://127.0.0.1:${port}`, child, port, creds, storeDir };
}

/** Runs the bootstrap step (scripts/bootstrap.ts) as the admin: creates the log, buckets and object stores. */
function runBootstrap({ natsUrl, creds, env = {} }) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', path.join(ROOT, 'scripts', 'lib', 'ts-register.js'), path.join(ROOT, 'scripts', 'bootstrap.ts')], {
      cwd: ROOT,
      env: { ...process.env, NATS_URL: natsUrl, ...identityEnv(creds, ADMIN), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c) => { output += c; });
    child.stderr.on('data', (c) => { output += c; });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`bootstrap failed (code ${code}): ${output.trim()}`))));
  });
}

/**
 * Starts one service as its own process. Its stdout is JSON lines; `ready` resolves when it prints its
 * ready line. `extraEnv` goes on top of the parent's environment.
 */
let built = false;
/** Services run compiled JavaScript (scripts/build.js, incremental): brought up to date once per launcher process. */
function ensureBuilt() {
  if (built) return;
  require('../build').build();
  built = true;
}

/**
 * V8 flags of every service process (and the bench's floor processes): heap sizing, and how soon code is optimized.
 * The image's CMD passes the same flags; keep the two alike. The heap flags, measured with `npm run bench`
 * (bench/results.md): by default the young generation grows to 32 MiB during start-up and stays committed, and the
 * old generation is collected only once it holds ~4× its live data (a service lives on 25–31
 * MiB; it sat at 80 MiB used, the rest garbage). With these a service holds 50–75 MiB (PSS) at rest and after load
 * instead of 80–150, for 10–15 % more CPU per request (more frequent scavenges and marking). 384 MiB is over ten
 * times any service's live heap and under the pods' 512 MiB limit, so V8 collects before the container is killed.
 *
 * `--interrupt-budget=8192` (V8's default 67,584) lets V8 optimize a function after an eighth of the bytecode it
 * runs now: a service's request path is many functions each called once or twice per request, so by default they
 * stayed unoptimized for the first thousand requests and longer (issue 22, bench/cpu-load.js, paired rounds: 350
 * requests in, sequential 46.3 → 62.4 req/s and 18.5 → 15.6 ms CPU per request; at c16 9.6 → 7.3 ms), for 2–5 MiB
 * more code per service.
 *
 * `--no-memory-reducer`: when a service falls idle V8's memory reducer runs memory-reducing full collections, and the
 * next burst of requests then ran at half the rate for hundreds of requests (issue 22, bench/cpu-load.js with
 * CPU_LOAD_IDLE_MS=45000 after 1,500 warm-up requests, 320 at c16: 108–119 req/s and 15–16 ms CPU per request against
 * 207 req/s and 8.2 ms with the flag; without the pause 258 req/s, 6.6 ms). A service's heap is bounded by the flags
 * above whatever the reducer does, and the bench measured the same memory with and without it (PSS at rest 54–65 MiB
 * per service, after the load largest 76; bench/results.md, the 01:18 and 01:41 runs of 2026-11-28).
 */
const SERVICE_V8_FLAGS = ['--max-semi-space-size=4', '--max-old-space-size=384', '--interrupt-budget=8192', '--no-memory-reducer'];

/**
 * V8 flags of one service, after SERVICE_V8_FLAGS (the image's CMD passes the same per SERVICE; keep them alike).
 * The audit ledger collects garbage on its own thread (`--single-threaded-gc`): it is a fifth of a request's CPU and a
 * quarter of its own is garbage collection, and V8's parallel and concurrent GC threads cost it more CPU than they save
 * on two cores shared with the request path (issue 22, bench/cpu-load.js, 4 paired rounds at load 15-21: its CPU per
 * request at c16 1.74 -> 1.51 ms median, each pair 0.73-0.93x; its PSS after the load 67-78 MiB as before, 68-74).
 * Not for decision or tool-gateway: there it held 6-10 MiB more after the load, over the 80 MiB goal. The ledger is off
 * the answer's path (a request is answered before it is chained), so its GC pauses, longer on one thread, delay no
 * answer.
 */
const SERVICE_OWN_V8_FLAGS = { 'audit-ledger': ['--single-threaded-gc'] };

function startService(name, { natsUrl, env = {}, onLine, creds } = {}) {
  ensureBuilt();
  // With `creds` (a secured server started here) the service gets its own identity and nobody else's.
  const identity = creds ? identityEnv(creds, name) : {};
  // RL_SERVICE_NODE_ARGS: extra node flags for every service (profiling: `--cpu-prof --cpu-prof-dir=/tmp/prof`).
  // RL_SERVICE_NODE_ARGS_<NAME> (AUDIT_LEDGER, DECISION, ...): extra flags for that service only, after those.
  const own = process.env[`RL_SERVICE_NODE_ARGS_${name.toUpperCase().replace(/-/g, '_')}`] ?? '';
  const nodeArgs = [...SERVICE_V8_FLAGS, ...(SERVICE_OWN_V8_FLAGS[name] ?? []), ...`${process.env.RL_SERVICE_NODE_ARGS ?? ''} ${own}`.split(' ').filter(Boolean)];
  const child = spawn(process.execPath, [...nodeArgs, path.join(ROOT, 'dist', 'services', name, 'src', 'main.js')], {
    cwd: ROOT,
    env: { ...process.env, NATS_URL: natsUrl, HTTP_PORT: env.HTTP_PORT ?? '0', ...identity, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let buffered = '';
  const ready = new Promise((resolve, reject) => {
    const onData = (chunk) => {
      buffered += chunk.toString();
      let idx;
      while ((idx = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, idx);
        buffered = buffered.slice(idx + 1);
        onLine?.(name, line);
        if (line.includes(`"${name} ready"`)) {
          try { resolve(JSON.parse(line)); } catch { resolve({}); }
        }
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (c) => onLine?.(name, c.toString().trimEnd()));
    child.once('exit', (code, signal) => reject(new Error(`${name} exited before it was ready (code ${code}, signal ${signal})`)));
  });
  return { name, child, ready };
}

function stopProcess(child, signal = 'SIGTERM', timeoutMs = 5000) {
  return new Promise((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => { clearTimeout(timer); resolve(); });
    child.kill(signal);
  });
}

module.exports = { ROOT, SERVICES, SERVICE_V8_FLAGS, SERVICE_OWN_V8_FLAGS, LOCAL_NATS_URL, LOCAL_DATA_DIR, findNatsServer, ensureNatsServerBinary, ensureChromium, ensureDeploymentTools, parseNatsUrl, canConnect, freePort, startNats, runBootstrap, startService, stopProcess, waitFor, ensureBuilt };
