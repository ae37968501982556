import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { FixedClock } from '@runledger/kernel';
import { startNatsServer, type NatsServerHandle, waitUntil } from '@runledger/testing';
import { ensureLogStream, EventLog, LIVE_RUN_PREFIX, liveEvents, logStreamConfig } from './index';

jest.setTimeout(60_000);

/** A server whose log is created with `republish` (undefined: as this release creates it). */
function liveFeedOn(republish?: { src: string; dest: string }) {
  const ctx = {} as { server: NatsServerHandle; nc: NatsConnection; log: EventLog; copies: Array<{ subject: string; types: string[] }>; sub: Subscription };
  beforeAll(async () => {
    ctx.server = await startNatsServer();
    ctx.nc = await connect(ctx.server.connectOptions());
    const jsm = await jetstreamManager(ctx.nc);
    if (republish) await jsm.streams.add(logStreamConfig({ republish }));
    else await ensureLogStream(jsm);
    ctx.log = new EventLog(jetstream(ctx.nc), jsm, { producer: 'spec', clock: new FixedClock(new Date('2026-01-01T00:00:00Z')) });
    ctx.copies = [];
    ctx.sub = ctx.nc.subscribe(`${LIVE_RUN_PREFIX}.>`, { callback: (_e, m) => void ctx.copies.push({ subject: m.subject, types: liveEvents(m).map((e) => e.type) }) });
    await ctx.nc.flush();
  });
  afterAll(async () => {
    await ctx.nc?.close();
    await ctx.server?.stop();
  });
  /** Appends a choke point's child run commit between two of decision's, and waits for the second decision copy. */
  const appendThree = async () => {
    const [parent, child] = [randomUUID(), randomUUID()];
    const append = (subject: string, type: string, expectedVersion: number) => ctx.log.append({ kind: 'run', id: subject.split('.').pop()!, subject }, [{ type, data: {} }], { commandId: randomUUID(), expectedVersion });
    const opened = await append(`rl.log.run.decision.${parent}`, 'RunCreated', 0);
    await append(`rl.log.run.tool-gateway.${child}`, 'RunCreated', 0);
    await append(`rl.log.run.decision.${parent}`, 'RunCompleted', opened.version);
    // Copies come in the order the log stored them: once the decision's second is here, the child's would be too.
    await waitUntil(() => ctx.copies.some((c) => c.subject === `${LIVE_RUN_PREFIX}.decision.${parent}` && c.types.includes('RunCompleted')));
    return { parent, child };
  };
  return { ctx, appendThree };
}

describe('Issue 22 the live feed copies the runs anyone waits for', () => {
  describe('a log created by this release', () => {
    const { ctx, appendThree } = liveFeedOn();

    it("Issue 22 copies decision's run commits on rl.live.run.decision.<run_id>, and none of a choke point's child run (fewer messages per request)", async () => {
      const { parent, child } = await appendThree();
      expect(ctx.copies.filter((c) => c.subject.endsWith(parent)).map((c) => [c.subject, c.types])).toEqual([
        [`${LIVE_RUN_PREFIX}.decision.${parent}`, ['RunCreated']],
        [`${LIVE_RUN_PREFIX}.decision.${parent}`, ['RunCompleted']],
      ]);
      expect(ctx.copies.filter((c) => c.subject.endsWith(child))).toEqual([]);
    });

    it('Issue 22 liveSubject names the feed of a decision run, and none for a child run (its follower reads the log)', async () => {
      const id = randomUUID();
      expect(await ctx.log.liveSubject(`rl.log.run.decision.${id}`)).toBe(`${LIVE_RUN_PREFIX}.decision.${id}`);
      expect(await ctx.log.liveSubject(`rl.log.run.tool-gateway.${id}`)).toBeNull();
    });
  });

  describe('a log created by an earlier release (every run copied: nats-server 2.9 cannot change a republish)', () => {
    const { ctx, appendThree } = liveFeedOn({ src: 'rl.log.run.>', dest: `${LIVE_RUN_PREFIX}.>` });

    it('Issue 22 keeps copying every run, and liveSubject names each one\'s feed', async () => {
      const { child } = await appendThree();
      expect(ctx.copies.filter((c) => c.subject.endsWith(child)).map((c) => c.subject)).toEqual([`${LIVE_RUN_PREFIX}.tool-gateway.${child}`]);
      expect(await ctx.log.liveSubject(`rl.log.run.tool-gateway.${child}`)).toBe(`${LIVE_RUN_PREFIX}.tool-gateway.${child}`);
      expect(await ctx.log.liveSubject(`rl.log.run.decision.${child}`)).toBe(`${LIVE_RUN_PREFIX}.decision.${child}`);
    });
  });
});
