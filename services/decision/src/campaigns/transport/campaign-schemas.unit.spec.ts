import { randomUUID } from 'node:crypto';
import { validCampaignRequest } from './campaign-schemas';

describe('README "Run ids": a campaign request\'s UUIDs are read in lower case (RFC 9562: case-insensitive)', () => {
  it('README "Run ids": campaign_id and item_id in upper case are read as the lower-case id; the message itself is not changed; import_id (no UUID) keeps its case', () => {
    const campaign = randomUUID();
    const item = randomUUID();
    const command = { campaign_id: campaign.toUpperCase(), request_id: 'Req-1' };
    expect(validCampaignRequest('command', command)).toEqual({ campaign_id: campaign, request_id: 'Req-1' });
    expect(command.campaign_id).toBe(campaign.toUpperCase());
    expect(validCampaignRequest('answer', { campaign_id: campaign.toUpperCase(), item_id: item.toUpperCase(), decision: 'approved', approver: { id: 'ops', role: 'CAMPAIGN_OPERATOR' } })).toMatchObject({ campaign_id: campaign, item_id: item });
    const leads = { campaign_id: campaign.toUpperCase(), import_id: 'Import-A', leads: [{ full_name: 'Jane Doe', profile_url: 'https://example.org/in/jane' }] };
    expect(validCampaignRequest('leads', leads)).toMatchObject({ campaign_id: campaign, import_id: 'Import-A' });
    const lower = { campaign_id: campaign };
    expect(validCampaignRequest('command', lower)).toBe(lower); // already lower case: read as sent
  });
});
