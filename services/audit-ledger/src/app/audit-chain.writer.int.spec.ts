/**
 * Issue 22 (ledger CPU): the anchor file is replaced at most once per ANCHOR_FLUSH_MS, so a ledger killed inside that
 * interval leaves an older head in it. On a real nats-server: that older head still verifies against the chain, and
 * the restarted ledger writes the log's signed tail back into the file before it appends anything.
 */
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { ensureLogStream, EventLog, type StoredEvent } from '@runledger/event-log';
import { chainEntriesOf, signCheckpoint, verifyAnchoredChain } from '@runledger/governance';
import { loadOrCreateAuditKey, trustedKeys } from '@runledger/messaging';
import { RunRepository } from '@runledger/runs';
import { tempDir, useNatsServer, waitUntil, type TempDir } from '@runledger/testing';
import { ChainAnchor } from '../infra/chain-anchor';
import { AuditChainWriter, CHAIN_REF } from './audit-chain.writer';

jest.setTimeout(60_000);

const at = '2026-11-27T00:00:00.000Z';
const runId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

describe('Issue 22 anchor: a crash before the anchor file is replaced loses nothing the chain cannot give back', () => {
  const nats = useNatsServer();
  let dir: TempDir;
  let log: EventLog;

  /** A run's opening as one commit of its owner: RunCreated and AuthzDecided are chained. */
  async function run(i: number): Promise<StoredEvent[]> {
    const id = runId(i);
    const ref = RunRepository.ref(id, 'decision');
    const metadata = { run_id: id, root_run_id: id, recorded_at: at };
    await log.append(ref, [
      { type: 'RunCreated', data: { run_id: id, run_kind: 'agent', agent_name: 'TASK_ASSISTANT', root_run_id: id }, metadata },
      { type: 'AuthzDecided', data: { decision: 'allow' }, metadata },
    ], { commandId: `${id}:open`, expectedVersion: 0 });
    return log.read(ref);
  }

  beforeAll(async () => {
    dir = await tempDir('chain-writer-');
    const jsm = await jetstreamManager(nats.nc);
    await ensureLogStream(jsm);
    log = new EventLog(jetstream(nats.nc), jsm, { producer: 'decision', clock: { now: () => new Date(at) } });
  });
  afterAll(async () => dir.remove());

  it('Issue 22 anchor: the file lags the chain after a kill, verify still passes against it, and the restarted writer brings it to the signed tail on the redelivered batch', async () => {
    const keyFile = join(dir.path, 'signing-key.pem');
    const signer = loadOrCreateAuditKey(keyFile);
    const jsm = await jetstreamManager(nats.nc);
    const first = await ChainAnchor.open(keyFile, jsm);
    await new AuditChainWriter(log, signer, first).chain(await run(1));
    first.flush();
    // The next batch is chained by a ledger killed before its anchor timer fired: its head reached the log only.
    const unflushed = await run(2);
    await new AuditChainWriter(log, signer, { write: () => undefined, read: () => null } as unknown as ChainAnchor).chain(unflushed);

    const restarted = await ChainAnchor.open(keyFile, jsm);
    const behind = restarted.read()!.checkpoint;
    const entries = chainEntriesOf(await log.read(CHAIN_REF));
    expect([behind.seq, entries.length]).toEqual([2, 4]);
    expect(verifyAnchoredChain(entries, { check: trustedKeys(signer.trustedPublicKeyPems), anchor: behind })).toMatchObject({ ok: true, length: 4 });

    // The unacked batch comes again: nothing is appended (it is chained), and the file gets the log's signed tail.
    const again = await new AuditChainWriter(log, signer, restarted).chain(unflushed);
    expect(again.map((e) => e.seq)).toEqual([3, 4]);
    expect(chainEntriesOf(await log.read(CHAIN_REF))).toHaveLength(4);
    restarted.flush();
    const reopened = await ChainAnchor.open(keyFile, jsm);
    expect(reopened.read()!.checkpoint).toEqual(entries[3].checkpoint);
  });

  it('Issue 23 anchor: a chain that ends before the head this ledger signed for the same log (a rolled-back store) stops the ledger at start; an anchor of another log does not', async () => {
    const keyFile = join(dir.path, 'signing-key.pem');
    const signer = loadOrCreateAuditKey(keyFile);
    const jsm = await jetstreamManager(nats.nc);
    const entries = chainEntriesOf(await log.read(CHAIN_REF));
    const tail = entries[entries.length - 1];
    const anchorIn = async (heads: string, checkpoint: ReturnType<typeof signCheckpoint>, logOf?: (a: ChainAnchor) => ChainAnchor['log']) => {
      const anchor = await ChainAnchor.open(keyFile, jsm, heads);
      // The file as a ledger of this log (or of `logOf`'s) left it: written through a second handle, flushed.
      const writer = await ChainAnchor.open(keyFile, jsm, heads);
      if (logOf) Object.assign(writer, { log: logOf(writer) });
      writer.write(checkpoint);
      writer.flush();
      return anchor;
    };
    // Signed further than the log's chain reaches: the entries after the tail were lost with the store.
    const ahead = await anchorIn(join(dir.path, 'heads-ahead'), signCheckpoint({ seq: tail.seq + 5, entry_hash: 'f'.repeat(64) }, signer));
    await expect(new AuditChainWriter(log, signer, ahead).onModuleInit()).rejects.toThrow(`ends at entry ${tail.seq}, but this ledger signed entry ${tail.seq + 5}`);
    // The same number with another hash: a different history.
    const forked = await anchorIn(join(dir.path, 'heads-forked'), signCheckpoint({ seq: tail.seq, entry_hash: 'e'.repeat(64) }, signer));
    await expect(new AuditChainWriter(log, signer, forked).onModuleInit()).rejects.toThrow(`entry ${tail.seq} is not the one this ledger signed`);
    // A log created again is another log: its old anchor is evidence for verify (log_replaced), and the ledger starts.
    const other = await anchorIn(join(dir.path, 'heads-other'), signCheckpoint({ seq: tail.seq + 5, entry_hash: 'f'.repeat(64) }, signer), (a) => ({ ...a.log, created: '2020-01-01T00:00:00Z' }));
    await expect(new AuditChainWriter(log, signer, other).onModuleInit()).resolves.toBeUndefined();
    // The chain's own head is ahead of (or at) its anchor: the ledger starts and brings the file to the signed tail.
    const behind = await anchorIn(join(dir.path, 'heads-behind'), entries[1].checkpoint!);
    await new AuditChainWriter(log, signer, behind).onModuleInit();
    behind.flush();
    expect((await ChainAnchor.open(keyFile, jsm, join(dir.path, 'heads-behind'))).read()!.checkpoint).toEqual(tail.checkpoint);
  });

  it.each([
    ['an API answer', '$JS.API.INFO', '', 3],
    // An empty answer with a status line of its own (`NATS/1.0 404`), read back as "no message": the chain's version
    // read 0, and the ledger reloaded its tail for ever, then refused to start (probe).
    ['a stored 404 status', '$JS.API.DIRECT.GET.RUNLEDGER_LOG', '{"seq":999999999}', 13],
  ])('Probe finding (high): %s an identity had the server store on the chain subject (its request\'s reply subject) is no chain batch: the restarted ledger chains on from entry N+1, after it, and starts again later (it restarted at entry 1, then refused every start)', async (_what, api, body, firstRun) => {
    const heads = join(dir.path, `heads-foreign-${firstRun}`);
    const keyFile = join(dir.path, 'signing-key.pem');
    const signer = loadOrCreateAuditKey(keyFile);
    const jsm = await jetstreamManager(nats.nc);
    const anchor = await ChainAnchor.open(keyFile, jsm, heads);
    await new AuditChainWriter(log, signer, anchor).chain(await run(firstRun));
    const before = chainEntriesOf(await log.read(CHAIN_REF));
    const head = before[before.length - 1];
    // As the probe did it: any JetStream API request, its reply subject the chain's; the server publishes its answer
    // there, and the log stream stores it.
    const chainAt = await log.version(CHAIN_REF);
    nats.nc.publish(api, body, { reply: CHAIN_REF.subject });
    await waitUntil(async () => (await log.version(CHAIN_REF)) > chainAt);
    expect(chainEntriesOf(await log.read(CHAIN_REF, chainAt + 1))).toEqual([]);
    anchor.flush();

    const restarted = await ChainAnchor.open(keyFile, jsm, heads);
    const chained = await new AuditChainWriter(log, signer, restarted).chain(await run(firstRun + 1));
    expect(chained.map((e) => e.seq)).toEqual([head.seq + 1, head.seq + 2]);
    expect(chained[0].prev_hash).toBe(head.entry_hash);
    restarted.flush();
    // And the next start finds the chain at (not behind) its anchor.
    const again = await ChainAnchor.open(keyFile, jsm, heads);
    await expect(new AuditChainWriter(log, signer, again).onModuleInit()).resolves.toBeUndefined();
  });

  it('Probe finding (high): a flood of answers an identity has the server store on the chain subject neither stalls the chain nor makes a batch fail (it went on conflicting, dead-lettered real commits and chained them out of log order)', async () => {
    const heads = join(dir.path, 'heads-flood');
    const keyFile = join(dir.path, 'signing-key.pem');
    const signer = loadOrCreateAuditKey(keyFile);
    const jsm = await jetstreamManager(nats.nc);
    const writer = new AuditChainWriter(log, signer, await ChainAnchor.open(keyFile, jsm, heads));
    await writer.chain(await run(30));
    // Answers already stored there (a flood that has run a while): the chain's last commit is read past all of them.
    const piled = await log.version(CHAIN_REF);
    for (let i = 0; i < 300; i++) nats.nc.publish('$JS.API.INFO', '', { reply: CHAIN_REF.subject });
    await waitUntil(async () => (await log.version(CHAIN_REF)) >= piled + 300);
    const before = await log.version(CHAIN_REF);
    // As the probe did it: API requests answered onto the chain subject every 10 ms while the batches are chained.
    const flood = setInterval(() => nats.nc.publish('$JS.API.INFO', '', { reply: CHAIN_REF.subject }), 10);
    try {
      for (let i = 31; i < 36; i++) {
        const opening = await run(i);
        // Each batch appended after answers landed on the chain's subject since the writer last read its version.
        const landed = await log.version(CHAIN_REF);
        await waitUntil(async () => (await log.version(CHAIN_REF)) > Math.max(landed, before));
        const chained = await writer.chain(opening);
        expect(chained.map((e) => e.body.type)).toEqual(['RunCreated', 'AuthzDecided']);
      }
    } finally {
      clearInterval(flood);
    }
    // In log order, one after the other, every entry linked to the one before.
    const entries = chainEntriesOf(await log.read(CHAIN_REF));
    const ours = entries.filter((e) => [31, 32, 33, 34, 35].map(runId).includes(e.body.run_id));
    expect(ours.map((e) => e.body.run_id)).toEqual([31, 31, 32, 32, 33, 33, 34, 34, 35, 35].map(runId));
    expect(verifyAnchoredChain(entries, { check: trustedKeys(signer.trustedPublicKeyPems) })).toMatchObject({ ok: true, length: entries.length });
  });
});
