import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { settingNumber } from '@runledger/kernel';
import { aggregateRef, ConcurrencyError, EventLog, positionBefore, StoredEvent } from '@runledger/event-log';
import { CHAIN_BATCH_EVENT, chainEntriesOf, checkpointSigned, signCheckpoint, type ChainBatch, type ChainEntry } from '@runledger/governance';
import { trustedKeys, type AuditSigningKey } from '@runledger/messaging';
import { CHAINED_EVENT_TYPES, chainedPosition, nextChainEntry } from '../domain/audit-chain';
import type { ChainAnchor } from '../infra/chain-anchor';

export { CHAINED_EVENT_TYPES };

export const CHAIN_REF = aggregateRef('audit', 'chain');
/** The ledger's public keys, recorded in the log so verifiers can find them (they pin them; the log is no trust root). */
export const KEYS_REF = aggregateRef('audit', 'keys');
export const AUDIT_SIGNER = Symbol('AUDIT_SIGNER');
export const CHAIN_ANCHOR = Symbol('CHAIN_ANCHOR');

/**
 * Entries per chain message. An entry holds ids and digests, never event data (about 1 KiB at the request bounds),
 * so a message stays far below max_payload; the consumer's batch (256 events) fits in one or two messages.
 */
export const CHAIN_ENTRIES_PER_MESSAGE = 128;

/**
 * Appends in a row one batch retries past messages the bus stored on the chain's subject (see chainNow), each a read
 * of what landed since and an append (about a millisecond): a flood faster than that holds the chain up, and after
 * this many the batch fails and is delivered again (README known limit).
 */
const MAX_STORED_ANSWERS_IN_A_ROW = 20_000;

/** Our view of the chain's tail was stale: what we meant to write is already there (a redelivery after a crash). */
class StaleTail extends Error {}

/**
 * The single writer of the audit hash chain. Every auditable event gets its own entry carrying the previous entry's
 * hash; one log message holds the entries of one batch, and its last entry carries a checkpoint of the chain signed
 * with the ledger's key (kept outside the log), which vouches for every entry before it. So a batch costs one append
 * and one signature however many events it chains. The append expects the chain's current version, so two writers
 * can never fork it, and its msgID derives from the batch's first event, so a redelivered batch is chained once.
 * A tail this ledger did not sign is never built upon: that would sign a forgery.
 */
@Injectable()
export class AuditChainWriter implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('AuditChain');
  /** The batches being chained now: shutdown waits for them, so the anchor gets the head they sign. */
  private readonly chaining = new Set<Promise<unknown>>();
  private last: ChainEntry | null = null;
  private version = 0;
  /** The tail's first load, shared: the log consumers may start chaining while onModuleInit still reads it. */
  private started?: Promise<void>;

  constructor(
    private readonly log: EventLog,
    @Inject(AUDIT_SIGNER) private readonly signer: AuditSigningKey,
    @Inject(CHAIN_ANCHOR) private readonly anchor: ChainAnchor,
  ) {}

  private startTail(): Promise<void> {
    this.started ??= this.loadTail(true).catch((err: unknown) => {
      this.started = undefined;
      throw err;
    });
    return this.started;
  }

  /** `atStart`: the first load, checked against the anchor file (later loads follow this process's own appends). */
  private async loadTail(atStart = false): Promise<void> {
    this.version = await this.log.version(CHAIN_REF);
    if (this.version === 0) {
      this.last = null;
    } else {
      // The last chain batch, read past a message no writer made after it (EventLog.lastCommit): such a message is not
      // the chain, which goes on from its last entry after it (the append expects the subject's real last sequence);
      // `audit verify` names it. Starting over at entry 1 instead lost the chain's place and then refused every start
      // (the anchor is ahead): probe finding.
      const tail = chainEntriesOf(await this.log.lastCommit(CHAIN_REF));
      this.last = tail[tail.length - 1] ?? null;
      await this.refuseForeignTail();
    }
    if (atStart) this.refuseTailBehindAnchor();
    // The signed head the log holds goes back into the anchor file (forwards only): a crash before the file was
    // replaced (see ANCHOR_FLUSH_MS) leaves it behind the chain until this point, never after.
    if (this.last?.checkpoint) this.anchor.write(this.last.checkpoint);
  }

  /**
   * A chain that ends before the head this ledger signed for the same log (the store rolled back or cut: a disk
   * restore keeps the log's identity) is never built upon: the next entries would take the lost ones' numbers, and
   * once past the anchor's the anchor would be replaced by a head of another history, erasing the evidence of the cut.
   * An anchor of another log (a log created again) is evidence for `audit verify` (log_replaced), not a reason to stop.
   */
  private refuseTailBehindAnchor(): void {
    const held = this.anchor.read();
    if (!held || held.log.created !== this.anchor.log.created || held.log.first_seq !== this.anchor.log.first_seq) return;
    const seq = this.last?.seq ?? 0;
    const signed = held.checkpoint;
    const other = signed.seq === seq && signed.entry_hash !== this.last?.entry_hash;
    if (signed.seq <= seq && !other) return;
    throw new Error(
      `audit chain ${other ? `entry ${seq} is not the one this ledger signed` : `ends at entry ${seq}, but this ledger signed entry ${signed.seq}`} ` +
        '(its anchor file): the log was cut or rolled back; refusing to chain onto it. Run `runledger audit verify`; an operator who means to start over moves the anchor file away.',
    );
  }

  private async refuseForeignTail(): Promise<void> {
    const last = this.last;
    if (!last) return;
    const check = trustedKeys(this.signer.trustedPublicKeyPems);
    if (last.checkpoint) {
      if (checkpointSigned(last.checkpoint, check) && last.checkpoint.entry_hash === last.entry_hash) return;
      throw new Error(`audit chain tail (entry ${last.seq}) is not signed by this ledger's key; refusing to chain onto it`);
    }
    // An unsigned tail is acceptable only on a chain from before checkpoints existed (no entry signed at all).
    const entries = chainEntriesOf(await this.log.read(CHAIN_REF));
    if (entries.some((e) => e.checkpoint)) throw new Error(`audit chain tail (entry ${last.seq}) carries no checkpoint; refusing to chain onto it`);
    this.logger.warn({ msg: 'adopting an audit chain written before signed checkpoints', entries: entries.length });
  }


  /**
   * Chains the auditable events of one batch (in log order) and returns the entry of each, including events chained
   * before a crash and delivered again, so their read-model rows can be written again.
   */
  chain(events: readonly StoredEvent[]): Promise<ChainEntry[]> {
    const work = this.chainNow(events);
    const settled = work.then(() => undefined, () => undefined);
    this.chaining.add(settled);
    void settled.then(() => this.chaining.delete(settled));
    return work;
  }

  /** After every provider's onModuleDestroy (the anchor now writes each head at once), before the transport closes. */
  async beforeApplicationShutdown(): Promise<void> {
    // Bounded as the transport's drain is (a batch whose append never answers must not hold the stop for good): what
    // is not chained by then is redelivered to the next start, which chains it.
    const drained = (async () => {
      while (this.chaining.size) await Promise.all([...this.chaining]);
    })();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, settingNumber('RL_SHUTDOWN_DRAIN_MS')).unref()));
    await Promise.race([drained.catch(() => undefined), bound]);
    clearTimeout(timer);
  }

  private async chainNow(events: readonly StoredEvent[]): Promise<ChainEntry[]> {
    // Each event once, however often it was handed over: the batch's own entries are not yet behind the head.
    const auditable = [...new Map(events.filter((e) => CHAINED_EVENT_TYPES.has(e.type)).map((e) => [e.metadata.event_id, e])).values()];
    if (auditable.length === 0) return [];
    await this.startTail();
    for (let attempt = 1, storedAnswers = 0; attempt <= 3; attempt++) {
      // The chain follows the log's order: everything up to the position of its last entry is chained.
      const through = chainedPosition(this.last);
      const atOrBehind = (e: StoredEvent) => !positionBefore(through, e);
      // Behind the chain's head: a redelivery, chained before. Whatever is not found there is chained now, even out
      // of log order: an event missing from the chain would be worse than one chained late.
      const behind = auditable.filter(atOrBehind);
      const earlier = behind.length ? await this.entriesOf(behind) : [];
      const chained = new Set(earlier.map((e) => e.event_id));
      const fresh = auditable.filter((e) => !chained.has(e.metadata.event_id));
      if (fresh.some(atOrBehind)) this.logger.warn({ msg: 'chaining events behind the chain head (out of log order)', through });
      try {
        return [...earlier, ...(await this.appendInBatches(fresh))];
      } catch (err) {
        if (!(err instanceof ConcurrencyError) && !(err instanceof StaleTail)) throw err;
        const head = this.last?.entry_hash;
        await this.loadTail();
        // The chain itself did not move: only messages the bus stored on its subject (a JetStream answer sent there,
        // which no permission can refuse) moved its version. Not a second writer: append again at the new version, as
        // often as they come (bounded, so a handler never spins for good). Counting them as conflicts let a flood
        // of them stall the chain and dead-letter real commits (probe finding).
        if (this.last?.entry_hash === head && storedAnswers++ < MAX_STORED_ANSWERS_IN_A_ROW) {
          // At once: a wait would only let more of them pile up between the version read and the append.
          attempt--;
          continue;
        }
        this.logger.warn({ msg: 'chain moved under us; reloading tail', through });
      }
    }
    throw new Error('audit chain append kept conflicting');
  }

  private async appendInBatches(events: readonly StoredEvent[]): Promise<ChainEntry[]> {
    const written: ChainEntry[] = [];
    for (let i = 0; i < events.length; i += CHAIN_ENTRIES_PER_MESSAGE) {
      const entries: ChainEntry[] = [];
      for (const event of events.slice(i, i + CHAIN_ENTRIES_PER_MESSAGE)) {
        const next = nextChainEntry(entries[entries.length - 1] ?? this.last, event);
        if (next) entries.push(next);
      }
      if (entries.length === 0) continue;
      const head = entries[entries.length - 1];
      head.checkpoint = signCheckpoint(head, this.signer);
      const batch: ChainBatch = { entries };
      const res = await this.log.append(CHAIN_REF, [{ type: CHAIN_BATCH_EVENT, data: batch }], { commandId: `chain:${entries[0].event_id}`, expectedVersion: this.version });
      if (res.duplicate) throw new StaleTail(`chain batch from ${entries[0].event_id} is already written`);
      this.last = head;
      this.version = res.version;
      this.anchor.write(head.checkpoint);
      written.push(...entries);
    }
    return written;
  }

  /**
   * The chain's entries of events chained before (a redelivery): an event's entry was appended after the event itself,
   * so the chain messages from the oldest event's log position on hold them all.
   */
  private async entriesOf(events: readonly StoredEvent[]): Promise<ChainEntry[]> {
    const wanted = new Set(events.map((e) => e.metadata.event_id));
    const oldest = Math.min(...events.map((e) => e.seq));
    return chainEntriesOf(await this.log.read(CHAIN_REF, oldest)).filter((e) => wanted.has(e.event_id));
  }

  /**
   * Records the public key in the log once (idempotent by key id), and reads the chain's tail at start: a tail that
   * is not this ledger's, or behind its anchor, stops the ledger before it serves; an anchor file a crash left behind
   * the log's signed tail is brought forward now, not at the first event to chain.
   */
  async onModuleInit(): Promise<void> {
    await this.log.append(KEYS_REF, [{ type: 'AuditSigningKeyPublished', data: { key_id: this.signer.keyId, algorithm: 'Ed25519', public_key_pem: this.signer.publicKeyPem } }], { commandId: `audit-key:${this.signer.keyId}` });
    await this.startTail();
  }
}
