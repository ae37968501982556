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
 */
export class ChainAnchor {
  /** The newest head this process wrote or read: the file is read once, not on every chained event. */
  private newestSeq: number | null = null;

  private constructor(private readonly file: string) {}

  static async open(keyFile: string, jsm: JetStreamManager): Promise<ChainAnchor> {
    const info = await jsm.streams.info(LOG_STREAM);
    const logId = createHash('sha256').update(`${info.config.name}\u001f${info.created}`).digest('hex').slice(0, 24);
    return new ChainAnchor(join(dirname(keyFile), 'heads', `${logId}.json`));
  }

  read(): ChainCheckpoint | null {
    try {
      return JSON.parse(readFileSync(this.file, 'utf8')) as ChainCheckpoint;
    } catch {
      return null;
    }
  }

  /** Written atomically (rename), and only forwards: an older head never replaces a newer one. */
  write(checkpoint: ChainCheckpoint): void {
    this.newestSeq ??= this.read()?.seq ?? 0;
    if (this.newestSeq >= checkpoint.seq) return;
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(checkpoint), { mode: 0o600 });
    renameSync(tmp, this.file);
    this.newestSeq = checkpoint.seq;
  }
}
