import { ProtocolHandler } from '@nats-io/nats-core/internal';

/**
 * nats.js (3.4, the latest) writes a connection's outbound buffer to its socket one microtask after the first
 * command put into it, so every hop of a service that publishes after an await (a reply, a log append, an ack,
 * another request) is a socket write of its own: one write syscall each, 12–14 % of a service's CPU under load
 * (issue 22 profile, `writeBuffer`). The buffer is written once per turn of the event loop instead (setImmediate:
 * after the I/O callbacks and every microtask of this turn), so all the commands a turn produced leave in one write.
 * Order is unchanged (one buffer, written in order); a buffer past the client's pending limit is still written at
 * once; flush() writes what is pending itself, and close() is patched to write it before the socket goes (nats.js's
 * own close writes nothing: before the patch the microtask write ran at close's first await); latency grows by the
 * rest of the turn.
 */
type Patched = {
  outbound: { length(): number; size(): number; fill(buf: Uint8Array, ...payloads: Uint8Array[]): void };
  pendingLimit: number;
  flushPending(): void;
  sendCommand(this: Patched, cmd: string | Uint8Array, ...payloads: Uint8Array[]): void;
  close(this: Patched, err?: Error): Promise<void>;
};

const encoder = new TextEncoder();
const proto = ProtocolHandler.prototype as unknown as Patched;

proto.sendCommand = function (cmd, ...payloads) {
  const empty = this.outbound.length() === 0;
  this.outbound.fill(typeof cmd === 'string' ? encoder.encode(cmd) : cmd, ...payloads);
  if (empty) setImmediate(() => this.flushPending());
  else if (this.outbound.size() >= this.pendingLimit) this.flushPending();
};

const close = proto.close;
proto.close = function (err) {
  // A publish, reply or ack followed by close() (not drain()) still leaves, as it did when the write was a microtask.
  this.flushPending();
  return close.call(this, err);
};
