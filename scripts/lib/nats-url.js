/**
 * The nats-server `npm start` runs and the folder it keeps its data in, and how a NATS URL is read: one place for
 * scripts/lib/stack.js (start, tests, bench) and the CLI (scripts/cli/connection.ts), which loads this file alone.
 */
const path = require('node:path');

/** npm start's port unless RL_NATS_PORT names another: the one a shell without RL_NATS_PORT reaches. */
const DEFAULT_NATS_PORT = 4322;
const LOCAL_NATS_URL = `nats://127.0.0.1:${process.env.RL_NATS_PORT || DEFAULT_NATS_PORT}`;

/** npm start's data folder (store, credentials, audit key): RL_DATA_DIR, relative to the repository, else `.data`. */
const LOCAL_DATA_DIR = path.resolve(__dirname, '..', '..', process.env.RL_DATA_DIR || '.data');

/**
 * Scheme, host and port of one server URL, `nats://host:port` or `host:port` (nats assumed); read as http, which
 * lower-cases the host and keeps IPv6 in brackets (`[::1]`). Throws on what names no host.
 */
function parseNatsUrl(url) {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1].toLowerCase();
  const u = new URL(`http://${scheme === undefined ? url : url.slice(scheme.length + 3)}`);
  return { scheme: scheme ?? 'nats', host: u.hostname, port: Number(u.port || 4222) };
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Whether `server` names the nats-server `npm start` runs, however it is written (`nats://LOCALHOST:4322`,
 * `127.0.0.1:4322`, `[::1]:4322` …): NATS_URL set to it must find npm start's credentials as the default server does.
 */
function isLocalStack(server) {
  if (server.includes(',')) return false;
  try {
    const { scheme, host, port } = parseNatsUrl(server);
    return scheme === 'nats' && LOOPBACK_HOSTS.has(host) && port === parseNatsUrl(LOCAL_NATS_URL).port;
  } catch {
    return false;
  }
}

module.exports = { DEFAULT_NATS_PORT, LOCAL_NATS_URL, LOCAL_DATA_DIR, parseNatsUrl, isLocalStack };
