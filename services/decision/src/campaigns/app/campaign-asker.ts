import { deterministicUuid } from '@runledger/kernel';
import type { CampaignCommand, CampaignRefusal, CampaignState } from '../domain/campaign-types';
import { noSuchCampaign, otherCampaign } from '../domain/campaign.decider';

/**
 * Who asks about a campaign: a caller on its own door (rl.caller.<identity>.campaign.*; `caller` is that identity,
 * which NATS lets no one else publish as) or the agents.campaign.* domain (`caller` absent: one trust domain, as
 * before). A door's campaign is recorded under an id derived from (caller, the campaign_id it named), with the caller
 * as `requested_by`, so two callers naming one campaign_id have two campaigns; each asker reaches only campaigns
 * recorded for it, and any other is answered as a campaign that does not exist (no oracle).
 */
export interface CampaignAsker {
  caller?: string;
}

/** agents.campaign.*: the campaigns created there, under the ids their creators named. */
export const AGENTS_DOMAIN: CampaignAsker = Object.freeze({});

/** The id the log keeps the asker's campaign `campaignId` under (rl.log.campaign.<id>, case campaign-<id>). */
export function campaignIdOf(asker: CampaignAsker, campaignId: string): string {
  return asker.caller === undefined ? campaignId : deterministicUuid('caller-campaign', asker.caller, campaignId);
}

/**
 * Why the asker may not act on this campaign: it was recorded for someone else. A create is refused as one naming
 * another campaign's id, anything else as a campaign that is not there. (A door's derived id can meet another
 * asker's campaign only if someone of agents.* created one under that very id.)
 */
export function notTheAskers(state: CampaignState, asker: CampaignAsker, command?: CampaignCommand): CampaignRefusal | null {
  if (!state.exists || state.requested_by === asker.caller) return null;
  return command?.type === 'CreateCampaign' ? otherCampaign() : noSuchCampaign();
}
