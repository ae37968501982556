import { Inject, Injectable } from '@nestjs/common';
import { EventLog, LOG_STREAM, positionBefore } from '@runledger/event-log';
import { AnchoredVerification, ChainEntry, chainEntriesOf, checkCompleteness, LoggedAuditEvent, verifyAnchoredChain } from '@runledger/governance';
import { RUNTIME, ServiceRuntime, trustedKeys, type AuditSigningKey } from '@runledger/messaging';
import { chainedPosition, loggedAuditEvent } from '../domain/audit-chain';
import type { ChainAnchor } from '../infra/chain-anchor';
import { AUDIT_SIGNER, CHAIN_ANCHOR, CHAIN_REF } from './audit-chain.writer';
import { LEDGER_DURABLE } from './audit-ledger.service';


export type VerifyReport = AnchoredVerification & { key_id: string; public_key_pem: string; head_hash?: string | null };

/** Verification of the live chain: links, signatures, the outside anchor, and completeness against the log. */
@Injectable()
export class AuditVerifier {
  constructor(
    private readonly log: EventLog,
    @Inject(AUDIT_SIGNER) private readonly signer: AuditSigningKey,
    @Inject(CHAIN_ANCHOR) private readonly anchor: ChainAnchor,
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
  ) {}

  async verify(): Promise<VerifyReport> {
    // Read how far the ledger got before reading the chain, so everything up to that point is chained by then.
    const processedUpTo = await this.ackFloor();
    const entries = chainEntriesOf(await this.log.read(CHAIN_REF));
    const key = { key_id: this.signer.keyId, public_key_pem: this.signer.publicKeyPem };
    const anchored = verifyAnchoredChain(entries, { check: trustedKeys([this.signer.publicKeyPem]), anchor: this.anchor.read() });
    if (!anchored.ok) return { ...anchored, ...key };
    // Chained by now: every event of a commit the ledger acked, and every event up to the chain head's position (a
    // commit's events may be chained in two chain messages, the second not written yet: those after the head are not).
    const head = chainedPosition(entries[entries.length - 1] ?? null);
    const { state: logged } = await this.log.replay<LoggedAuditEvent[]>((acc, e) => {
      const audit = e.seq <= processedUpTo || !positionBefore(head, e) ? loggedAuditEvent(e) : null;
      if (audit) acc.push(audit);
      return acc;
    }, [], { filter: 'rl.log.run.*' });
    const missing = checkCompleteness(entries, logged);
    return { ...(missing ?? anchored), ...key };
  }

  /** The signed checkpoint at the chain's current head (what export manifests carry), with the key to check it. */
  async head(): Promise<{ checkpoint: ChainEntry['checkpoint'] | null; key_id: string; public_key_pem: string }> {
    const version = await this.log.version(CHAIN_REF);
    const tail = version ? chainEntriesOf(await this.log.read(CHAIN_REF, version)) : [];
    const last = tail[tail.length - 1];
    return { checkpoint: last?.checkpoint ?? null, key_id: this.signer.keyId, public_key_pem: this.signer.publicKeyPem };
  }

  private async ackFloor(): Promise<number> {
    const info = await this.runtime.jsm.consumers.info(LOG_STREAM, LEDGER_DURABLE).catch(() => null);
    return info?.ack_floor.stream_seq ?? 0;
  }
}
