import { credentialsRefused, isLocalStack, LOCAL_NATS_URL } from './connection';

describe('runledger CLI connection', () => {
  const port = new URL(LOCAL_NATS_URL).port;

  it("Issue 9 clients: NATS_URL naming npm start's server however it is written is the local stack (its credentials are found)", () => {
    for (const server of [LOCAL_NATS_URL, `nats://localhost:${port}`, `nats://LOCALHOST:${port}`, `127.0.0.1:${port}`, `localhost:${port}`, `nats://[::1]:${port}`, `[::1]:${port}`, `NATS://127.0.0.1:${port}`]) {
      expect({ server, local: isLocalStack(server) }).toEqual({ server, local: true });
    }
  });

  it('Issue 9 clients: another port, host or scheme, or a server list, is not the local stack (no local credentials are offered to it)', () => {
    const other = Number(port) + 1;
    for (const server of [`nats://127.0.0.1:${other}`, `nats://10.0.0.5:${port}`, `tls://127.0.0.1:${port}`, `nats://user:pw@evil.example:${port}`, `nats://127.0.0.1:${port},nats://127.0.0.1:${other}`, 'not a url ::']) {
      expect({ server, local: isLocalStack(server) }).toEqual({ server, local: false });
    }
  });

  it('README "Operator commands": a server that wants credentials when none were given is told every flag and variable that names them, and where npm start writes this command\'s', () => {
    const none = credentialsRefused({ server: 'nats://127.0.0.1:4400' }, 'operator', 'Authorization Violation');
    expect(none).toMatch(/^NATS at nats:\/\/127\.0\.0\.1:4400 wants credentials and none were given \(Authorization Violation\): pass --creds FILE \(or NATS_CREDS=FILE\), --nats-user U --nats-password P \(or NATS_USER and NATS_PASSWORD\) or --context NAME \(or NATS_CONTEXT\); a stack npm start runs has this command's identity, the operator, in \S*credentials\/operator\.nk \(RL_DATA_DIR\/credentials\/operator\.nk\)/);
    expect(credentialsRefused({ server: 'nats://h:4222', creds: 'x.nk' }, 'caller', 'Authorization Violation')).toMatch(/^NATS at nats:\/\/h:4222 refused these credentials \(Authorization Violation\); pass others: --creds FILE .*caller\.nk/);
  });
});
