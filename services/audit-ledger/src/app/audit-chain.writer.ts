import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { aggregateRef, ConcurrencyError, EventLog, StoredEvent } from '@runledger/event-log';
import { checkpointSigned, signCheckpoint, type ChainEntry } from '@runledger/governance';
import { trustedKeys, type AuditSigningKey } from '@runledger/messaging';
import { CHAINED_EVENT_TYPES, nextChainEntry } from '../domain/audit-chain';
import type { ChainAnchor } from '../infra/chain-anchor';

export { CHAINED_EVENT_TYPES };

export const CHAIN_REF = aggregateRef('audit', 'chain');
/** The ledger's public keys, recorded in the log so verifiers can find them (they pin them; the log is no trust root). */
export const KEYS_REF = aggregateRef('audit', 'keys');
export const AUDIT_SIGNER = Symbol('AUDIT_SIGNER');
export const CHAIN_ANCHOR = Symbol('CHAIN_ANCHOR');

/**
 * The single writer of the audit hash chain. Each entry carries the previous entry's hash and a checkpoint of the
 * chain at that entry signed with the ledger's key (kept outside the log); the append expects the chain's current
 * version, so two writers can never fork it, and the entry's msgID derives from the source event, so a redelivered
 * event is chained once. A tail this ledger did not sign is never built upon: that would sign a forgery.
 */
@Injectable()
export class AuditChainWriter implements OnModuleInit {
  private readonly logger = new Logger('AuditChain');
  private last: ChainEntry | null = null;
  private version = 0;
  private loaded = false;

  constructor(
    private readonly log: EventLog,
    @Inject(AUDIT_SIGNER) private readonly signer: AuditSigningKey,
    @Inject(CHAIN_ANCHOR) private readonly anchor: ChainAnchor,
  ) {}

  private async loadTail(): Promise<void> {
    this.version = await this.log.version(CHAIN_REF);
    if (this.version === 0) {
      this.last = null;
    } else {
      const tail = await this.log.read(CHAIN_REF, this.version);
      this.last = (tail[tail.length - 1]?.data as ChainEntry) ?? null;
      await this.refuseForeignTail();
    }
    this.loaded = true;
  }

  private async refuseForeignTail(): Promise<void> {
    const last = this.last;
    if (!last) return;
    const check = trustedKeys([this.signer.publicKeyPem]);
    if (last.checkpoint) {
      if (checkpointSigned(last.checkpoint, check) && last.checkpoint.entry_hash === last.entry_hash) return;
      throw new Error(`audit chain tail (entry ${last.seq}) is not signed by this ledger's key; refusing to chain onto it`);
    }
    // An unsigned tail is acceptable only on a chain from before checkpoints existed (no entry signed at all).
    const entries = (await this.log.read(CHAIN_REF)).map((e) => e.data as ChainEntry);
    if (entries.some((e) => e.checkpoint)) throw new Error(`audit chain tail (entry ${last.seq}) carries no checkpoint; refusing to chain onto it`);
    this.logger.warn({ msg: 'adopting an audit chain written before signed checkpoints', entries: entries.length });
  }

  /** Chains one log event (if it is auditable); returns the entry, or null when not chained. */
  async chain(event: StoredEvent): Promise<ChainEntry | null> {
    if (!CHAINED_EVENT_TYPES.has(event.type)) return null;
    if (!this.loaded) await this.loadTail();
    for (let attempt = 1; attempt <= 3; attempt++) {
      const next = nextChainEntry(this.last, event);
      if (!next) return this.last; // the entry just written: a redelivery
      const entry: ChainEntry = { ...next, checkpoint: signCheckpoint(next, this.signer) };
      try {
        const res = await this.log.append(CHAIN_REF, [{ type: 'AuditChainEntry', data: entry }], { commandId: `chain:${entry.event_id}`, expectedVersion: this.version });
        if (res.duplicate) {
          await this.loadTail(); // chained before a crash; our view of the tail was stale
          return this.last;
        }
        this.last = entry;
        this.version = res.version;
        if (entry.checkpoint) this.anchor.write(entry.checkpoint);
        return entry;
      } catch (err) {
        if (!(err instanceof ConcurrencyError)) throw err;
        this.logger.warn({ msg: 'chain moved under us; reloading tail', event_id: entry.event_id });
        await this.loadTail();
      }
    }
    throw new Error('audit chain append kept conflicting');
  }

  /** Records the public key in the log once (idempotent by key id). */
  async onModuleInit(): Promise<void> {
    await this.log.append(KEYS_REF, [{ type: 'AuditSigningKeyPublished', data: { key_id: this.signer.keyId, algorithm: 'Ed25519', public_key_pem: this.signer.publicKeyPem } }], { commandId: `audit-key:${this.signer.keyId}` });
  }
}
