import { existsSync, readFileSync } from 'node:fs';
import { ConnectionOptions, credsAuthenticator, nkeyAuthenticator } from '@nats-io/transport-node';
import { settingText } from '@runledger/kernel';

/** How a process proves who it is to NATS, and where its replies come back. */
export interface NatsIdentity {
  /** A .creds file (JWT + seed) or a bare nkey seed file (SU…). */
  creds?: string;
  user?: string;
  password?: string;
  token?: string;
  /** The identity's own reply prefix: least-privilege servers let it subscribe only there. */
  inboxPrefix?: string;
  /** TLS: the CA that signed the server's certificate (then the connection is TLS and the server verified), and a client certificate and key for servers that require one. */
  tlsCaFile?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
}

/** The identity the environment names: NATS_CREDS, NATS_USER/NATS_PASSWORD, NATS_TOKEN, NATS_INBOX_PREFIX. */
export function identityFromEnv(env: NodeJS.ProcessEnv = process.env): NatsIdentity {
  return {
    creds: settingText('NATS_CREDS', env), user: settingText('NATS_USER', env), password: settingText('NATS_PASSWORD', env),
    token: settingText('NATS_TOKEN', env), inboxPrefix: settingText('NATS_INBOX_PREFIX', env),
    tlsCaFile: settingText('NATS_TLS_CA_FILE', env), tlsCertFile: settingText('NATS_TLS_CERT_FILE', env), tlsKeyFile: settingText('NATS_TLS_KEY_FILE', env),
  };
}

/**
 * The identity a service pulls and acks its durable as, on a second connection (permissions.yaml log.durables
 * `consumer`): NATS_CONSUMER_CREDS or NATS_CONSUMER_USER/NATS_CONSUMER_PASSWORD, NATS_CONSUMER_INBOX_PREFIX, over the
 * same TLS as the service's own. Undefined when none is named: the service consumes on its own connection.
 */
export function consumerIdentityFromEnv(env: NodeJS.ProcessEnv = process.env): NatsIdentity | undefined {
  const own = identityFromEnv(env);
  const creds = settingText('NATS_CONSUMER_CREDS', env);
  const user = settingText('NATS_CONSUMER_USER', env);
  if (!creds && !user) return undefined;
  return { creds, user, password: settingText('NATS_CONSUMER_PASSWORD', env), inboxPrefix: settingText('NATS_CONSUMER_INBOX_PREFIX', env), tlsCaFile: own.tlsCaFile, tlsCertFile: own.tlsCertFile, tlsKeyFile: own.tlsKeyFile };
}

/** A seed file named `<identity>.nk` (as npm start writes them under .data/credentials) implies `_INBOX_<identity>`. */
export function defaultInboxPrefix(creds: string | undefined): string | undefined {
  const name = creds ? /([\w-]+)\.nk$/.exec(creds)?.[1] : undefined;
  return name ? `_INBOX_${name}` : undefined;
}

export class CredentialsMissingError extends Error {}

/** Connection options for an identity; first match wins: creds file, user and password, token. */
export function identityOptions(id: NatsIdentity): Partial<ConnectionOptions> {
  const prefix = id.inboxPrefix ?? defaultInboxPrefix(id.creds);
  const inbox = { ...(prefix ? { inboxPrefix: prefix } : {}), ...tlsOptions(id) };
  if (id.creds) {
    if (!existsSync(id.creds)) throw new CredentialsMissingError(`credentials file ${id.creds} not found`);
    const text = readFileSync(id.creds);
    return {
      ...inbox,
      authenticator: text.includes('-----BEGIN NATS USER JWT-----')
        ? credsAuthenticator(text)
        : nkeyAuthenticator(new TextEncoder().encode(text.toString('utf8').trim())),
    };
  }
  if (id.user) return { ...inbox, user: id.user, pass: id.password ?? '' };
  if (id.token) return { ...inbox, token: id.token };
  return inbox;
}

/**
 * TLS to the server (the production overlay, k8s/README.md): with a CA file the client requires TLS and verifies the
 * server's certificate against it; a certificate and key are sent to a server that verifies clients. A file named
 * but missing stops the process here, not as a TLS handshake error later.
 */
function tlsOptions(id: NatsIdentity): Partial<ConnectionOptions> {
  if (!id.tlsCaFile && !id.tlsCertFile) return {};
  for (const file of [id.tlsCaFile, id.tlsCertFile, id.tlsKeyFile]) {
    if (file && !existsSync(file)) throw new CredentialsMissingError(`TLS file ${file} not found`);
  }
  if (Boolean(id.tlsCertFile) !== Boolean(id.tlsKeyFile)) throw new CredentialsMissingError('NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together');
  return { tls: { ...(id.tlsCaFile ? { caFile: id.tlsCaFile } : {}), ...(id.tlsCertFile ? { certFile: id.tlsCertFile, keyFile: id.tlsKeyFile } : {}) } };
}
