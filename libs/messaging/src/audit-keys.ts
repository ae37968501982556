import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject, sign, verify } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ChainSigner, SignatureCheck } from '@runledger/governance';
import { settingText } from '@runledger/kernel';

/** The data folder: RL_DATA_DIR, else `.data` under the working directory (what `npm start` uses). */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(settingText('RL_DATA_DIR', env));
}

/** Where the audit ledger keeps its Ed25519 signing key: RL_AUDIT_KEY_FILE, else <data>/audit/signing-key.pem. */
export function auditKeyFile(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(settingText('RL_AUDIT_KEY_FILE', env) ?? join(dataDir(env), 'audit', 'signing-key.pem'));
}

/**
 * Where the ledger keeps its signed head (the anchor, one file per log): RL_AUDIT_HEAD_DIR, else `heads` beside the
 * signing key. Deployed, the key is a read-only Secret file and the heads live on the ledger's own volume.
 */
export function auditHeadDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(settingText('RL_AUDIT_HEAD_DIR', env) ?? join(dirname(auditKeyFile(env)), 'heads'));
}

/** The public half sits beside the private key, readable, so verifiers can pin it. */
export function publicKeyFileOf(keyFile: string): string {
  return keyFile.replace(/\.pem$/, '') + '.pub.pem';
}

/** A short, stable fingerprint of a public key: sha256 of its SPKI DER, first 32 hex digits. */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 32);
}

export interface AuditSigningKey extends ChainSigner {
  readonly publicKeyPem: string;
  /** The keys this ledger trusts: its own, then the retired ones it signed with before a rotation (k8s/README.md). */
  readonly trustedPublicKeyPems: readonly string[];
}

/** Retired public keys (PEM blocks, oldest first) beside the signing key: what the chain was signed with before a rotation. */
export function retiredKeysFileOf(keyFile: string): string {
  return join(dirname(keyFile), 'retired-keys.pub.pem');
}

function retiredKeys(keyFile: string): string[] {
  const file = retiredKeysFileOf(keyFile);
  if (!existsSync(file)) return [];
  const pems = readFileSync(file, 'utf8').match(/-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----\n?/g) ?? [];
  // A file that holds no key is a mistake (the ledger would refuse the chain it signed before): say so at start.
  if (pems.length === 0) throw new Error(`${file} holds no PEM public key`);
  return pems.map((pem, i) => {
    const key = ed25519PublicKey(pem);
    // The chain is signed with Ed25519 only: a retired key of another kind could verify nothing, so say so at start.
    if (!key) throw new Error(`${file}: key ${i + 1} is not an Ed25519 public key`);
    return key.export({ type: 'spki', format: 'pem' }).toString();
  });
}

/** The key a PEM holds if it is an Ed25519 public key (the only kind the chain is signed with), else undefined. */
export function ed25519PublicKey(pem: string): KeyObject | undefined {
  try {
    const key = createPublicKey(pem);
    return key.asymmetricKeyType === 'ed25519' ? key : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Loads the signing key, generating it on first start (mode 0600, folder 0700). A key file others can read is
 * refused: whoever reads it can sign a forged chain. Group read is accepted only for the process's own group, which
 * is how Kubernetes mounts a Secret for a non-root pod (fsGroup: mode 0440, group = the pod's group). Two processes
 * racing on first start agree on one key (exclusive create; the loser reads the winner's file). A key given
 * read-only (a mounted Secret) keeps its public half where the operator put it: the file beside it is written only
 * where it can be.
 */
export function loadOrCreateAuditKey(file = auditKeyFile()): AuditSigningKey {
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync('ed25519');
    try {
      writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  const st = statSync(file);
  const ownGroup = typeof process.getgid === 'function' && st.gid === process.getgid();
  if ((st.mode & 0o007) !== 0 || (st.mode & 0o070 & ~(ownGroup ? 0o040 : 0)) !== 0) {
    throw new Error(`audit signing key ${file} is readable by others (mode ${(st.mode & 0o777).toString(8)}); chmod 600 it`);
  }
  const privateKey = createPrivateKey(readFileSync(file));
  const publicKey = createPublicKey(privateKey);
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const pubFile = publicKeyFileOf(file);
  if (!existsSync(pubFile) || readFileSync(pubFile, 'utf8') !== publicKeyPem) {
    try {
      writeFileSync(pubFile, publicKeyPem, { mode: 0o644 });
      chmodSync(pubFile, 0o644);
    } catch (err) {
      if (!READ_ONLY_CODES.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
    }
  }
  const keyId = keyIdOf(publicKey);
  const trustedPublicKeyPems = [publicKeyPem, ...retiredKeys(file).filter((pem) => pem !== publicKeyPem)];
  return { keyId, publicKeyPem, trustedPublicKeyPems, sign: (message) => sign(null, Buffer.from(message), privateKey).toString('base64') };
}

/** A key folder the process may not write to (a read-only Secret mount or root file system). */
const READ_ONLY_CODES = new Set(['EROFS', 'EACCES', 'EPERM']);

/** Checks signatures against the given trusted public keys (PEM) only. */
export function trustedKeys(pems: readonly string[]): SignatureCheck {
  const keys = new Map(pems.map((pem, i) => {
    const key = ed25519PublicKey(pem);
    if (!key) throw new Error(`trusted key ${i + 1} is not an Ed25519 public key`);
    return [keyIdOf(key), key] as const;
  }));
  return (keyId, message, signature) => {
    const key = keys.get(keyId);
    return key !== undefined && verify(null, Buffer.from(message), key, Buffer.from(signature, 'base64'));
  };
}
