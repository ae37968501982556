import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { JetStreamManager } from '@nats-io/jetstream';
import { LOG_STREAM } from '@runledger/event-log';
import type { ChainCheckpoint } from '@runledger/governance';

/**
 * The latest signed head, kept outside the log (beside the signing key). The log cannot be cut from its end,
 * but an admin who lowers its limits drops the oldest events and could drop the whole chain; verification
 * compares the chain with this head, so a chain shorter than what was signed reads as truncated.
 * One file per log (named after the stream's creation time), so stacks sharing a data folder keep apart.
 * Writes are coalesced: the file (an fsync'd rename on most file systems) is replaced at most once per
 * ANCHOR_FLUSH_MS with the newest head, not once per chained event (that rename was two thirds of the ledger's
 * CPU under load). The anchor lags the chain by at most that interval; in this process `read()` sees the newest.
 */
export const ANCHOR_FLUSH_MS = 100;

export class ChainAnchor {
  /** The newest head this process wrote or read: the file is read once, not on every chained event. */
  private newestSeq: number | null = null;
  private pending: ChainCheckpoint | null = null;
  private timer: NodeJS.Timeout | null = null;

  private constructor(private readonly file: string) {}

  static async open(keyFile: string, jsm: JetStreamManager): Promise<ChainAnchor> {
    const info = await jsm.streams.info(LOG_STREAM);
    const logId = createHash('sha256').update(`${info.config.name}\u001f${info.created}`).digest('hex').slice(0, 24);
    return new ChainAnchor(join(dirname(keyFile), 'heads', `${logId}.json`));
  }

  read(): ChainCheckpoint | null {
    if (this.pending) return this.pending;
    try {
      return JSON.parse(readFileSync(this.file, 'utf8')) as ChainCheckpoint;
    } catch {
      return null;
    }
  }

  /** Only forwards: an older head never replaces a newer one. The file follows within ANCHOR_FLUSH_MS. */
  write(checkpoint: ChainCheckpoint): void {
    this.newestSeq ??= this.read()?.seq ?? 0;
    if (this.newestSeq >= checkpoint.seq) return;
    this.newestSeq = checkpoint.seq;
    this.pending = checkpoint;
    this.timer ??= setTimeout(() => this.flush(), ANCHOR_FLUSH_MS);
  }

  /** Writes the newest head atomically (rename). Also on shutdown, so a clean stop leaves the anchor current. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const checkpoint = this.pending;
    if (!checkpoint) return;
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(checkpoint), { mode: 0o600 });
    renameSync(tmp, this.file);
    if (this.pending === checkpoint) this.pending = null;
  }

  onModuleDestroy(): void {
    this.flush();
  }
}
