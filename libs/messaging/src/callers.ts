import { callerOfSubject } from '@runledger/contracts';
import { AppError } from '@runledger/kernel';
import type { RequestContext } from './handlers';

/**
 * The identity whose inbox a reply subject is: `_INBOX_<identity>.…`. Each identity may subscribe to its own inbox
 * prefix only (deploy/nats/permissions.yaml), so the answer to such a request can reach nobody else.
 */
export function replyIdentity(reply: string | undefined): string | undefined {
  return INBOX.exec(reply ?? '')?.[1];
}

/** An inbox subject: `_INBOX.…`, or an identity's `_INBOX_<identity>.…` (the identity captured). */
const INBOX = /^_INBOX(?:_([A-Za-z0-9_-]+))?\.\S/;

/**
 * Whether a reply subject is an inbox (`_INBOX.…`, or an identity's `_INBOX_<identity>.…`). Only inboxes are answered:
 * nats-server lets a responder publish to any reply subject it was handed, past its own publish permissions, so a
 * request naming `rl.log.…` or `$KV.…` as its reply would have its answer stored in the log or a bucket by the
 * service that answers (a forged log message, a planted key). No stream holds an `_INBOX` subject.
 */
export function isInboxSubject(reply: string): boolean {
  return INBOX.test(reply);
}

/**
 * The caller a request on its own door (rl.caller.<identity>.…) comes from. NATS lets each caller publish only on
 * its own name; its answer must also go to its own inbox, so nothing of one caller is ever sent to another.
 */
export function callerOf(ctx: RequestContext | undefined): string {
  const caller = ctx ? callerOfSubject(ctx.subject) : undefined;
  if (!caller) throw new AppError('REQUEST.INVALID', 'A caller request comes on rl.caller.<identity>.… .');
  if (replyIdentity(ctx?.reply) !== caller) throw new AppError('REQUEST.INVALID', `The reply of a request on rl.caller.${caller}.… must go to the caller's own inbox (_INBOX_${caller}.…).`);
  return caller;
}
