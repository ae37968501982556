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
}

/** The identity the environment names: NATS_CREDS, NATS_USER/NATS_PASSWORD, NATS_TOKEN, NATS_INBOX_PREFIX. */
export function identityFromEnv(env: NodeJS.ProcessEnv = process.env): NatsIdentity {
  return {
    creds: settingText('NATS_CREDS', env), user: settingText('NATS_USER', env), password: settingText('NATS_PASSWORD', env),
    token: settingText('NATS_TOKEN', env), inboxPrefix: settingText('NATS_INBOX_PREFIX', env),
  };
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
  const inbox = prefix ? { inboxPrefix: prefix } : {};
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
