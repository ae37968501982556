import type { JetStreamManager } from '@nats-io/jetstream';
import { nextMatchingOnLeader } from '@runledger/event-log';

/**
 * Securely erases every message of a stream on `subject` (a subject or a wildcard filter): each is deleted through
 * `$JS.API.STREAM.MSG.DELETE.<stream>` without `no_erase`, so nats-server overwrites the record's bytes in its
 * block file with random data before it forgets it. A purge (or a KV delete) only marks messages deleted: their
 * bytes stay in the block file until the server compacts it, and a disk read recovers them (issue 23). Only
 * messages the stream still holds can be reached: a revision the stream already dropped (a KV bucket's history
 * limit) left its bytes behind, which is why personal data is sealed before it is stored (README "Erasure").
 * Returns how many messages were erased. The admin's act: no service may delete messages.
 */
export async function secureEraseSubject(jsm: JetStreamManager, stream: string, subject: string): Promise<number> {
  let erased = 0;
  for (let m = await nextMatchingOnLeader(jsm, stream, subject, 1); m; m = await nextMatchingOnLeader(jsm, stream, subject, m.seq + 1)) {
    await jsm.streams.deleteMessage(stream, m.seq, true);
    erased++;
  }
  return erased;
}
