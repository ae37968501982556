import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { ensureLogStream, LOG_STREAM } from '@runledger/event-log';
import { checkLogIdentity, type ChainCheckpoint } from '@runledger/governance';
import { tempDir, useNatsServer, type TempDir } from '@runledger/testing';
import { ChainAnchor, currentLogIdentity } from './chain-anchor';

jest.setTimeout(60_000);

const head = (seq: number): ChainCheckpoint => ({ seq, entry_hash: `h${seq}`, count: seq, key_id: 'k', signature: 's' });

describe('Issue 23 ChainAnchor: the signed head is bound to the log it was taken of', () => {
  const nats = useNatsServer();
  let dir: TempDir;
  let keyFile: string;

  beforeEach(async () => {
    dir = await tempDir('chain-anchor-');
    keyFile = join(dir.path, 'signing-key.pem');
    await ensureLogStream(await jetstreamManager(nats.nc));
  });
  afterEach(async () => {
    await (await jetstreamManager(nats.nc)).streams.delete(LOG_STREAM).catch(() => undefined);
    await dir.remove();
  });

  /** As the admin: the log deleted and created again (nats-server keeps no trace of the first one). */
  const recreateLog = async () => {
    const jsm = await jetstreamManager(nats.nc);
    await jsm.streams.delete(LOG_STREAM);
    await ensureLogStream(jsm);
  };

  it('is kept in one file per stream name with the log identity (stream, creation time, first message)', async () => {
    const anchor = await ChainAnchor.open(keyFile, await jetstreamManager(nats.nc));
    anchor.write(head(3));
    anchor.flush();
    const stored = JSON.parse(readFileSync(join(dir.path, 'heads', `${LOG_STREAM}.json`), 'utf8'));
    expect(stored).toEqual({ log: await currentLogIdentity(await jetstreamManager(nats.nc)), checkpoint: head(3) });
  });

  it('Shutdown (SIGINT or SIGTERM closes the app): a fresh store stopped before the first timed write holds the anchor of what was chained, and a head chained during the stop is written at once', async () => {
    const file = join(dir.path, 'heads', `${LOG_STREAM}.json`);
    const jsm = await jetstreamManager(nats.nc);
    @Module({ providers: [{ provide: 'ANCHOR', useFactory: () => ChainAnchor.open(keyFile, jsm) }] })
    class AnchorModule {}
    const app = await NestFactory.createApplicationContext(AnchorModule, { logger: false });
    const anchor = app.get<ChainAnchor>('ANCHOR');
    anchor.write(head(4));
    await app.close();
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ checkpoint: head(4) });
    // A batch whose append was in flight when the stop began (AuditChainWriter waits for it before the app shuts down).
    anchor.write(head(5));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ checkpoint: head(5) });
  });

  it('a log deleted and created again finds the old anchor (not a fresh one) and reads as log_replaced; its heads never overwrite the evidence', async () => {
    const before = await ChainAnchor.open(keyFile, await jetstreamManager(nats.nc));
    before.write(head(60));
    before.flush();
    await recreateLog();
    const after = await ChainAnchor.open(keyFile, await jetstreamManager(nats.nc));
    const held = after.read();
    expect(held?.checkpoint.seq).toBe(60);
    const verdict = checkLogIdentity(held, await currentLogIdentity(await jetstreamManager(nats.nc)));
    expect(verdict).toMatchObject({ ok: false, reason: 'log_replaced' });
    after.write(head(61));
    after.flush();
    expect(after.read()?.log).toEqual(before.log);
  });

  it('a ledger that started on an empty log anchors the same log once it is written (no false log_replaced)', async () => {
    const anchor = await ChainAnchor.open(keyFile, await jetstreamManager(nats.nc));
    await jetstream(nats.nc).publish('rl.log.run.first', new TextEncoder().encode('{}'));
    anchor.write(head(1));
    expect(checkLogIdentity(anchor.read(), await currentLogIdentity(await jetstreamManager(nats.nc)))).toBeNull();
  });

  it('the same log keeps moving forwards: an older head never replaces a newer one', async () => {
    const anchor = await ChainAnchor.open(keyFile, await jetstreamManager(nats.nc));
    anchor.write(head(5));
    anchor.write(head(4));
    anchor.flush();
    const again = await ChainAnchor.open(keyFile, await jetstreamManager(nats.nc));
    expect(again.read()?.checkpoint.seq).toBe(5);
    expect(checkLogIdentity(again.read(), await currentLogIdentity(await jetstreamManager(nats.nc)))).toBeNull();
  });

  it('an upgrade keeps its head: the file named after the log\'s creation time (before issue 23) is read as this log\'s anchor', async () => {
    const log = await currentLogIdentity(await jetstreamManager(nats.nc));
    const legacyId = createHash('sha256').update(`${log.stream}\u001f${log.created}`).digest('hex').slice(0, 24);
    mkdirSync(join(dir.path, 'heads'), { recursive: true });
    writeFileSync(join(dir.path, 'heads', `${legacyId}.json`), JSON.stringify(head(7)));
    const anchor = await ChainAnchor.open(keyFile, await jetstreamManager(nats.nc));
    expect(anchor.read()).toEqual({ log, checkpoint: head(7) });
  });
});
