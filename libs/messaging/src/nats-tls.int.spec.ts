import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { findNatsServerBinary, freePort, tempDir, waitUntil, type TempDir } from '@runledger/testing';
import { CredentialsMissingError, identityFromEnv, identityOptions } from './nats-identity';

/**
 * Issue 24 production overlay: NATS serves clients over TLS and verifies them (tls { verify: true }); a process
 * configured with NATS_TLS_CA_FILE / NATS_TLS_CERT_FILE / NATS_TLS_KEY_FILE connects, one without is refused. Real
 * nats-server, certificates made by openssl here.
 */
describe('Issue 24 NATS over TLS (NATS_TLS_CA_FILE, NATS_TLS_CERT_FILE, NATS_TLS_KEY_FILE)', () => {
  let dir: TempDir;
  let server: ChildProcess;
  let url: string;
  const f = (name: string) => join(dir.path, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });

  beforeAll(async () => {
    dir = await tempDir('runledger-nats-tls-');
    openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.crt'), '-days', '2', '-subj', '/CN=runledger-test-ca');
    for (const [name, san] of [['server', 'IP:127.0.0.1,DNS:localhost'], ['client', 'DNS:runledger-decision']]) {
      openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', `/CN=${name}`);
      writeFileSync(f(`${name}.ext`), `subjectAltName=${san}\nextendedKeyUsage=${name === 'server' ? 'serverAuth' : 'clientAuth'}\n`);
      openssl('x509', '-req', '-in', f(`${name}.csr`), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f(`${name}.crt`), '-days', '2', '-extfile', f(`${name}.ext`));
    }
    const port = await freePort();
    url = `tls://127.0.0.1:${port}`;
    writeFileSync(f('nats.conf'), `listen: 127.0.0.1:${port}\ntls {\n  cert_file: "${f('server.crt')}"\n  key_file: "${f('server.key')}"\n  ca_file: "${f('ca.crt')}"\n  verify: true\n}\nauthorization { users: [ { user: "runledger-decision", password: "p-test" } ] }\n`);
    server = spawn(findNatsServerBinary(), ['-c', f('nats.conf')], { stdio: 'ignore' });
    const env = { NATS_USER: 'runledger-decision', NATS_PASSWORD: 'p-test', NATS_TLS_CA_FILE: f('ca.crt'), NATS_TLS_CERT_FILE: f('client.crt'), NATS_TLS_KEY_FILE: f('client.key') };
    await waitUntil(() => connect({ servers: url, ...identityOptions(identityFromEnv(env)) }).then((nc) => nc.close().then(() => true)), { timeoutMs: 30_000, intervalMs: 100, description: 'the TLS nats-server' });
  });
  afterAll(async () => {
    server?.kill('SIGKILL');
    await dir?.remove();
  });

  it('Issue 24 production overlay: a service with the CA and its client certificate connects over TLS and is served', async () => {
    const env = { NATS_USER: 'runledger-decision', NATS_PASSWORD: 'p-test', NATS_TLS_CA_FILE: f('ca.crt'), NATS_TLS_CERT_FILE: f('client.crt'), NATS_TLS_KEY_FILE: f('client.key') };
    const nc = await connect({ servers: url, ...identityOptions(identityFromEnv(env)) });
    const sub = nc.subscribe('issue24.tls', { max: 1, callback: (_e, m) => { m.respond('ok'); } });
    expect(new TextDecoder().decode((await nc.request('issue24.tls', '', { timeout: 5_000 })).data)).toBe('ok');
    sub.unsubscribe();
    await nc.close();
  });

  it('Issue 24 production overlay: without a client certificate the TLS server refuses the connection', async () => {
    const env = { NATS_USER: 'runledger-decision', NATS_PASSWORD: 'p-test', NATS_TLS_CA_FILE: f('ca.crt') };
    await expect(connect({ servers: url, ...identityOptions(identityFromEnv(env)), reconnect: false, timeout: 5_000 })).rejects.toThrow();
  });

  it('Issue 24 production overlay: a named TLS file that is missing stops the process before it connects', () => {
    expect(() => identityOptions(identityFromEnv({ NATS_TLS_CA_FILE: f('nope.crt') }))).toThrow(CredentialsMissingError);
    expect(() => identityOptions(identityFromEnv({ NATS_TLS_CA_FILE: f('ca.crt'), NATS_TLS_CERT_FILE: f('client.crt') }))).toThrow(/go together/);
  });
});
