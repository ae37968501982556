import { Inject, Injectable } from '@nestjs/common';
import type { DeadLetter, DeadLettersListResult } from '@runledger/contracts';
import { headers as natsHeaders, MsgHdrs } from '@nats-io/transport-node';
import { aggregateRef, EventLog, LOG_STREAM, storedMessageOf, tryStoredEvents, writerMessageProblem } from '@runledger/event-log';
import { AppError, truncateChars } from '@runledger/kernel';
import { RUNTIME, ServiceRuntime } from '@runledger/messaging';
import { evolveDeadLetters, runIdOf } from '../domain/dead-letters';

/** How much of a message that is not events a dead letter shows. */
const PAYLOAD_TEXT_MAX = 4_096;

/**
 * Dead letters for operators: listed by folding rl.log.deadletter.* (the transport records every poison
 * message there), retried by re-publishing the original command on its subject and recording DeadLetterRetried.
 */
@Injectable()
export class DeadLettersService {
  constructor(private readonly log: EventLog, @Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  /** Every dead letter with its run and its payload, read from the original message (sealed fields stay sealed). */
  async list(durable?: string): Promise<DeadLettersListResult> {
    const { state } = await this.log.replay(evolveDeadLetters, [] as DeadLetter[], { filter: durable ? `rl.log.deadletter.${durable}` : 'rl.log.deadletter.*' });
    return { dead_letters: await Promise.all(state.map((l) => this.withOriginal(l))) };
  }

  private async withOriginal(letter: DeadLetter): Promise<DeadLetter> {
    const original = await this.runtime.jsm.streams.getMessage(LOG_STREAM, { seq: letter.stream_seq }).catch(() => null);
    if (!original) return { ...letter, payload: null };
    // A message no writer made is not shown: the server may have stored a copy of anything an insider could read there
    // (a data key's slot, another stream's message), which its dead letter would hand to every operator for good.
    const stored = storedMessageOf(original);
    if (writerMessageProblem(stored)) return { ...letter, payload: null };
    // As the log stores it, never opened: a sealed field is shown as its sealed value (README "Erasure").
    const events = tryStoredEvents(stored);
    if (!events.length) return { ...letter, payload: truncateChars(new TextDecoder().decode(original.data), PAYLOAD_TEXT_MAX) };
    return {
      ...letter, run_id: runIdOf(letter.subject, events) ?? letter.run_id,
      payload: events.map((e) => ({ type: e.type, data: e.data, metadata: e.metadata as unknown as Record<string, unknown> })),
    };
  }

  async retry(id: string, requestedBy: string): Promise<DeadLetter> {
    const [durable] = id.split(':');
    const letter = (await this.list(durable)).dead_letters.find((l) => l.id === id);
    if (!letter) throw new AppError('DEADLETTER.NOT_FOUND', `No dead letter ${id}.`);
    if (!letter.retryable) throw new AppError('DEADLETTER.NOT_RETRYABLE', `Dead letter ${id} is not re-published: ${letter.not_retryable_because}`);
    const original = await this.runtime.jsm.streams.getMessage(LOG_STREAM, { seq: letter.stream_seq }).catch(() => null);
    if (!original) throw new AppError('DEADLETTER.NOT_FOUND', `The original message ${letter.stream_seq} is not in the log.`);
    // Re-published with its own headers, a message the server stored would become a writer's: never (whatever code
    // its dead letter was recorded with before readers told such messages apart).
    const foreign = writerMessageProblem(storedMessageOf(original));
    if (foreign) throw new AppError('DEADLETTER.NOT_RETRYABLE', `Dead letter ${id} is not re-published: its message is no Runledger writer's (it ${foreign}).`);
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
