import { existsSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { findNatsServerBinary, NATS_SERVER_MISSING_MESSAGE, startNatsServer, type NatsServerHandle } from './nats-server';

jest.setTimeout(30_000);

function portAcceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = netConnect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('startNatsServer', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection | undefined;

  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterEach(async () => {
    await nc?.close();
    nc = undefined;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('serves core pub/sub on a private loopback port, never the system 4222', async () => {
    expect(server.url).toBe(`nats://127.0.0.1:${server.port}`);
    expect(server.port).not.toBe(4222);
    nc = await connect(server.connectOptions());
    const sub = nc.subscribe('greet.*', { max: 1 });
    nc.publish('greet.alice', 'hello');
    for await (const msg of sub) {
      expect(msg.subject).toBe('greet.alice');
      expect(msg.string()).toBe('hello');
    }
  });

  it('has JetStream enabled with its store in storeDir', async () => {
    nc = await connect(server.connectOptions());
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'ORDERS', subjects: ['orders.>'] });
    const ack = await jetstream(nc).publish('orders.1', JSON.stringify({ qty: 2 }));
    expect(ack.stream).toBe('ORDERS');
    expect(ack.seq).toBe(1);
    expect(existsSync(`${server.storeDir}/jetstream`)).toBe(true);
  });

  it('restart keeps port and JetStream data', async () => {
    nc = await connect(server.connectOptions());
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'KEEP', subjects: ['keep.>'] });
    await jetstream(nc).publish('keep.a', 'survives');
    await nc.close();

    await server.restart();

    nc = await connect(server.connectOptions());
    const msg = await (await jetstreamManager(nc)).streams.getMessage('KEEP', { seq: 1 });
    expect(msg?.string()).toBe('survives');
  });

  it('kill() simulates a crash: clients lose the server until restart()', async () => {
    nc = await connect({ ...server.connectOptions(), reconnect: false });
    const closed = nc.closed();
    server.kill();
    await closed;
    expect(nc.isClosed()).toBe(true);
    await expect(connect({ ...server.connectOptions(), reconnect: false, timeout: 500 })).rejects.toThrow();

    await server.restart();
    nc = await connect(server.connectOptions());
    await expect(nc.flush()).resolves.toBeUndefined();
  });
});

describe('startNatsServer lifecycle', () => {
  it('gives two concurrent servers different ports and stop() frees the port and removes the store', async () => {
    const [a, b] = await Promise.all([startNatsServer(), startNatsServer()]);
    try {
      expect(a.port).not.toBe(b.port);
      expect(a.storeDir).not.toBe(b.storeDir);
      // Both are really up and independent.
      const [ncA, ncB] = await Promise.all([connect(a.connectOptions()), connect(b.connectOptions())]);
      await (await jetstreamManager(ncA)).streams.add({ name: 'ONLY_A', subjects: ['a.>'] });
      await expect((await jetstreamManager(ncB)).streams.info('ONLY_A')).rejects.toThrow(/stream not found/);
      await Promise.all([ncA.close(), ncB.close()]);
    } finally {
      await a.stop();
    }
    expect(existsSync(a.storeDir)).toBe(false);
    expect(await portAcceptsConnections(a.port)).toBe(false);
    await b.stop();
    await b.stop(); // idempotent
  });

  it('can run without JetStream', async () => {
    const server = await startNatsServer({ jetstream: false });
    const nc = await connect(server.connectOptions());
    try {
      await expect(jetstreamManager(nc)).rejects.toThrow();
    } finally {
      await nc.close();
      await server.stop();
    }
  });
});

describe('findNatsServerBinary', () => {
  it('explains how to install nats-server when none is found', () => {
    expect(() => findNatsServerBinary({ PATH: '/nonexistent' }, [])).toThrow(NATS_SERVER_MISSING_MESSAGE);
    expect(NATS_SERVER_MISSING_MESSAGE).toContain("install Debian's package with `apt-get install -y nats-server`, or set NATS_SERVER_BIN");
  });

  it('honours NATS_SERVER_BIN and reports a wrong one instead of silently using another binary', () => {
    const real = findNatsServerBinary();
    expect(findNatsServerBinary({ NATS_SERVER_BIN: real, PATH: '' }, [])).toBe(real);
    expect(() => findNatsServerBinary({ NATS_SERVER_BIN: '/nope/nats-server' })).toThrow(/NATS_SERVER_BIN=\/nope\/nats-server/);
  });

  it('falls back to the Debian location when PATH lacks /usr/sbin', () => {
    const real = findNatsServerBinary();
    expect(findNatsServerBinary({ PATH: '/nonexistent' }, [real])).toBe(real);
  });
});
