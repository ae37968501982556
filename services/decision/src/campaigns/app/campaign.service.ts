import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { CampaignAnswerRequest, CampaignCommandRequest, CampaignCreateRequest, CampaignLeadsImportRequest, CampaignView } from '@runledger/contracts';
import { aggregateRef, EventLog } from '@runledger/event-log';
import { AppError, deterministicUuid, ERROR_CODES, type ErrorCode } from '@runledger/kernel';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { RunError, RunRepository } from '@runledger/runs';
import { RunWaiter } from '../../runs/run-waiter';
import { DECISION_INBOX } from '../../task-assistant/task-run.types';
import type { AgentSpec } from '../domain/campaign-types';
import { viewOf } from '../domain/campaign-view';
import { leadId } from '../domain/campaign.decider';
import { Approvals } from './approvals';
import { CampaignStore } from './campaign-store';
import { PROPOSAL_AGENT, type ProposalAgent } from './proposal-agent';
import type { CycleOutcome } from './cycle-runner';
import { CAMPAIGN_CYCLES_REQUESTED, CampaignCycleWorker, CampaignCyclesRequested, notActive } from './cycle-worker';

export const CAMPAIGN_REPLY_TIMEOUT_MS = Symbol('CAMPAIGN_REPLY_TIMEOUT_MS');

const DEFAULT_MAX_CYCLES = 20;

/**
 * The campaign API of the controller. Commands on the campaign aggregate are decided here; cycles are queued in the
 * durable decision inbox and carried by CampaignCycleWorker (a crash mid-cycle resumes without anyone asking again),
 * and answered once their request run has ended. Work on one campaign is serialised in this process (answers here,
 * each cycle in the worker, under one lock); across instances the campaign's optimistic concurrency decides.
 */
@Injectable()
export class CampaignService {
  private readonly logger = new Logger('Campaigns');

  constructor(
    private readonly store: CampaignStore,
    private readonly worker: CampaignCycleWorker,
    private readonly approvals: Approvals,
    private readonly policies: PolicyCatalog,
    private readonly log: EventLog,
    private readonly runs: RunRepository,
    private readonly waiter: RunWaiter,
    @Inject(CAMPAIGN_REPLY_TIMEOUT_MS) private readonly replyTimeoutMs: number,
    @Inject(PROPOSAL_AGENT) private readonly agent: ProposalAgent,
  ) {}

  async create(req: CampaignCreateRequest): Promise<CampaignView> {
    const id = req.campaign_id;
    const spec = this.agent.specProblem(req.agent as AgentSpec);
    // Its message as before; its details name the field, as the schema's refusals do (`/agent/token_limit …`).
    if (spec) throw new AppError('REQUEST.INVALID', spec.problem, [`${spec.path} ${spec.problem}`]);
    return this.worker.serialised(id, async () => {
      const settings = { on_invalid: req.settings?.on_invalid ?? 'retry', max_attempts: req.settings?.max_attempts ?? 2, approval_ttl_seconds: req.settings?.approval_ttl_seconds ?? 86_400 } as const;
      const existing = await this.store.load(id);
      // A new campaign pins the current policy; a retried create keeps what was pinned.
      const policy_versions = existing.exists ? existing.policy_versions : this.policies.currentVersions();
      const r = await this.store.handle(id, { type: 'CreateCampaign', data: { campaign_id: id, name: req.name, case_id: `campaign-${id}`, agent: req.agent as AgentSpec, settings, policy_versions } }, 'create');
      return viewOf(r.state);
    });
  }

  async importLeads(req: CampaignLeadsImportRequest): Promise<CampaignView> {
    return this.worker.serialised(req.campaign_id, async () => {
      const leads = req.leads.map((l, i) => ({ id: leadId(req.campaign_id, req.import_id, i), ...l }));
      return viewOf((await this.store.handle(req.campaign_id, { type: 'ImportLeads', data: { import_id: req.import_id, leads } }, `import:${req.import_id}`)).state);
    });
  }

  start(req: CampaignCommandRequest): Promise<CampaignView> {
    return this.worker.serialised(req.campaign_id, async () => viewOf((await this.store.handle(req.campaign_id, { type: 'StartCampaign' }, `start`)).state));
  }

  pause(req: CampaignCommandRequest): Promise<CampaignView> {
    return this.worker.serialised(req.campaign_id, async () => viewOf((await this.store.handle(req.campaign_id, { type: 'PauseCampaign', reason: req.reason ?? 'paused by operator' }, `pause`)).state));
  }

  get(req: CampaignCommandRequest): Promise<CampaignView> {
    return this.worker.serialised(req.campaign_id, async () => viewOf(await this.worker.settle(await this.store.loadExisting(req.campaign_id))));
  }

  /** One cycle. */
  cycle(req: CampaignCommandRequest): Promise<CampaignView> {
    return this.queueCycles(req.campaign_id, 1, req.request_id);
  }

  /** Cycles until the campaign is not active, a cycle ends in no_op, waits for a human, or aborts — or max_cycles. */
  run(req: CampaignCommandRequest): Promise<CampaignView> {
    return this.queueCycles(req.campaign_id, req.max_cycles ?? DEFAULT_MAX_CYCLES, req.request_id);
  }

  answer(req: CampaignAnswerRequest): Promise<CampaignView> {
    return this.worker.serialised(req.campaign_id, async () => viewOf(await this.approvals.answer(req)));
  }

  /**
   * Queues the cycles in the durable inbox under a run of their own and answers with their outcomes once that run has
   * ended. The run's id derives from the caller's request_id, so a repeated request joins the cycles it queued (and
   * gets their outcome) instead of queueing more. Past the reply timeout the cycles go on and the caller is told
   * RUN.TIMEOUT (retryable: asked again with the same request_id, it gets their outcome).
   */
  private async queueCycles(campaignId: string, maxCycles: number, requestId?: string): Promise<CampaignView> {
    const runId = requestId ? deterministicUuid('campaign-cycles', campaignId, requestId) : randomUUID();
    const watch = await this.waiter.watch(runId, this.replyTimeoutMs, { newRun: !requestId });
    try {
      // Asked before: the request run is there (ended, or still carried); nothing is queued again.
      if (!(await watch.lastAtStart)) {
        const campaign = await this.store.loadExisting(campaignId);
        if (campaign.status !== 'active') throw new AppError('CAMPAIGN.STATE', notActive(campaign).message);
        const command: CampaignCyclesRequested = { campaign_id: campaignId, run_id: runId, max_cycles: maxCycles };
        await this.log.append(aggregateRef('inbox', DECISION_INBOX), [{
          type: CAMPAIGN_CYCLES_REQUESTED, data: command, metadata: { run_id: runId, root_run_id: runId, correlation_id: campaignId, case_id: campaign.case_id },
        }], { commandId: `campaign-cycles:${runId}` });
      }
    } catch (err) {
      watch.cancel();
      throw err;
    }
    if ((await watch.outcome) === 'timeout') {
      this.logger.warn({ msg: 'campaign cycles reply timeout; the cycles go on', campaign_id: campaignId, run_id: runId });
      throw new AppError('RUN.TIMEOUT', requestId ? 'The cycles are still running; ask again with the same request_id for their outcome.' : 'The cycles are still running (send a request_id to ask for their outcome again).');
    }
    const { state } = await this.runs.load(runId);
    if (state.status === 'cancelled') throw new AppError('CAMPAIGN.STATE', 'The cycles were cancelled by an operator before they finished.');
    if (state.status !== 'completed') throw refusalOf(state.error);
    return { ...viewOf(await this.store.load(campaignId)), ran: (state.result as { ran: CycleOutcome[] }).ran };
  }
}

/** A request run's failure as the caller's error: its recorded code when it is one of ours, never an internal message. */
function refusalOf(error: RunError | undefined): AppError {
  const code = error?.error_code;
  return code && code in ERROR_CODES ? new AppError(code as ErrorCode, error.message) : new AppError('INTERNAL');
}
