import { Injectable } from '@nestjs/common';
import type { CampaignAnswerRequest, CampaignCommandRequest, CampaignCreateRequest, CampaignLeadsImportRequest, CampaignView } from '@runledger/contracts';
import { AppError, deterministicUuid } from '@runledger/kernel';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { KeyedLock } from '../../shared/keyed-lock';
import type { AgentSpec, CampaignState } from '../domain/campaign-types';
import { viewOf } from '../domain/campaign-view';
import { Approvals } from './approvals';
import { CampaignStore } from './campaign-store';
import { CycleOutcome, CycleRunner } from './cycle-runner';

const DEFAULT_MAX_CYCLES = 20;

/**
 * The campaign API of the controller. Work on one campaign is serialised in this process (cycles and answers
 * never interleave); across instances the campaign's optimistic concurrency decides.
 */
@Injectable()
export class CampaignService {
  private readonly locks = new KeyedLock();

  constructor(private readonly store: CampaignStore, private readonly cycles: CycleRunner, private readonly approvals: Approvals, private readonly policies: PolicyCatalog) {}

  async create(req: CampaignCreateRequest): Promise<CampaignView> {
    const id = req.campaign_id;
    return this.locks.run(id, async () => {
      const settings = { on_invalid: req.settings?.on_invalid ?? 'retry', max_attempts: req.settings?.max_attempts ?? 2, approval_ttl_seconds: req.settings?.approval_ttl_seconds ?? 86_400 } as const;
      const existing = await this.store.load(id);
      // A new campaign pins the current policy; a retried create keeps what was pinned.
      const policy_versions = existing.exists ? existing.policy_versions : this.policies.currentVersions();
      const r = await this.store.handle(id, { type: 'CreateCampaign', data: { campaign_id: id, name: req.name, case_id: `campaign-${id}`, agent: req.agent as AgentSpec, settings, policy_versions } }, 'create');
      return viewOf(r.state);
    });
  }

  async importLeads(req: CampaignLeadsImportRequest): Promise<CampaignView> {
    return this.locks.run(req.campaign_id, async () => {
      const leads = req.leads.map((l, i) => ({ id: deterministicUuid('campaign-lead', req.campaign_id, req.import_id, i), ...l }));
      return viewOf((await this.store.handle(req.campaign_id, { type: 'ImportLeads', data: { import_id: req.import_id, leads } }, `import:${req.import_id}`)).state);
    });
  }

  start(req: CampaignCommandRequest): Promise<CampaignView> {
    return this.locks.run(req.campaign_id, async () => viewOf((await this.store.handle(req.campaign_id, { type: 'StartCampaign' }, `start`)).state));
  }

  pause(req: CampaignCommandRequest): Promise<CampaignView> {
    return this.locks.run(req.campaign_id, async () => viewOf((await this.store.handle(req.campaign_id, { type: 'PauseCampaign', reason: req.reason ?? 'paused by operator' }, `pause`)).state));
  }

  get(req: CampaignCommandRequest): Promise<CampaignView> {
    return this.locks.run(req.campaign_id, async () => viewOf(await this.settle(await this.store.loadExisting(req.campaign_id))));
  }

  cycle(req: CampaignCommandRequest): Promise<CampaignView> {
    return this.locks.run(req.campaign_id, async () => {
      const outcome = await this.cycles.runCycle(await this.settle(await this.store.loadExisting(req.campaign_id)));
      return { ...viewOf(await this.store.load(req.campaign_id)), ran: [outcome] };
    });
  }

  /** Cycles until the campaign is not active, a cycle ends in no_op, waits for a human, or aborts — or max_cycles. */
  run(req: CampaignCommandRequest): Promise<CampaignView> {
    return this.locks.run(req.campaign_id, async () => {
      const ran: CycleOutcome[] = [];
      let state = await this.store.loadExisting(req.campaign_id);
      if (state.status !== 'active') throw new AppError('CAMPAIGN.STATE', `The campaign is ${state.status}; cycles run only while it is active.`);
      while (ran.length < (req.max_cycles ?? DEFAULT_MAX_CYCLES)) {
        state = await this.settle(state);
        if (state.status !== 'active') break;
        const outcome = await this.cycles.runCycle(state);
        ran.push(outcome);
        state = await this.store.load(req.campaign_id);
        if (outcome.outcome !== 'executed' || outcome.action_type === 'no_op') break;
      }
      return { ...viewOf(state), ran };
    });
  }

  answer(req: CampaignAnswerRequest): Promise<CampaignView> {
    return this.locks.run(req.campaign_id, async () => viewOf(await this.approvals.answer(req)));
  }

  /** Expire what is overdue and finish approved effects a crash left owed, before anything else reads the state. */
  private async settle(state: CampaignState): Promise<CampaignState> {
    return this.approvals.finishOwed(await this.approvals.expireDue(state));
  }
}
