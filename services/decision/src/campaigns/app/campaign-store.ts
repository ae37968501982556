import { Injectable } from '@nestjs/common';
import { aggregateRef, AggregateRef, EventLog, foldEvents, handleCommand, RecordedEvent } from '@runledger/event-log';
import { AppError } from '@runledger/kernel';
import { campaignDecider, evolveCampaign, initialCampaignState } from '../domain/campaign.decider';
import { CampaignCommand, CampaignEvent, CampaignRefusal, CampaignState } from '../domain/campaign-types';
import { CampaignAsker, notTheAskers } from './campaign-asker';

export interface Handled {
  state: CampaignState;
  appended: CampaignEvent[];
}

/** Load → decide → append for campaigns (`rl.log.campaign.{id}`), serialised by the campaign's version. */
@Injectable()
export class CampaignStore {
  constructor(private readonly log: EventLog) {}

  static ref(campaignId: string): AggregateRef {
    return aggregateRef('campaign', campaignId);
  }

  async load(campaignId: string): Promise<CampaignState> {
    const events = await this.log.read(CampaignStore.ref(campaignId));
    return foldEvents(evolveCampaign, initialCampaignState(), events as unknown as RecordedEvent<CampaignEvent['type'], CampaignEvent['data']>[]);
  }

  /** `asker`: a request's (campaign-asker.ts); a campaign it may not reach is not found. Without one: decision's own work. */
  async loadExisting(campaignId: string, asker?: CampaignAsker): Promise<CampaignState> {
    const state = await this.load(campaignId);
    if (!state.exists || (asker && notTheAskers(state, asker))) throw new AppError('CAMPAIGN.NOT_FOUND');
    return state;
  }

  /**
   * `commandId` makes a retried command land on the same events (msgID); refusals become wire errors. `asker`: a
   * request's, decided only on a campaign recorded for it (checked on the state the command is decided on).
   */
  async handle(campaignId: string, command: CampaignCommand, commandId: string, asker?: CampaignAsker): Promise<Handled> {
    const decider = asker ? { ...campaignDecider, decide: (c: CampaignCommand, s: CampaignState) => {
      const refusal = notTheAskers(s, asker, c);
      if (refusal) throw refusal;
      return campaignDecider.decide(c, s);
    } } : campaignDecider;
    try {
      const result = await handleCommand(this.log, CampaignStore.ref(campaignId), decider, command, {
        commandId: `campaign:${campaignId}:${commandId}`,
        metadata: { correlation_id: campaignId },
      });
      return { state: result.state, appended: result.appended.map((e) => ({ type: e.type, data: e.data }) as CampaignEvent) };
    } catch (err) {
      if (err instanceof CampaignRefusal) throw new AppError(err.code, err.message);
      throw err;
    }
  }
}
