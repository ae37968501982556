import { Inject, Injectable } from '@nestjs/common';
import type { AuditVerification } from '@runledger/contracts';
import { EventLog, ForeignMessageError, LOG_STREAM, LOG_SUBJECT_PREFIX, logIdentityOf, positionBefore, readFailed, StoredEvent, storedEvents, UnreadableMessageError, writerMessageProblem } from '@runledger/event-log';
import { AnchoredVerification, ChainEntry, chainEntriesOf, checkCompleteness, checkLogIdentity, LoggedAuditEvent, verifyAnchoredChain } from '@runledger/governance';
import { RUNTIME, ServiceRuntime, trustedKeys, type AuditSigningKey } from '@runledger/messaging';
import { OwnershipCheck } from '@runledger/runs';
import { chainedPosition, loggedAuditEvent } from '../domain/audit-chain';
import type { ChainAnchor } from '../infra/chain-anchor';
import { AUDIT_SIGNER, CHAIN_ANCHOR, CHAIN_REF } from './audit-chain.writer';
import { LEDGER_DURABLE } from './audit-ledger.service';


/** The run events' subjects (rl.log.run.{run_id} before issue 23, rl.log.run.{owner}.{run_id}): what the chain must cover. */
const RUN_SUBJECT_PREFIX = `${LOG_SUBJECT_PREFIX}.run.`;

/** A stored message verification cannot take as written: a tamper, named by its log sequence. */
class DamagedMessage extends Error {
  constructor(readonly seq: number, readonly what: string) {
    super(`log message ${seq} ${what}`);
  }
}

/** How many foreign messages a report names (the count says how many there are). */
const FOREIGN_NAMED = 20;

/**
 * Messages of the log no Runledger writer made (ForeignMessageError): the server stored them as a request's reply.
 * Every reader skipped them and the chain never took them in, so they do not break it; the report names them, as an
 * insider had them stored.
 */
type ForeignMessages = NonNullable<AuditVerification['foreign_messages']>;

export type VerifyReport = AnchoredVerification & { key_id: string; public_key_pem: string; head_hash?: string | null; foreign_messages?: ForeignMessages };

/** Verification of the live chain: links, signatures, the outside anchor, and completeness against the log. */
@Injectable()
export class AuditVerifier {
  constructor(
    private readonly log: EventLog,
    @Inject(AUDIT_SIGNER) private readonly signer: AuditSigningKey,
    @Inject(CHAIN_ANCHOR) private readonly anchor: ChainAnchor,
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
  ) {}

  /**
   * One snapshot: the outside anchor and the ledger's progress first, then the log once, from its first message to
   * its end as it is now. The chain only grows, so nothing read before can be newer than the chain read after it (a
   * head read after the chain, while the ledger chains a burst, looked like a cut tail). The whole log is read message
   * by message (direct gets): a stored message the server cannot hand out, or an audited one that is not a commit of
   * events, is named by its log sequence instead of stalling the read.
   */
  async verify(): Promise<VerifyReport> {
    const key = { key_id: this.signer.keyId, public_key_pem: this.signer.publicKeyPem };
    const anchor = this.anchor.read();
    const processedUpTo = await this.ackFloor();
    const info = await this.runtime.jsm.streams.info(LOG_STREAM).catch(readFailed);
    // The log the ledger anchored, or another one (deleted and created again, or cut from its start): nothing in it is then proven.
    const replaced = checkLogIdentity(anchor, logIdentityOf(info));
    if (replaced) return { ...replaced, ...key };
    const snapshot = await this.readLog(info.state);
    if ('damaged' in snapshot) return { ...snapshot.damaged, ...key };
    const entries = chainEntriesOf(snapshot.chain);
    const foreign = foreignReport(snapshot.foreign);
    // A message the chain took in as a writer's cannot have become no writer's: its headers were edited in the store.
    const chained = new Set(entries.map((e) => Number(e.body.log_seq)));
    const edited = snapshot.foreign.find((f) => chained.has(f.log_seq));
    if (edited) return { ok: false, first_broken_seq: entries.findIndex((e) => Number(e.body.log_seq) === edited.log_seq) + 1, reason: 'damaged_message', log_seq: edited.log_seq, detail: `log message ${edited.log_seq} was chained as a writer's commit and now ${edited.why} (edited in the store)`, ...key, ...foreign };
    const anchored = verifyAnchoredChain(entries, { check: trustedKeys(this.signer.trustedPublicKeyPems), anchor: anchor?.checkpoint });
    if (!anchored.ok) return { ...anchored, ...key, ...foreign };
    // Chained by now: every event of a commit the ledger acked, and every event up to the chain head's position (a
    // commit's events may be chained in two chain messages, the second not written yet: those after the head are not).
    const head = chainedPosition(entries[entries.length - 1] ?? null);
    const logged = snapshot.audited.filter((a) => a.log_seq <= processedUpTo || !positionBefore(head, { seq: a.log_seq, index: a.log_index ?? 0 }));
    const missing = checkCompleteness(entries, logged);
    return { ...(missing ?? forgedRun(snapshot.ownership, entries.length) ?? anchored), ...key, ...foreign };
  }

  /** The chain's messages and the audit-relevant run events of the log as it is now, or the first damaged message. */
  private async readLog(state: { messages: number; first_seq: number; last_seq: number }): Promise<{ chain: StoredEvent[]; audited: LoggedAuditEvent[]; ownership: OwnershipCheck; foreign: ForeignMessages['first'] } | { damaged: AnchoredVerification }> {
    const chain: StoredEvent[] = [];
    const audited: LoggedAuditEvent[] = [];
    const foreign: ForeignMessages['first'] = [];
    // Issue 23: every run's events checked against its owner as they are read (a few fields per run id, not its events).
    const ownership = new OwnershipCheck();
    if (!state.messages) return { chain, audited, ownership, foreign };
    try {
      await this.log.messages(`${LOG_SUBJECT_PREFIX}.>`, state.first_seq, state.last_seq, (m) => {
        const isChain = m.subject === CHAIN_REF.subject;
        if (!isChain && !m.subject.startsWith(RUN_SUBJECT_PREFIX)) {
          // Not audited, but a message no writer made is named wherever it was stored (its headers only: nothing decoded).
          const why = writerMessageProblem(m);
          if (why) foreign.push({ log_seq: m.seq, why });
          return;
        }
        let events: StoredEvent[];
        try {
          events = storedEvents(m);
        } catch (err) {
          // Skipped by every reader, live and in a replay: named in the report, not a break (see ForeignMessages).
          if (err instanceof ForeignMessageError) return void foreign.push({ log_seq: m.seq, why: err.why });
          throw new DamagedMessage(m.seq, 'is a writer\'s message but not a commit of events (edited in the store)');
        }
        if (!isChain) ownership.commit(events);
        return this.log.each(events, (event) => {
          if (isChain) chain.push(event);
          else {
            const a = loggedAuditEvent(event);
            if (a) audited.push(a);
          }
        });
      });
    } catch (err) {
      const damaged = err instanceof UnreadableMessageError ? new DamagedMessage(err.seq, 'cannot be read: the server holds no readable message there (damaged in the store, or removed)') : err;
      if (!(damaged instanceof DamagedMessage)) throw err;
      const proven = chainEntriesOf(chain).length;
      return { damaged: { ok: false, first_broken_seq: proven + 1, reason: 'damaged_message', log_seq: damaged.seq, detail: `log message ${damaged.seq} ${damaged.what}` } };
    }
    return { chain, audited, ownership, foreign };
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

/** The report's foreign_messages (absent when there are none). */
function foreignReport(found: ForeignMessages['first']): { foreign_messages?: ForeignMessages } {
  return found.length ? { foreign_messages: { count: found.length, first: found.slice(0, FOREIGN_NAMED) } } : {};
}

/** The first run the log holds that its owner did not write (a forged_run verdict naming it), or null. */
function forgedRun(ownership: OwnershipCheck, chainLength: number): AnchoredVerification | null {
  const [first, ...more] = ownership.forgeries();
  if (!first) return null;
  const others = more.length ? `; ${more.length} more forged: ${[...new Set(more.map((f) => f.run_id))].slice(0, 10).join(', ')}` : '';
  // The chain itself holds: the verdict is about the log past it (first_broken_seq: the entry after the chain's last).
  return { ok: false, first_broken_seq: chainLength + 1, reason: 'forged_run', log_seq: first.seq, detail: `run ${first.run_id} is forged: ${first.reason} (${first.subject}, log message ${first.seq})${others}` };
}
