import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditHeadDir, auditKeyFile, loadOrCreateAuditKey, publicKeyFileOf, retiredKeysFileOf } from './audit-keys';

describe('audit signing key', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'rl-audit-key-')); });
  afterEach(() => {
    chmodSync(dir, 0o700);
    rmSync(dir, { recursive: true, force: true });
  });

  /** A key as Kubernetes mounts a Secret for a non-root pod: read-only folder, mode 0440, group = the pod's group. */
  function secretMount(mode: number): string {
    const mount = join(dir, 'audit-key');
    mkdirSync(mount);
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    writeFileSync(join(mount, 'signing-key.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
    writeFileSync(join(mount, 'signing-key.pub.pem'), publicKey.export({ type: 'spki', format: 'pem' }));
    chmodSync(join(mount, 'signing-key.pem'), mode);
    chmodSync(mount, 0o500);
    return join(mount, 'signing-key.pem');
  }

  it('Issue 24 the ledger as shipped: a key mounted read-only from a Secret (0440, the pod\'s own group) signs and trusts only itself', () => {
    const file = secretMount(0o440);
    const key = loadOrCreateAuditKey(file);
    expect(key.keyId).toMatch(/^[0-9a-f]{32}$/);
    expect(key.sign('head')).toBeTruthy();
    expect(existsSync(publicKeyFileOf(file))).toBe(true);
    expect(key.trustedPublicKeyPems).toEqual([key.publicKeyPem]);
  });

  it('Issue 24 key rotation: the retired public keys beside the key (retired-keys.pub.pem) are trusted after the ledger\'s own', () => {
    const file = secretMount(0o440);
    const retired = [generateKeyPairSync('ed25519'), generateKeyPairSync('ed25519')].map((k) => k.publicKey.export({ type: 'spki', format: 'pem' }).toString());
    chmodSync(join(dir, 'audit-key'), 0o700);
    writeFileSync(retiredKeysFileOf(file), retired.join(''));
    const key = loadOrCreateAuditKey(file);
    expect(key.trustedPublicKeyPems).toEqual([key.publicKeyPem, ...retired]);
    writeFileSync(retiredKeysFileOf(file), 'not a key\n');
    expect(() => loadOrCreateAuditKey(file)).toThrow(/holds no PEM public key/);
    // A retired key of another kind could verify no signature of the chain (Ed25519 only): refused at start, named.
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    writeFileSync(retiredKeysFileOf(file), retired[0] + rsa);
    expect(() => loadOrCreateAuditKey(file)).toThrow(`${retiredKeysFileOf(file)}: key 2 is not an Ed25519 public key`);
  });

  it('Issue 24 the ledger as shipped: a key others can read still stops the ledger, mounted or not', () => {
    expect(() => loadOrCreateAuditKey(secretMount(0o444))).toThrow(/readable by others/);
  });

  it('Issue 24 the ledger as shipped: the signed head has its own folder (RL_AUDIT_HEAD_DIR), else heads/ beside the key', () => {
    expect(auditHeadDir({ RL_AUDIT_KEY_FILE: '/var/run/key/signing-key.pem', RL_AUDIT_HEAD_DIR: '/var/lib/runledger/audit/heads' })).toBe('/var/lib/runledger/audit/heads');
    expect(auditHeadDir({ RL_AUDIT_KEY_FILE: '/srv/audit/signing-key.pem' })).toBe('/srv/audit/heads');
    expect(auditKeyFile({ RL_AUDIT_KEY_FILE: '/srv/audit/signing-key.pem' })).toBe('/srv/audit/signing-key.pem');
  });

  it('Issue 24 the ledger as shipped: a key generated on first start is 0600 with its public half beside it (npm start)', () => {
    const file = join(dir, 'data', 'audit', 'signing-key.pem');
    const key = loadOrCreateAuditKey(file);
    expect(loadOrCreateAuditKey(file).keyId).toBe(key.keyId);
    expect(existsSync(publicKeyFileOf(file))).toBe(true);
  });
});
