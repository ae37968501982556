import type { Provider, Type } from '@nestjs/common';
import { SessionGateway } from '../sessions/app/session.gateway';
import { Approvals } from './app/approvals';
import { CAMPAIGN_REPLY_TIMEOUT_MS, CampaignService } from './app/campaign.service';
import { CampaignRuns } from './app/campaign-effects';
import { CampaignStore } from './app/campaign-store';
import { CAMPAIGN_TOOL_TIMEOUT_MS, CycleRunner } from './app/cycle-runner';
import { CampaignCycleWorker } from './app/cycle-worker';
import { PROPOSAL_AGENT } from './app/proposal-agent';
import { CampaignProposalAgent } from './infra/openai-proposal-agent';
import { CallerCampaignsController } from './transport/caller-campaigns.controller';
import { CampaignsController } from './transport/campaigns.controller';
import { settingNumber, settingText } from '@runledger/kernel';

export const CAMPAIGN_CONTROLLERS: Type[] = [CampaignsController, CallerCampaignsController];

/**
 * The contract-003 controller inside decision: it shares decision's log, policy catalog and run repository, and
 * calls tool-gateway and db-write like governed runs do. PROPOSAL_AGENT is the seam for other agent adapters.
 */
export function campaignProviders(env: NodeJS.ProcessEnv): Provider[] {
  return [
    CampaignStore, CampaignRuns, CycleRunner, CampaignCycleWorker, Approvals, CampaignService,
    {
      provide: PROPOSAL_AGENT,
      inject: [SessionGateway],
      useFactory: (sessions: SessionGateway) => new CampaignProposalAgent({
        baseURL: settingText('OPENAI_BASE_URL', env), apiKey: settingText('OPENAI_API_KEY', env), timeoutMs: settingNumber('CAMPAIGN_LLM_TIMEOUT_MS', env), sessionTimeoutMs: settingNumber('CAMPAIGN_SESSION_TIMEOUT_MS', env),
      }, sessions),
    },
    // Browser tools start a real Chromium on first use: allow more than the task tools' default.
    { provide: CAMPAIGN_TOOL_TIMEOUT_MS, useValue: settingNumber('CAMPAIGN_TOOL_TIMEOUT_MS', env) },
    // How long agents.campaign.cycle/run wait for their cycles before answering RUN.TIMEOUT (the cycles go on).
    { provide: CAMPAIGN_REPLY_TIMEOUT_MS, useValue: settingNumber('CAMPAIGN_REPLY_TIMEOUT_MS', env) },
  ];
}
