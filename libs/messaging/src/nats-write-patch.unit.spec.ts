import { DataBuffer, ProtocolHandler } from '@nats-io/nats-core/internal';
import './nats-write-patch';

/** A connected client's protocol handler whose socket writes are recorded. */
function connection(pendingLimit = 64 * 1024) {
  const writes: string[] = [];
  const handler = Object.assign(Object.create(ProtocolHandler.prototype) as object, {
    outbound: new DataBuffer(),
    pendingLimit,
    infoReceived: true,
    connected: true,
    transport: { send: (frame: Uint8Array) => writes.push(new TextDecoder().decode(frame)) },
  }) as unknown as { sendCommand(cmd: string | Uint8Array, ...payloads: Uint8Array[]): void; flushPending(): void };
  return { handler, writes };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const bytes = (text: string) => new TextEncoder().encode(text);

describe('nats.js write patch (issue 22: one socket write per event-loop turn, not per microtask)', () => {
  it('commands sent in one turn, across awaits, leave in one write, in the order they were sent', async () => {
    const { handler, writes } = connection();
    handler.sendCommand('PUB a 1\r\n', bytes('1'), bytes('\r\n'));
    await Promise.resolve(); // a reply after an await: a write of its own before the patch
    handler.sendCommand(bytes('PUB b 1\r\n'), bytes('2'), bytes('\r\n'));
    await Promise.resolve();
    handler.sendCommand('PING\r\n');
    expect(writes).toEqual([]);
    await turn();
    expect(writes).toEqual(['PUB a 1\r\n1\r\nPUB b 1\r\n2\r\nPING\r\n']);
  });

  it('a buffer past the pending limit is written at once, and what follows in the next turn', async () => {
    const { handler, writes } = connection(8);
    handler.sendCommand('PUB a 1\r\n');
    handler.sendCommand('PUB b 1\r\n');
    expect(writes).toEqual(['PUB a 1\r\nPUB b 1\r\n']);
    handler.sendCommand('PING\r\n');
    await turn();
    expect(writes).toEqual(['PUB a 1\r\nPUB b 1\r\n', 'PING\r\n']);
  });

  it('close() writes what is pending before the socket goes (a reply, publish or ack followed by close, not drain)', async () => {
    const { handler, writes } = connection();
    handler.sendCommand('PUB a 1\r\n');
    const h = handler as unknown as { close(): Promise<void>; _closed: boolean; heartbeats: { cancel(): void }; muxSubscriptions: { close(): void }; subscriptions: { close(): void }; listeners: unknown[]; transport: Record<string, unknown> };
    Object.assign(h, { heartbeats: { cancel: () => undefined }, muxSubscriptions: { close: () => undefined }, subscriptions: { close: () => undefined }, listeners: [] });
    Object.assign(h.transport, { close: async () => undefined, isClosed: false });
    await h.close().catch(() => undefined);
    expect(writes).toEqual(['PUB a 1\r\n']);
  });

  it('flushPending (flush) still writes what is pending at once', () => {
    const { handler, writes } = connection();
    handler.sendCommand('PUB a 1\r\n');
    handler.flushPending();
    expect(writes).toEqual(['PUB a 1\r\n']);
  });
});
