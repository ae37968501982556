import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { CampaignAnswerRequest, CampaignCommandRequest, CampaignCreateRequest, CampaignLeadsImportRequest, CampaignView, SUBJECTS } from '@runledger/contracts';
import { RequestHandler } from '@runledger/messaging';
import { CampaignService } from '../app/campaign.service';
import { validCampaignRequest } from './campaign-schemas';

/** agents.campaign.*: the contract-003 controller's API (proto-contracts/schemas/campaigns/). */
@Controller()
export class CampaignsController {
  constructor(private readonly campaigns: CampaignService) {}

  @RequestHandler(SUBJECTS.campaignCreate)
  create(@Payload() raw: unknown): Promise<CampaignView> {
    return this.campaigns.create(validCampaignRequest<CampaignCreateRequest>('create', raw));
  }

  @RequestHandler(SUBJECTS.campaignLeadsImport)
  importLeads(@Payload() raw: unknown): Promise<CampaignView> {
    return this.campaigns.importLeads(validCampaignRequest<CampaignLeadsImportRequest>('leads', raw));
  }

  @RequestHandler(SUBJECTS.campaignStart)
  start(@Payload() raw: unknown): Promise<CampaignView> {
    return this.campaigns.start(validCampaignRequest<CampaignCommandRequest>('command', raw));
  }

  @RequestHandler(SUBJECTS.campaignPause)
  pause(@Payload() raw: unknown): Promise<CampaignView> {
    return this.campaigns.pause(validCampaignRequest<CampaignCommandRequest>('command', raw));
  }

  @RequestHandler(SUBJECTS.campaignGet)
  get(@Payload() raw: unknown): Promise<CampaignView> {
    return this.campaigns.get(validCampaignRequest<CampaignCommandRequest>('command', raw));
  }

  @RequestHandler(SUBJECTS.campaignCycle)
  cycle(@Payload() raw: unknown): Promise<CampaignView> {
    return this.campaigns.cycle(validCampaignRequest<CampaignCommandRequest>('command', raw));
  }

  @RequestHandler(SUBJECTS.campaignRun)
  run(@Payload() raw: unknown): Promise<CampaignView> {
    return this.campaigns.run(validCampaignRequest<CampaignCommandRequest>('command', raw));
  }

  @RequestHandler(SUBJECTS.campaignAnswer)
  answer(@Payload() raw: unknown): Promise<CampaignView> {
    return this.campaigns.answer(validCampaignRequest<CampaignAnswerRequest>('answer', raw));
  }
}
