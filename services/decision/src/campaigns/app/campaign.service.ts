import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { CampaignAnswerRequest, CampaignCommandRequest, CampaignCreateRequest, CampaignLeadsImportRequest, CampaignView } from '@runledger/contracts';
import { aggregateRef, EventLog } from '@runledger/event-log';
import { AppError, deterministicUuid, ERROR_CODES, type ErrorCode } from '@runledger/kernel';
import { fieldDetail } from '@runledger/messaging';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { RunError, RunRepository } from '@runledger/runs';
import { RunWaiter } from '../../runs/run-waiter';
import { DECISION_INBOX } from '../../task-assistant/task-run.types';
import type { AgentSpec, CampaignState } from '../domain/campaign-types';
import { viewOf } from '../domain/campaign-view';
import { leadId } from '../domain/campaign.decider';
import { Approvals } from './approvals';
import { CampaignAsker, campaignIdOf } from './campaign-asker';
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

  /**
   * Every request is an `asker`'s (campaign-asker.ts): it names its own campaigns, kept under campaignIdOf, and is
   * answered with the campaign_id it named.
   */
  async create(req: CampaignCreateRequest, asker: CampaignAsker): Promise<CampaignView> {
    const id = campaignIdOf(asker, req.campaign_id);
    const spec = await this.agent.specProblem(req.agent as AgentSpec);
    // Its message as before; its details name the field, as the schema's refusals do (`agent.token_limit 5 is below …`).
    if (spec) throw new AppError('REQUEST.INVALID', spec.problem, [fieldDetail(spec.path, spec.problem)]);
    return this.worker.serialised(id, async () => {
      const settings = { on_invalid: req.settings?.on_invalid ?? 'retry', max_attempts: req.settings?.max_attempts ?? 2, approval_ttl_seconds: req.settings?.approval_ttl_seconds ?? 86_400 } as const;
      const existing = await this.store.load(id);
      // A new campaign pins the current policy; a retried create keeps what was pinned.
      const policy_versions = existing.exists ? existing.policy_versions : this.policies.currentVersions();
      const data = { campaign_id: id, name: req.name, case_id: `campaign-${id}`, agent: req.agent as AgentSpec, settings, policy_versions, ...(asker.caller !== undefined ? { requested_by: asker.caller } : {}) };
      return viewAs((await this.store.handle(id, { type: 'CreateCampaign', data }, 'create', asker)).state, req.campaign_id);
    });
  }

  async importLeads(req: CampaignLeadsImportRequest, asker: CampaignAsker): Promise<CampaignView> {
    const id = campaignIdOf(asker, req.campaign_id);
    return this.worker.serialised(id, async () => {
      const leads = req.leads.map((l, i) => ({ id: leadId(id, req.import_id, i), ...l }));
      return viewAs((await this.store.handle(id, { type: 'ImportLeads', data: { import_id: req.import_id, leads } }, `import:${req.import_id}`, asker)).state, req.campaign_id);
    });
  }

  start(req: CampaignCommandRequest, asker: CampaignAsker): Promise<CampaignView> {
    const id = campaignIdOf(asker, req.campaign_id);
    return this.worker.serialised(id, async () => viewAs((await this.store.handle(id, { type: 'StartCampaign' }, `start`, asker)).state, req.campaign_id));
  }

  pause(req: CampaignCommandRequest, asker: CampaignAsker): Promise<CampaignView> {
    const id = campaignIdOf(asker, req.campaign_id);
    return this.worker.serialised(id, async () => viewAs((await this.store.handle(id, { type: 'PauseCampaign', reason: req.reason ?? 'paused by operator' }, `pause`, asker)).state, req.campaign_id));
  }

  get(req: CampaignCommandRequest, asker: CampaignAsker): Promise<CampaignView> {
    const id = campaignIdOf(asker, req.campaign_id);
    return this.worker.serialised(id, async () => viewAs(await this.worker.settle(await this.store.loadExisting(id, asker)), req.campaign_id));
  }

  /** One cycle. */
  cycle(req: CampaignCommandRequest, asker: CampaignAsker): Promise<CampaignView> {
    return this.queueCycles(req, 1, asker);
  }

  /** Cycles until the campaign is not active, a cycle ends in no_op, waits for a human, or aborts — or max_cycles. */
  run(req: CampaignCommandRequest, asker: CampaignAsker): Promise<CampaignView> {
    return this.queueCycles(req, req.max_cycles ?? DEFAULT_MAX_CYCLES, asker);
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
  private async queueCycles(req: CampaignCommandRequest, maxCycles: number, asker: CampaignAsker): Promise<CampaignView> {
    const campaignId = campaignIdOf(asker, req.campaign_id);
    const requestId = req.request_id;
    // Whose campaign it is is read first, also for a request asked before: its cycles' outcome is the campaign's too.
    const owned = await this.store.loadExisting(campaignId, asker);
    const runId = requestId ? deterministicUuid('campaign-cycles', campaignId, requestId) : randomUUID();
    const watch = await this.waiter.watch(runId, this.replyTimeoutMs, { newRun: !requestId });
    try {
      // Asked before: the request run is there (ended, or still carried); nothing is queued again.
      if (!(await watch.lastAtStart)) {
        if (owned.status !== 'active') throw new AppError('CAMPAIGN.STATE', notActive(owned).message);
        const command: CampaignCyclesRequested = { campaign_id: campaignId, run_id: runId, max_cycles: maxCycles };
        await this.log.append(aggregateRef('inbox', DECISION_INBOX), [{
          type: CAMPAIGN_CYCLES_REQUESTED, data: command, metadata: { run_id: runId, root_run_id: runId, correlation_id: campaignId, case_id: owned.case_id },
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
    return { ...viewAs(await this.store.load(campaignId), req.campaign_id), ran: (state.result as { ran: CycleOutcome[] }).ran };
  }
}

/** The campaign's view as its asker named it (a door's campaign is kept under a derived id: campaign-asker.ts). */
function viewAs(state: CampaignState, named: string): CampaignView {
  return { ...viewOf(state), campaign_id: named };
}

/** A request run's failure as the caller's error: its recorded code when it is one of ours, never an internal message. */
function refusalOf(error: RunError | undefined): AppError {
  const code = error?.error_code;
  return code && code in ERROR_CODES ? new AppError(code as ErrorCode, error.message) : new AppError('INTERNAL');
}
