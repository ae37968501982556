/**
 * Identities on the bus: nkey credentials generated on first start (one seed file per identity, mode 0600,
 * never in the log), and the nats-server configuration rendered from the permissions table. The server's file
 * holds public keys only; k8s renders the same permissions with users whose passwords come from a Secret.
 */
const fs = require('node:fs');
const path = require('node:path');
const { nkeys } = require('@nats-io/transport-node');
const { ADMIN, loadTable, identities, permissionsFor, inboxPrefix, consumerIdentityOf } = require('./permissions');

/** Application account of every Runledger identity; users never sit in an `authorization` block beside `accounts` (CVE-2023-47090). */
const ACCOUNT = 'RUNLEDGER';

const seedFile = (dir, identity) => path.join(dir, `${identity}.nk`);

/**
 * The seed file of each identity under `dir` (created with mode 0600 when missing), and its public key.
 * `extra` names identities outside the table (the test harness's `test-admin`) that get full rights.
 */
function ensureCredentials(dir, names) {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  const out = {};
  for (const name of names) {
    const file = seedFile(dir, name);
    if (!fs.existsSync(file)) {
      const kp = nkeys.createUser();
      fs.writeFileSync(file, Buffer.from(kp.getSeed()).toString('utf8') + '\n', { mode: 0o600, flag: 'wx' });
    }
    fs.chmodSync(file, 0o600);
    const seed = fs.readFileSync(file, 'utf8').trim();
    out[name] = { file, publicKey: nkeys.fromSeed(new TextEncoder().encode(seed)).getPublicKey(), inboxPrefix: inboxPrefix(name) };
  }
  return out;
}

/** Every identity the default start needs: the table's, and the bootstrap admin. */
function allIdentities(table = loadTable()) {
  return [...identities(table), ADMIN];
}

/**
 * The environment that makes a process connect as `identity` (libs/messaging runtime, scripts/cli/connection.ts), and,
 * for a service that owns a durable with a consumer identity (permissions.yaml log.durables `consumer`), its second
 * connection's: NATS_CONSUMER_CREDS and NATS_CONSUMER_INBOX_PREFIX.
 */
function identityEnv(creds, identity, table = loadTable()) {
  const c = creds[identity];
  if (!c) throw new Error(`no credentials for identity "${identity}"`);
  const consumer = consumerIdentityOf(table, identity);
  if (consumer && !creds[consumer]) throw new Error(`no credentials for identity "${consumer}" (the consumer identity of ${identity})`);
  return { NATS_CREDS: c.file, NATS_INBOX_PREFIX: c.inboxPrefix, ...(consumer ? { NATS_CONSUMER_CREDS: creds[consumer].file, NATS_CONSUMER_INBOX_PREFIX: creds[consumer].inboxPrefix } : {}) };
}

/** nats.conf syntax; `{ $var: 'NAME' }` renders as an unquoted `$NAME` (resolved from the environment by nats-server). */
function render(value, indent = '') {
  if (value && typeof value === 'object' && '$var' in value) return `$${value.$var}`;
  if (Array.isArray(value)) {
    if (!value.length) return '[]';
    if (value.every((v) => typeof v !== 'object')) return `[${value.map((v) => render(v)).join(', ')}]`;
    return `[\n${value.map((v) => `${indent}  ${render(v, indent + '  ')}`).join('\n')}\n${indent}]`;
  }
  if (value && typeof value === 'object') {
    const lines = Object.entries(value).map(([k, v]) => `${indent}  ${/^[A-Za-z_][\w]*$/.test(k) ? k : JSON.stringify(k)}: ${render(v, indent + '  ')}`);
    return `{\n${lines.join('\n')}\n${indent}}`;
  }
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** Drops empty deny lists so the rendered file says only what matters. */
function compact(perms) {
  if (!perms) return undefined;
  const side = (s) => (s.deny.length ? s : { allow: s.allow });
  return { publish: side(perms.publish), subscribe: side(perms.subscribe), ...(perms.allow_responses ? { allow_responses: true } : {}) };
}

/**
 * The `accounts` block for the given identities. `auth(identity)` returns how the identity proves itself:
 * `{ nkey }` or `{ user, password }`. Identities in `fullRights` (admin, test-admin) get no restrictions.
 */
function accountsBlock(table, names, auth, fullRights = [ADMIN]) {
  const users = names.map((name) => {
    const perms = fullRights.includes(name) ? undefined : compact(permissionsFor(table, name));
    return { ...auth(name), ...(perms ? { permissions: perms } : {}) };
  });
  return { [ACCOUNT]: { jetstream: 'enabled', users } };
}

/**
 * The configuration of a local nats-server (npm start, test harness, fault suite): nkey users only, no anonymous
 * access. With `cluster` it is one node of a JetStream cluster on loopback: every node renders the same accounts
 * (the same identities and permissions), its own server name, and routes to the others.
 */
function localServerConfig({ creds, table = loadTable(), fullRights = [ADMIN], cluster }) {
  const names = Object.keys(creds);
  const accounts = accountsBlock(table, names, (n) => ({ nkey: creds[n].publicKey }), fullRights);
  return [
    '# Rendered from deploy/nats/permissions.yaml by scripts/lib/nats-auth.js; do not edit.',
    ...(cluster ? clusterLines(cluster) : []),
    '# Artifacts of up to 8 MiB travel base64-encoded: the default 1 MB payload limit is too small.',
    'max_payload: 16MB',
    '# Seven services connect at once on a busy machine: give a client longer than the 2 s default to authenticate.',
    '# (This block holds no users, so the CVE-2023-47090 layout does not arise; anonymous clients are refused.)',
    'authorization: { timeout: 15 }',
    `accounts: ${render(accounts)}`,
    '',
  ].join('\n');
}

/**
 * `server_name` and the `cluster` block of one node: routes are the other nodes' cluster ports on loopback. With
 * `syncAlways` (nats-server >= 2.10, as in k8s/) every write is fsynced before it is acknowledged: without it a
 * SIGKILLed node loses its unsynced tail and can come back with a log that differs from its peers'.
 */
function clusterLines({ name, serverName, port, routes, syncAlways = false }) {
  return [
    `server_name: ${render(serverName)}`,
    `cluster: ${render({ name, listen: `127.0.0.1:${port}`, routes: routes.map((p) => `nats-route://127.0.0.1:${p}`) })}`,
    ...(syncAlways ? ['jetstream: { sync_interval: always }'] : []),
  ];
}

/** Writes the server configuration with mode 0600 and returns its path. */
function writeServerConfig(file, text) {
  fs.writeFileSync(file, text, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return file;
}

module.exports = { ACCOUNT, ensureCredentials, allIdentities, identityEnv, accountsBlock, localServerConfig, writeServerConfig, render, compact };
