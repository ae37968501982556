import { Injectable, Logger } from '@nestjs/common';
import { aggregateRef, ConcurrencyError, EventLog, StoredEvent } from '@runledger/event-log';
import type { ChainEntry } from '@runledger/governance';
import { CHAINED_EVENT_TYPES, nextChainEntry } from '../domain/audit-chain';

export { CHAINED_EVENT_TYPES };

export const CHAIN_REF = aggregateRef('audit', 'chain');

/**
 * The single writer of the audit hash chain. Each entry carries the previous entry's hash; the append
 * expects the chain's current version, so two writers can never fork it, and the entry's msgID derives
 * from the source event, so a redelivered event is chained once.
 */
@Injectable()
export class AuditChainWriter {
  private readonly logger = new Logger('AuditChain');
  private last: ChainEntry | null = null;
  private version = 0;
  private loaded = false;

  constructor(private readonly log: EventLog) {}

  private async loadTail(): Promise<void> {
    this.version = await this.log.version(CHAIN_REF);
    if (this.version === 0) {
      this.last = null;
    } else {
      const tail = await this.log.read(CHAIN_REF, this.version);
      this.last = (tail[tail.length - 1]?.data as ChainEntry) ?? null;
    }
    this.loaded = true;
  }

  /** Chains one log event (if it is auditable); returns the entry, or null when not chained. */
  async chain(event: StoredEvent): Promise<ChainEntry | null> {
    if (!CHAINED_EVENT_TYPES.has(event.type)) return null;
    if (!this.loaded) await this.loadTail();
    for (let attempt = 1; attempt <= 3; attempt++) {
      const entry = nextChainEntry(this.last, event);
      if (!entry) return this.last; // the entry just written: a redelivery
      try {
        const res = await this.log.append(CHAIN_REF, [{ type: 'AuditChainEntry', data: entry }], { commandId: `chain:${entry.event_id}`, expectedVersion: this.version });
        if (res.duplicate) {
          await this.loadTail(); // chained before a crash; our view of the tail was stale
          return this.last;
        }
        this.last = entry;
        this.version = res.version;
        return entry;
      } catch (err) {
        if (!(err instanceof ConcurrencyError)) throw err;
        this.logger.warn({ msg: 'chain moved under us; reloading tail', event_id: entry.event_id });
        await this.loadTail();
      }
    }
    throw new Error('audit chain append kept conflicting');
  }
}
