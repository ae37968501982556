import { Inject, Injectable } from '@nestjs/common';
import type { DeadLetter, DeadLettersListResult } from '@runledger/contracts';
import { headers as natsHeaders, MsgHdrs } from '@nats-io/transport-node';
import { aggregateRef, EventLog, LOG_STREAM } from '@runledger/event-log';
import { AppError } from '@runledger/kernel';
import { RUNTIME, ServiceRuntime } from '@runledger/messaging';
import { evolveDeadLetters } from '../domain/dead-letters';

/**
 * Dead letters for operators: listed by folding rl.log.deadletter.* (the transport records every poison
 * message there), retried by re-publishing the original command on its subject and recording DeadLetterRetried.
 */
@Injectable()
export class DeadLettersService {
  constructor(private readonly log: EventLog, @Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  async list(durable?: string): Promise<DeadLettersListResult> {
    const { state } = await this.log.replay(evolveDeadLetters, [] as DeadLetter[], { filter: durable ? `rl.log.deadletter.${durable}` : 'rl.log.deadletter.*' });
    return { dead_letters: state };
  }

  async retry(id: string, requestedBy: string): Promise<DeadLetter> {
    const [durable] = id.split(':');
    const letter = (await this.list(durable)).dead_letters.find((l) => l.id === id);
    if (!letter) throw new AppError('DEADLETTER.NOT_FOUND', `No dead letter ${id}.`);
    if (!letter.retryable) {
      throw new AppError('DEADLETTER.NOT_RETRYABLE', `${letter.subject} is a run event, not a command: re-publishing it would record it twice. Fix the consumer and let it redeliver.`);
    }
    const original = await this.runtime.jsm.streams.getMessage(LOG_STREAM, { seq: letter.stream_seq }).catch(() => null);
    if (!original) throw new AppError('DEADLETTER.NOT_FOUND', `The original message ${letter.stream_seq} is not in the log.`);
    const attempt = letter.retries.length + 1;
    // The msgID makes a repeated retry request (a lost reply) publish once within the duplicate window.
    const ack = await this.runtime.js.publish(letter.subject, original.data, { msgID: `retry:${id}:${attempt}`, headers: applicationHeaders(original.header) });
    await this.log.append(aggregateRef('deadletter', durable), [{
      type: 'DeadLetterRetried', data: { durable, stream_seq: letter.stream_seq, new_seq: ack.seq, requested_by: requestedBy },
    }], { commandId: `deadletter-retry:${id}:${attempt}` });
    return (await this.list(durable)).dead_letters.find((l) => l.id === id) ?? letter;
  }
}

/** The original's own headers (trace context, event type) without JetStream's (msg id, expectations). */
function applicationHeaders(original: MsgHdrs | undefined): MsgHdrs {
  const out = natsHeaders();
  for (const [key, values] of original ?? []) if (!key.toLowerCase().startsWith('nats-')) for (const v of values) out.append(key, v);
  return out;
}
