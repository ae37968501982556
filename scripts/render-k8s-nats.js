#!/usr/bin/env node
/**
 * k8s runs the same permissions as `npm start`: the users and permissions of k8s/base/nats/nats.conf and
 * k8s/overlays/dev/nats-dev.conf are rendered from deploy/nats/permissions.yaml, one user per identity
 * (`runledger-<identity>`), each password from its own key of the Secret runledger-nats-auth.
 *   node scripts/render-k8s-nats.js          rewrite the generated block of both files
 *   node scripts/render-k8s-nats.js --check  fail when a file's block differs from the table (contracts:check runs it)
 *   node scripts/render-k8s-nats.js --compose-env   print fresh random passwords for every user (docker-compose's .env)
 * deploy/nats/compose.conf (docker-compose) carries the same block.
 */
const fs = require('node:fs');
const path = require('node:path');
const { ADMIN, loadTable } = require('./lib/permissions');
const { accountsBlock, allIdentities, render } = require('./lib/nats-auth');

const ROOT = path.resolve(__dirname, '..');
const FILES = ['k8s/base/nats/nats.conf', 'k8s/overlays/dev/nats-dev.conf', 'k8s/overlays/production/nats-production.conf', 'deploy/nats/compose.conf'];
const BEGIN = '# BEGIN generated from deploy/nats/permissions.yaml by scripts/render-k8s-nats.js: do not edit';
const END = '# END generated';

/** `db-write` → `DB_WRITE_PASSWORD`: the Secret key and the environment variable nats-server resolves. */
const passwordKey = (identity) => `${identity.replace(/-/g, '_').toUpperCase()}_PASSWORD`;
const userName = (identity) => `runledger-${identity}`;

function k8sBlock(table = loadTable()) {
  const accounts = accountsBlock(table, allIdentities(table), (id) => ({ user: userName(id), password: { $var: passwordKey(id) } }), [ADMIN]);
  // The system account has its own user; never an `authorization` block beside `accounts` (CVE-2023-47090).
  accounts.SYS = { users: [{ user: 'runledger-sys', password: { $var: 'SYS_PASSWORD' } }] };
  return [BEGIN, `accounts: ${render(accounts)}`, 'system_account: SYS', END].join('\n');
}

function splice(text, block, file) {
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${file}: no generated block (${BEGIN} … ${END})`);
  return text.slice(0, start) + block + text.slice(end + END.length);
}

/** Problems for contracts:check: a k8s file whose users or permissions are not the table's. */
function checkK8s() {
  const block = k8sBlock();
  return FILES.flatMap((f) => {
    const text = fs.readFileSync(path.join(ROOT, f), 'utf8');
    try {
      return splice(text, block, f) === text ? [] : [`${f}: NATS users/permissions differ from deploy/nats/permissions.yaml (run node scripts/render-k8s-nats.js)`];
    } catch (err) {
      return [err.message];
    }
  });
}

if (require.main === module) {
  if (process.argv.includes('--compose-env')) {
    const ids = [...allIdentities(), 'sys'];
    process.stdout.write(ids.map((id) => `${passwordKey(id)}=${natsPassword()}`).join('\n') + '\n');
  } else if (process.argv.includes('--check')) {
    const problems = checkK8s();
    if (problems.length) {
      console.error(problems.join('\n'));
      process.exit(1);
    }
  } else {
    const block = k8sBlock();
    for (const f of FILES) fs.writeFileSync(path.join(ROOT, f), splice(fs.readFileSync(path.join(ROOT, f), 'utf8'), block, f));
  }
}

/**
 * A random password nats-server reads as a string. It parses a $VARIABLE's value as a config token, so a value that
 * looks like a number (all digits, or hex such as 7e12ab…) is a number or a parse error and the server does not start:
 * a letter first keeps every value a string.
 */
function natsPassword() {
  return `p${require('node:crypto').randomBytes(24).toString('hex')}`;
}

module.exports = { k8sBlock, checkK8s, passwordKey, userName, natsPassword, FILES };
