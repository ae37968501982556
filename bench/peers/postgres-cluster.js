/**
 * A PostgreSQL cluster of the benchmark's own: Debian's server binaries, a temporary data folder, a free
 * loopback port, so peers never share state with the machine's PostgreSQL or with another run.
 * initdb refuses to run as root: when we are root the server runs as the `postgres` user.
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

function serverBinDir() {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const dir = versions.map((v) => path.join(root, v, 'bin')).find((d) => fs.existsSync(path.join(d, 'initdb')));
  if (!dir) throw new Error('PostgreSQL server binaries not found: install them with `sudo apt-get install -y postgresql`');
  return dir;
}

/** Runs a command as `postgres` when we are root (initdb and postgres refuse root). */
function asDbUser(bin, args) {
  const root = process.getuid?.() === 0;
  return root ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
}

/**
 * Durability setting, stated in the output: `synchronous_commit=off` survives a crash of any process (as
 * JetStream's default, which flushes to the OS and fsyncs on an interval) but may lose the last commits on a
 * power loss; fsync stays on. Every system in the table runs with this same class of durability.
 */
const DURABILITY = 'synchronous_commit=off (process-crash durable, as JetStream and Restate defaults)';

async function startPostgresCluster(port) {
  const bin = serverBinDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runledger-bench-pg-'));
  fs.chmodSync(dir, 0o777);
  const data = path.join(dir, 'data');
  if (process.getuid?.() === 0) spawnSync('chown', ['postgres', dir]);
  const [initCmd, initArgs] = asDbUser(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  const init = spawnSync(initCmd, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  const [cmd, args] = asDbUser(path.join(bin, 'postgres'), [
    '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'synchronous_commit=off', '-c', 'max_connections=200',
  ]);
  const child = spawn(cmd, args, { stdio: 'ignore' });
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const { Client } = require('pg');
  for (let attempt = 0; ; attempt++) {
    const client = new Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      break;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (child.exitCode !== null || attempt > 300) throw new Error(`PostgreSQL did not start on port ${port}: ${err.message}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    child,
    /** A fresh database per system, so no peer reads another's tables. */
    async createDatabase(name) {
      const client = new Client({ connectionString: url });
      await client.connect();
      await client.query(`CREATE DATABASE ${name}`);
      await client.end();
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      if (child.exitCode === null) {
        await new Promise((resolve) => {
          child.once('exit', resolve);
          // Fast shutdown, sent to the server itself: `runuser` (when we are root) does not pass SIGINT on, and the
          // server outlived the bench.
          try {
            process.kill(Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]), 'SIGINT');
          } catch {
            child.kill('SIGINT');
          }
        });
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

module.exports = { startPostgresCluster, DURABILITY };
