/**
 * Restate: its server (the npm package's binary) on free loopback ports with its own store, and the five steps
 * as `ctx.run` journal entries of one service handler, called through the server's ingress with the request id
 * as idempotency key — the path a Restate user's caller takes.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { Pool } = require('pg');
const w = require('./workload');

// The Restate SDK 1.17 calls Promise.withResolvers (Node 22); our machine runs Node 20. This standard-conforming
// shim exists only in the benchmark process, so Restate runs unmodified on the Node we ship on.
Promise.withResolvers ??= function withResolvers() {
  let resolve;
  let reject;
  const promise = new this((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

async function waitHttp(url, ok, what) {
  for (let attempt = 0; attempt < 600; attempt++) {
    try {
      const res = await fetch(url);
      if (ok(res)) return res;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function startRestate({ databaseUrl, freePort }) {
  process.env.RESTATE_LOGGING ??= 'ERROR';
  const restate = require('@restatedev/restate-sdk');
  const pool = new Pool({ connectionString: databaseUrl, max: 20 });
  const effects = w.postgresEffects(pool);
  await effects.setup();
  const bench = restate.service({
    name: 'bench',
    handlers: {
      process: async (ctx, req) => {
        const classification = await ctx.run('classify', () => w.classify(req.message));
        const decision = await ctx.run('decide', () => w.decide(classification));
        const task = await ctx.run('tool', () => w.toolCall(req.request_id, decision));
        await ctx.run('write', () => effects.write(req.user_id, task));
        return ctx.run('audit', () => effects.audit(w.auditRecord(req.request_id, req.user_id, decision, task)));
      },
    },
  });
  const endpointPort = await freePort();
  await restate.serve({ services: [bench], port: endpointPort });

  const [ingress, admin, fabric] = [await freePort(), await freePort(), await freePort()];
  const baseDir = fs.mkdtempSync(path.join(os.tmpdir(), 'runledger-bench-restate-'));
  const bin = require.resolve('@restatedev/restate-server-linux-x64/bin/restate-server');
  const server = spawn(bin, ['--no-logo', '--listen-mode', 'tcp'], {
    stdio: 'ignore',
    env: {
      ...process.env,
      RESTATE_BASE_DIR: baseDir,
      RESTATE_NODE_NAME: 'bench',
      RESTATE_DISABLE_TELEMETRY: 'true',
      RESTATE_BIND_ADDRESS: `127.0.0.1:${fabric}`,
      RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${fabric}`,
      RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
      RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
    },
  });
  await waitHttp(`http://127.0.0.1:${admin}/health`, (r) => r.ok, 'restate admin');
  const reg = await fetch(`http://127.0.0.1:${admin}/deployments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ uri: `http://127.0.0.1:${endpointPort}` }),
  });
  if (!reg.ok) throw new Error(`restate: registering the deployment failed: ${reg.status} ${await reg.text()}`);
  await waitHttp(`http://127.0.0.1:${ingress}/restate/health`, (r) => r.ok, 'restate ingress');

  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const call = (req) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify(req);
      const r = http.request(
        { host: '127.0.0.1', port: ingress, path: '/bench/process', method: 'POST', agent, headers: { 'content-type': 'application/json', 'idempotency-key': req.request_id, 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`restate: ${res.statusCode} ${text}`))));
        },
      );
      r.once('error', reject);
      r.end(body);
    });
  return {
    async run(req) {
      const out = await call(req);
      if (!out?.audited) throw new Error('restate: the handler ended without its audit step');
    },
    serverPid: server.pid,
    async stop() {
      agent.destroy();
      await new Promise((resolve) => {
        if (server.exitCode !== null) return resolve();
        server.once('exit', resolve);
        server.kill('SIGTERM');
      });
      fs.rmSync(baseDir, { recursive: true, force: true });
      await pool.end();
    },
  };
}

module.exports = { startRestate };
