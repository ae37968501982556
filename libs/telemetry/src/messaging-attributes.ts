/**
 * OpenTelemetry messaging semantic conventions for NATS, in one place: every span a message makes carries the
 * system, the operation (name and type), the concrete subject and its template (low cardinality, for grouping).
 * `messaging.batch.message_count` is set only for a batch of more than one message, as the conventions say.
 */
export type MessagingOperation = 'publish' | 'send' | 'process';

const TYPE_OF: Record<MessagingOperation, 'send' | 'process'> = { publish: 'send', send: 'send', process: 'process' };

export function messagingAttributes(o: { operation: MessagingOperation; subject: string; template?: string; batchSize?: number; consumerGroup?: string }): Record<string, string | number> {
  return {
    'messaging.system': 'nats',
    'messaging.operation.name': o.operation,
    'messaging.operation.type': TYPE_OF[o.operation],
    'messaging.destination.name': o.subject,
    'messaging.destination.template': o.template ?? o.subject,
    ...(o.batchSize !== undefined && o.batchSize > 1 ? { 'messaging.batch.message_count': o.batchSize } : {}),
    ...(o.consumerGroup ? { 'messaging.consumer.group.name': o.consumerGroup } : {}),
  };
}

/**
 * `rl.log.run.<uuid>` → `rl.log.run.{id}`: the log's subjects are one per aggregate. A run's subject names its owner
 * (issue 23, `rl.log.run.<owner>.<uuid>` → `rl.log.run.<owner>.{id}`): a bounded token, kept.
 */
export function logSubjectTemplate(subject: string): string {
  const parts = subject.split('.');
  return parts.length > 3 && parts[0] === 'rl' && parts[1] === 'log' ? `${parts.slice(0, parts.length - 1).join('.')}.{id}` : subject;
}
