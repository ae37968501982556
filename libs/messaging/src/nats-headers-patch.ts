import { Match } from '@nats-io/nats-core';
import { MsgHdrsImpl } from '@nats-io/nats-core/internal';

/**
 * nats.js (3.4, the latest) allocates on every header it touches: an append (also each header of every message it
 * receives) canonicalises the name through a fresh array and a spread, a value is checked with a new RegExp, and a
 * get, has, values or delete lists every key into an array and filters it. Headers travel on every append, request
 * and delivery (trace context, msg id, expected sequence, event type), so they were a tenth of what the audit ledger
 * and decision allocate (issue 22, sampling heap profiles at c16). The exact-match calls, the only ones we make, look
 * the name up in the header map instead, and a name validated once is not validated again; anything else (another
 * match mode, a name not yet seen, a value nats.js refuses) goes to nats.js's own method, so errors are its own.
 * The answers are the same: a Map holds each name once, so the exact filter found at most the one key.
 */
type Values = string[];
type Patched = {
  headers: Map<string, Values>;
  append(this: Patched, k: string, v: string, match?: Match): void;
  get(this: Patched, k: string, match?: Match): string;
  has(this: Patched, k: string, match?: Match): boolean;
  values(this: Patched, k: string, match?: Match): string[];
  delete(this: Patched, k: string, match?: Match): void;
};

const proto = MsgHdrsImpl.prototype as unknown as Patched;
const original = { append: proto.append, get: proto.get, has: proto.has, values: proto.values, delete: proto.delete };

/** Header names nats.js accepted before (bounded: names on the bus are a handful, a flood of new ones is nats.js's). */
const validNames = new Set<string>();
const VALID_NAMES_KEPT = 256;
const LINE_BREAK = /[\r\n]/;

const exact = (match: Match | undefined) => match === undefined || match === Match.Exact;

proto.append = function (k, v, match) {
  if (!exact(match) || !validNames.has(k) || typeof v !== 'string' || LINE_BREAK.test(v)) {
    original.append.call(this, k, v, match);
    if (exact(match) && validNames.size < VALID_NAMES_KEPT) validNames.add(k);
    return;
  }
  const value = v.trim();
  const values = this.headers.get(k);
  if (values) values.push(value);
  else this.headers.set(k, [value]);
};

proto.get = function (k, match) {
  if (!exact(match)) return original.get.call(this, k, match);
  const values = this.headers.get(k);
  return values ? values[0] : '';
};

proto.has = function (k, match) {
  return exact(match) ? this.headers.has(k) : original.has.call(this, k, match);
};

proto.values = function (k, match) {
  if (!exact(match)) return original.values.call(this, k, match);
  const values = this.headers.get(k);
  return values ? [...values] : [];
};

proto.delete = function (k, match) {
  if (exact(match)) this.headers.delete(k);
  else original.delete.call(this, k, match);
};
