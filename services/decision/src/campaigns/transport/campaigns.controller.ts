import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { CampaignAnswerRequest, CampaignCommandRequest, CampaignCreateRequest, CampaignLeadsImportRequest, CampaignView, SUBJECTS } from '@runledger/contracts';
import { RequestContext, RequestHandler } from '@runledger/messaging';
import { OperatorActions, operatorRequestId } from '@runledger/policy-catalog';
import { AGENTS_DOMAIN } from '../app/campaign-asker';
import { CampaignService } from '../app/campaign.service';
import { validCampaignRequest } from './campaign-schemas';

/** agents.campaign.*: the contract-003 controller's API (proto-contracts/schemas/campaigns/), for the agents.* domain (campaign-asker.ts). */
@Controller()
export class CampaignsController {
  constructor(private readonly campaigns: CampaignService, private readonly operators: OperatorActions) {}

  @RequestHandler(SUBJECTS.campaignCreate)
  create(@Payload() raw: unknown): Promise<CampaignView> {
    return this.campaigns.create(validCampaignRequest<CampaignCreateRequest>('create', raw), AGENTS_DOMAIN);
  }

  @RequestHandler(SUBJECTS.campaignLeadsImport)
  importLeads(@Payload() raw: unknown): Promise<CampaignView> {
    return this.campaigns.importLeads(validCampaignRequest<CampaignLeadsImportRequest>('leads', raw), AGENTS_DOMAIN);
  }

  @RequestHandler(SUBJECTS.campaignStart)
  start(@Payload() raw: unknown): Promise<CampaignView> {
    return this.campaigns.start(validCampaignRequest<CampaignCommandRequest>('command', raw), AGENTS_DOMAIN);
  }

  @RequestHandler(SUBJECTS.campaignPause)
  pause(@Payload() raw: unknown): Promise<CampaignView> {
    return this.campaigns.pause(validCampaignRequest<CampaignCommandRequest>('command', raw), AGENTS_DOMAIN);
  }

  @RequestHandler(SUBJECTS.campaignGet)
  get(@Payload() raw: unknown): Promise<CampaignView> {
    return this.campaigns.get(validCampaignRequest<CampaignCommandRequest>('command', raw), AGENTS_DOMAIN);
  }

  @RequestHandler(SUBJECTS.campaignCycle)
  cycle(@Payload() raw: unknown): Promise<CampaignView> {
    return this.campaigns.cycle(validCampaignRequest<CampaignCommandRequest>('command', raw), AGENTS_DOMAIN);
  }

  @RequestHandler(SUBJECTS.campaignRun)
  run(@Payload() raw: unknown): Promise<CampaignView> {
    return this.campaigns.run(validCampaignRequest<CampaignCommandRequest>('command', raw), AGENTS_DOMAIN);
  }

  @RequestHandler(SUBJECTS.campaignAnswer)
  async answer(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<CampaignView> {
    const q = validCampaignRequest<CampaignAnswerRequest>('answer', raw);
    // The operator identity's role (policy/operators.yaml) first; the campaign's pinned roles then check the approver's.
    const action = q.decision === 'approved' ? 'approve' : q.decision === 'rejected' ? 'reject' : 'answer';
    await this.operators.authorize({ action, request_id: operatorRequestId(ctx), requested_by: q.approver.id, ...(q.answer ? { reason: q.answer } : {}), target: { campaign_id: q.campaign_id, item_id: q.item_id } });
    return this.campaigns.answer(q);
  }
}
