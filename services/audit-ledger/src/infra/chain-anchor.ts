import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { JetStreamManager } from '@nats-io/jetstream';
import { Logger } from '@nestjs/common';
import { LOG_STREAM, logIdentityOf } from '@runledger/event-log';
import type { ChainCheckpoint, LogAnchor, LogIdentity } from '@runledger/governance';

/** The identity of the log as the server describes it now (see LogIdentity). */
export async function currentLogIdentity(jsm: JetStreamManager): Promise<LogIdentity> {
  return logIdentityOf(await jsm.streams.info(LOG_STREAM));
}

/**
 * The latest signed head, kept outside the log (beside the signing key), with the identity of the log it was taken
 * of. Verification compares the chain with this head (a chain shorter than what was signed reads as truncated) and
 * the log with its identity: a log deleted and created again, with all, part or none of its messages, or cut from its
 * start, is `log_replaced`. One file per stream name, so recreating the log cannot start a fresh anchor; an anchor of
 * another log is never overwritten (it is the evidence). An operator who means to start over moves the file away.
 * Writes are coalesced: the file (an fsync'd rename on most file systems) is replaced at most once per
 * ANCHOR_FLUSH_MS with the newest head, not once per chained event (that rename was two thirds of the ledger's
 * CPU under load; at 100 ms still 5 % under load, issue 22). The anchor lags the chain by at most that interval;
 * in this process `read()` sees the newest.
 *
 * Why a crash inside that interval loses nothing: the head not yet in the file is in the log, as the checkpoint of the
 * chain's last message, signed with the key and bound to its entry hash. The file is a second copy kept only to
 * catch a chain shorter than what was signed; an older head there is still a true statement about a prefix of the
 * chain (verify passes: the chain reaches it), and the restarted ledger writes the log's signed tail back into the file
 * once it has read that tail and checked it is its own (AuditChainWriter.loadTail, before its first append). What the lag
 * gives up is only this: a log replaced in the second before the crash with a copy that lacks the last batch is caught
 * by the log's identity (log_replaced), not by the head's sequence.
 */
export const ANCHOR_FLUSH_MS = 1000;

export class ChainAnchor {
  private readonly logger = new Logger('AuditAnchor');
  /** The newest head this process wrote or read: the file is read once, not on every chained event. */
  private newestSeq: number | null = null;
  private pending: LogAnchor | null = null;
  private timer: NodeJS.Timeout | null = null;
  private folderMade = false;
  /** Set at shutdown: from then on a head is written at once (no timer would outlive the process to write it). */
  private closing = false;

  private constructor(private readonly file: string, private readonly legacyFile: string, readonly log: LogIdentity) {}

  /** `heads`: the folder of the anchors (RL_AUDIT_HEAD_DIR; by default `heads` beside the signing key). */
  static async open(keyFile: string, jsm: JetStreamManager, heads = join(dirname(keyFile), 'heads')): Promise<ChainAnchor> {
    const log = await currentLogIdentity(jsm);
    // Before issue 23 the file was named after the log's creation time (so a recreated log started without one):
    // read once as this log's anchor, so an upgrade keeps its head.
    const legacyId = createHash('sha256').update(`${log.stream}\u001f${log.created}`).digest('hex').slice(0, 24);
    return new ChainAnchor(join(heads, `${log.stream}.json`), join(heads, `${legacyId}.json`), log);
  }

  /** The newest head and the log it is of; null when none was ever written. */
  read(): LogAnchor | null {
    if (this.pending) return this.pending;
    const stored = readJson(this.file) as Partial<LogAnchor> | null;
    if (stored?.log && stored.checkpoint) return stored as LogAnchor;
    const legacy = readJson(this.legacyFile) as ChainCheckpoint | null;
    return legacy ? { log: this.log, checkpoint: legacy } : null;
  }

  /**
   * Only forwards: an older head never replaces a newer one, and a head of this log never replaces one of another log.
   * The file follows within ANCHOR_FLUSH_MS.
   */
  write(checkpoint: ChainCheckpoint): void {
    if (this.newestSeq === null) {
      const held = this.read();
      if (held && (held.log.created !== this.log.created || held.log.first_seq !== this.log.first_seq)) this.newestSeq = Infinity;
      else this.newestSeq = held?.checkpoint.seq ?? 0;
    }
    if (this.newestSeq >= checkpoint.seq) return;
    this.newestSeq = checkpoint.seq;
    this.pending = { log: this.log, checkpoint };
    if (this.closing) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), ANCHOR_FLUSH_MS);
  }

  /**
   * Writes the newest head atomically (rename). Also on shutdown, so a clean stop leaves the anchor current. A write
   * that fails (the folder removed, the disk full) keeps the head pending and is tried again at the next interval:
   * the ledger keeps chaining (the head is in the log) and says so, rather than dying in a timer.
   */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const anchor = this.pending;
    if (!anchor) return;
    try {
      if (!this.folderMade) mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
      this.folderMade = true;
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(anchor), { mode: 0o600 });
      renameSync(tmp, this.file);
    } catch (err) {
      this.folderMade = false;
      this.logger.error({ msg: 'audit anchor file could not be written; trying again', file: this.file, error: (err as Error).message });
      // Unref'd: a stop whose last flush failed is not held open by the retry.
      this.timer ??= setTimeout(() => this.flush(), ANCHOR_FLUSH_MS).unref();
      return;
    }
    if (this.pending === anchor) this.pending = null;
  }

  /**
   * Shutdown (app.close, on SIGINT or SIGTERM): the newest head is written now, and so is any head chained after this
   * (a batch whose append was in flight; AuditChainWriter waits for it before the app shuts down). A stopped ledger's
   * folder holds the anchor of what it chained, even on a fresh store stopped before the first timed write.
   */
  onModuleDestroy(): void {
    this.closing = true;
    this.flush();
  }

  onApplicationShutdown(): void {
    this.flush();
  }
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}
