import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { CampaignCommandRequest, CampaignCreateRequest, CampaignLeadsImportRequest, CampaignView, SUBJECTS } from '@runledger/contracts';
import { callerOf, RequestContext, RequestHandler } from '@runledger/messaging';
import { CampaignService } from '../app/campaign.service';
import { validCampaignRequest } from './campaign-schemas';

/**
 * rl.caller.<caller>.campaign.*: agents.campaign.* on a caller's own door (callerOf: the subject names the caller).
 * The caller reaches only the campaigns it created there (campaign-asker.ts); answers stay the operator's.
 */
@Controller()
export class CallerCampaignsController {
  constructor(private readonly campaigns: CampaignService) {}

  @RequestHandler(SUBJECTS.callerCampaignCreate)
  create(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<CampaignView> {
    return this.campaigns.create(validCampaignRequest<CampaignCreateRequest>('create', raw), { caller: callerOf(ctx) });
  }

  @RequestHandler(SUBJECTS.callerCampaignLeadsImport)
  importLeads(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<CampaignView> {
    return this.campaigns.importLeads(validCampaignRequest<CampaignLeadsImportRequest>('leads', raw), { caller: callerOf(ctx) });
  }

  @RequestHandler(SUBJECTS.callerCampaignStart)
  start(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<CampaignView> {
    return this.campaigns.start(validCampaignRequest<CampaignCommandRequest>('command', raw), { caller: callerOf(ctx) });
  }

  @RequestHandler(SUBJECTS.callerCampaignPause)
  pause(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<CampaignView> {
    return this.campaigns.pause(validCampaignRequest<CampaignCommandRequest>('command', raw), { caller: callerOf(ctx) });
  }

  @RequestHandler(SUBJECTS.callerCampaignGet)
  get(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<CampaignView> {
    return this.campaigns.get(validCampaignRequest<CampaignCommandRequest>('command', raw), { caller: callerOf(ctx) });
  }

  @RequestHandler(SUBJECTS.callerCampaignCycle)
  cycle(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<CampaignView> {
    return this.campaigns.cycle(validCampaignRequest<CampaignCommandRequest>('command', raw), { caller: callerOf(ctx) });
  }

  @RequestHandler(SUBJECTS.callerCampaignRun)
  run(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<CampaignView> {
    return this.campaigns.run(validCampaignRequest<CampaignCommandRequest>('command', raw), { caller: callerOf(ctx) });
  }
}
