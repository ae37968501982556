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
}

/**
 * Loads the signing key, generating it on first start (mode 0600, folder 0700). A key file others can read is
 * refused: whoever reads it can sign a forged chain. Two processes racing on first start agree on one key
 * (exclusive create; the loser reads the winner's file).
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
  const mode = statSync(file).mode & 0o077;
  if (mode !== 0) throw new Error(`audit signing key ${file} is readable by others (mode ${(statSync(file).mode & 0o777).toString(8)}); chmod 600 it`);
  const privateKey = createPrivateKey(readFileSync(file));
  const publicKey = createPublicKey(privateKey);
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const pubFile = publicKeyFileOf(file);
  if (!existsSync(pubFile) || readFileSync(pubFile, 'utf8') !== publicKeyPem) {
    writeFileSync(pubFile, publicKeyPem, { mode: 0o644 });
    chmodSync(pubFile, 0o644);
  }
  const keyId = keyIdOf(publicKey);
  return { keyId, publicKeyPem, sign: (message) => sign(null, Buffer.from(message), privateKey).toString('base64') };
}

/** Checks signatures against the given trusted public keys (PEM) only. */
export function trustedKeys(pems: readonly string[]): SignatureCheck {
  const keys = new Map(pems.map((pem) => {
    const key = createPublicKey(pem);
    return [keyIdOf(key), key] as const;
  }));
  return (keyId, message, signature) => {
    const key = keys.get(keyId);
    return key !== undefined && verify(null, Buffer.from(message), key, Buffer.from(signature, 'base64'));
  };
}
