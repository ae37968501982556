#!/usr/bin/env node
/**
 * npm start: the whole Runledger stack on this machine.
 * Starts its own nats-server on 127.0.0.1:4322 (RL_NATS_PORT) — never an unsecured NATS that happens to run on
 * the machine — with JetStream and its store under .data/nats (RL_DATA_DIR instead of .data), secured by
 * deploy/nats/permissions.yaml: one nkey identity per service, `caller`, `approver`, `operator` and the bootstrap `admin`,
 * seeds generated on first start under .data/credentials (mode 0600). The admin runs the bootstrap step (log stream, buckets, object stores); each service gets only
 * its own seed. An external NATS_URL keeps the environment's NATS_CREDS / NATS_USER for every process.
 * With no MONGO_URL the embedded store (NATS KV) serves.
 */
const path = require('node:path');
const { DEFAULT_NATS_PORT } = require('./lib/nats-url');
const { ROOT, SERVICES, LOCAL_NATS_URL, LOCAL_DATA_DIR, parseNatsUrl, canConnect, startNats, runBootstrap, startService, stopProcess } = require('./lib/stack');

/** How often we look whether the process that started us (npm, a shell, a supervisor) is still there. */
const PARENT_CHECK_MS = 1_000;

async function main() {
  let nats;
  let services = [];
  let natsChild; // known from its spawn, before nats-server is ready
  let stopping; // the one stop under way, once asked
  const stopAll = (code) => {
    stopping ??= (async () => {
      await Promise.all(services.map((s) => stopProcess(s.child)));
      if (natsChild) await stopProcess(natsChild);
      process.exit(code);
    })();
    return stopping;
  };
  // From the first moment: a signal during nats-server's start or the bootstrap stops what was started, and nothing
  // is started after it (main checks `stopping` after every wait).
  process.once('SIGINT', () => stopAll(0));
  process.once('SIGTERM', () => stopAll(0));
  // npm does not pass a SIGTERM it gets on to us: it exits and leaves us (and nats-server, holding the port and .data)
  // running under init. Under npm, a parent that is gone is a stop, as SIGTERM is; started any other way (a launcher
  // that starts us in the background and exits), we run on.
  if (process.env.npm_lifecycle_event) {
    const parent = process.ppid;
    setInterval(() => process.ppid !== parent && void stopAll(0), PARENT_CHECK_MS).unref();
  }

  // NATS_URL names an external NATS (its NATS_CREDS / NATS_USER go to every process); otherwise we run our own,
  // secured, so `npm start` is as locked down as production whatever else listens on this machine.
  let natsUrl = process.env.NATS_URL || LOCAL_NATS_URL;
  if (!process.env.NATS_URL) {
    const { port } = parseNatsUrl(natsUrl);
    if (await canConnect({ host: '127.0.0.1', port })) {
      process.stderr.write(`port ${port} is taken (another npm start?): stop it, or set RL_NATS_PORT to a free port\n`);
      process.exit(1);
    }
    const data = path.relative(ROOT, LOCAL_DATA_DIR) || '.';
    process.stdout.write(`starting nats-server on ${natsUrl} with JetStream and authentication (store ${data}/nats, credentials ${data}/credentials)\n`);
    try {
      nats = await startNats({ port, storeDir: path.join(LOCAL_DATA_DIR, 'nats'), credsDir: path.join(LOCAL_DATA_DIR, 'credentials'), logFile: path.join(LOCAL_DATA_DIR, 'nats-server.log'), onSpawn: (child) => (natsChild = child) });
      if (stopping) return stopping;
      natsUrl = nats.url;
      await runBootstrap({ natsUrl, creds: nats.creds });
    } catch (err) {
      if (stopping) return stopping;
      process.stderr.write(`${err.message}\n`);
      return stopAll(1);
    }
    if (stopping) return stopping;
  }
  services = SERVICES.map((name) => startService(name, {
    natsUrl,
    creds: nats?.creds,
    onLine: (svc, line) => { if (process.env.LOG_LEVEL === 'debug' || /"level":"(error|warn)"/.test(line)) process.stdout.write(`[${svc}] ${line}\n`); },
  }));
  // A service that dies takes the stack down with a clear message, instead of leaving it half up.
  for (const s of services) {
    s.child.once('exit', (code, signal) => {
      if (stopping) return;
      process.stderr.write(`${s.name} exited (code ${code}, signal ${signal}): stopping Runledger\n`);
      void stopAll(1);
    });
  }
  try {
    const readies = await Promise.all(services.map((s) => s.ready));
    if (stopping) return stopping;
    const ports = readies.map((r, i) => `${SERVICES[i]}:${r.http_port}`).join(' ');
    const rel = (identity) => path.relative(process.cwd(), nats.creds[identity].file);
    // The commands below are copied into other shells, which need not have this one's RL_NATS_PORT, RL_DATA_DIR or
    // NATS_URL: each names what it needs, the server (unless the default) and the identity's credentials.
    const server = natsUrl === `nats://127.0.0.1:${DEFAULT_NATS_PORT}` ? '' : ` --server ${natsUrl}`;
    const as = (identity) => `${server}${nats ? ` --creds ${rel(identity)}` : ''}`;
    const who = nats
      ? `  connect as    : caller   --creds ${rel('caller')} (agent requests only)\n` +
        `                  approver --creds ${rel('approver')} (promotion tickets only: rl.caller.approver.artifacts.ingest)\n` +
        `                  operator --creds ${rel('operator')} (runs, audit, read the log)\n` +
        `                  (or NATS_CREDS=FILE; replies on _INBOX_<identity>; anonymous clients are refused)\n`
      : '';
    process.stdout.write(
      `Runledger ready on ${natsUrl} (store: ${process.env.MONGO_URL ? 'MongoDB' : 'embedded NATS KV'})\n` +
      who +
      `  terminal chat  : npm run chat -- --user alice${as('caller')}\n` +
      `  audit verify   : npm run runledger -- audit verify${as('operator')}\n` +
      `  web console    : npm run runledger -- console${as('operator')} (http://127.0.0.1:4380, prints its sign-in URL; as the operator)\n` +
      `  agent requests : ${subjectsAskedBy('caller')} (as the caller)\n` +
      `  operators      : ${subjectsAskedBy('operator')} (as the operator)\n` +
      `  health (http)  : ${ports}\n` +
      `  Ctrl-C stops the services and nats-server (a few seconds); ${nats ? path.relative(ROOT, LOCAL_DATA_DIR) || '.' : 'NATS'} keeps the log${nats ? ' and the credentials' : ''}\n`,
    );
  } catch (err) {
    if (stopping) return stopping;
    process.stderr.write(`failed to start: ${err.message}\n`);
    await stopAll(1);
  }
}

/**
 * The subjects `identity` may ask, from the permissions table (`call: [identity]`), grouped by their stem:
 * rl.caller.caller.sessions.start|get. `{caller}` is the caller's own name (`caller` on this stack); another
 * placeholder stays a placeholder (rl.health.<service>).
 */
function subjectsAskedBy(identity) {
  const { loadTable } = require('./lib/permissions');
  const stems = new Map();
  for (const [address, rule] of Object.entries(loadTable().requests)) {
    if (!(rule.call ?? []).includes(identity)) continue;
    const subject = address.replace('{caller}', identity).replace(/\{(\w+)\}/g, '<$1>');
    const cut = subject.lastIndexOf('.');
    const stem = subject.slice(0, cut);
    stems.set(stem, [...(stems.get(stem) ?? []), subject.slice(cut + 1)]);
  }
  return [...stems].map(([stem, last]) => `${stem}.${last.join('|')}`).join(', ');
}

main();
