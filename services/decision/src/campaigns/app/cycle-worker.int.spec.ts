import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { ensureLogStream, EventLog } from '@runledger/event-log';
import { AppError, deterministicUuid } from '@runledger/kernel';
import type { Bus } from '@runledger/messaging';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { RunRepository } from '@runledger/runs';
import { startNatsServer, NatsServerHandle } from '@runledger/testing';
import { Approvals } from './approvals';
import { CampaignRuns } from './campaign-effects';
import { CampaignStore } from './campaign-store';
import { CycleRunner } from './cycle-runner';
import { CampaignCycleWorker, type CampaignCyclesRequested } from './cycle-worker';
import { scriptedProposal, type ProposalAgent } from './proposal-agent';

const clock = { now: () => new Date() };
const agent: ProposalAgent = {
  propose: async (spec, req) => scriptedProposal(spec.kind === 'scripted' ? spec.proposals : [], req.proposals_asked),
  specProblem: async () => null,
};

/**
 * Review of d47866d: a cancelled cycle request ends only a cycle it opened whose outcome is not on record. A cycle
 * whose outcome the request journaled is closed with that outcome on redelivery (its effect happened), and another
 * request's cycle is never touched. The crash between a journaled cycle and its close is a close that throws once.
 */
describe('campaign cycle requests over a real log: a cancel never aborts a journaled or foreign cycle', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let runs: RunRepository;
  let store: CampaignStore;
  let cycles: CycleRunner;
  let worker: CampaignCycleWorker;
  let policies: PolicyCatalog;
  let log: EventLog;
  let campaignRuns: CampaignRuns;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect(server.connectOptions());
    const jsm = await jetstreamManager(nc);
    await ensureLogStream(jsm);
    log = new EventLog(jetstream(nc), jsm, { producer: 'decision', clock });
    runs = new RunRepository(log);
    policies = new PolicyCatalog(log);
    await policies.start();
    store = new CampaignStore(log);
    // No proposal here reaches a choke point: the bus is never asked.
    campaignRuns = new CampaignRuns(runs, {} as Bus, policies);
    cycles = new CycleRunner(store, campaignRuns, clock, agent, 1_000);
    worker = new CampaignCycleWorker(store, campaignRuns, cycles, new Approvals(store, campaignRuns, clock));
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  async function activeCampaign(proposals: unknown[]): Promise<string> {
    const id = randomUUID();
    await store.handle(id, {
      type: 'CreateCampaign',
      data: { campaign_id: id, name: 'review', case_id: `campaign-${id}`, agent: { kind: 'scripted', proposals }, settings: { on_invalid: 'abort', max_attempts: 1, approval_ttl_seconds: 60 }, policy_versions: policies.currentVersions() },
    }, 'create');
    await store.handle(id, { type: 'StartCampaign' }, 'start');
    return id;
  }

  const request = (campaign_id: string, max_cycles = 1): CampaignCyclesRequested => ({ campaign_id, run_id: randomUUID(), max_cycles });
  const cancel = (runId: string) => runs.handle(runId, { type: 'RequestCancel', data: { reason: 'operator stop', requested_by: 'operator' } }, `cancel-requested:${runId}`);
  const campaignTypes = async (id: string) => (await log.read(CampaignStore.ref(id))).map((e) => e.type);
  const runTypes = async (runId: string) => (await runs.events(runId)).map((e) => e.type);

  /** The request journals its cycle's outcome, then "crashes" before the cycle is closed on the campaign. */
  async function journaledThenCrashed(cmd: CampaignCyclesRequested): Promise<void> {
    jest.spyOn(cycles, 'close').mockRejectedValueOnce(new Error('decision killed before close'));
    await expect(worker.carry(cmd)).rejects.toThrow('decision killed');
    expect((await store.load(cmd.campaign_id)).open_cycle).toMatchObject({ cycle: 1, request_run_id: cmd.run_id });
  }

  it('review of d47866d, scenario A: a cycle whose complete_campaign is journaled, then cancel + redelivery: the cycle closes with its outcome (the campaign completes), it is not aborted', async () => {
    const id = await activeCampaign([{ action_type: 'no_op', reason: 'campaign_complete', details: 'done' }]);
    const cmd = request(id);
    await journaledThenCrashed(cmd);
    await cancel(cmd.run_id);

    await worker.carry(cmd);

    const types = await campaignTypes(id);
    expect(types).toEqual(expect.arrayContaining(['CycleCompleted', 'CampaignCompleted']));
    expect(types).not.toContain('CycleAborted');
    expect((await store.load(id)).status).toBe('completed');
    expect((await runTypes(deterministicUuid('campaign-cycle', id, 1))).at(-1)).toBe('RunCompleted');
    expect((await runTypes(cmd.run_id)).at(-1)).toBe('RunCancelled');
  });

  it('review of d47866d, scenario B: request A cancelled while request B\'s executed cycle waits for its close: A leaves it open, B closes it with its outcome', async () => {
    const id = await activeCampaign([{ action_type: 'create_task', task: { description: 'Visit the profile of the current lead' } }]);
    const b = request(id);
    await journaledThenCrashed(b);
    // A is under way (its run open, its first cycle not yet begun: B's is open) when its cancel comes.
    const a = request(id);
    await campaignRuns.open(await store.loadExisting(id), a.run_id, { action: 'campaign.cycles', campaign_id: id, max_cycles: a.max_cycles });
    await cancel(a.run_id);

    await worker.carry(a);
    expect((await store.load(id)).open_cycle).toMatchObject({ cycle: 1, request_run_id: b.run_id });
    await worker.carry(b);

    const types = await campaignTypes(id);
    expect(types).toEqual(expect.arrayContaining(['TaskCreated', 'CycleCompleted']));
    expect(types).not.toContain('CycleAborted');
    expect((await runTypes(a.run_id)).at(-1)).toBe('RunCancelled');
    expect((await runTypes(b.run_id)).at(-1)).toBe('RunCompleted');
  });

  it('Probe finding (README "Campaigns"): an agent that can never propose (its session agent gone since create) aborts the cycle it opened, CycleAborted and its run failed CAMPAIGN.AGENT_UNAVAILABLE, instead of leaving it in progress for good', async () => {
    const id = await activeCampaign([]);
    jest.spyOn(agent, 'propose').mockRejectedValue(new AppError('REQUEST.INVALID', 'There is no agent profile nope.'));
    for (const cmd of [request(id), request(id)]) {
      await worker.carry(cmd);
      expect((await runTypes(cmd.run_id)).at(-1)).toBe('RunCompleted');
    }
    expect((await campaignTypes(id)).filter((t) => t === 'CycleAborted')).toHaveLength(2);
    expect((await store.load(id)).open_cycle).toBeFalsy();
    const failed = (await runs.events(deterministicUuid('campaign-cycle', id, 1))).find((e) => e.type === 'RunFailed');
    expect(failed?.data).toMatchObject({ error: { error_code: 'CAMPAIGN.AGENT_UNAVAILABLE', message: "The campaign's agent cannot propose: There is no agent profile nope.", retryable: false } });
  });
});
