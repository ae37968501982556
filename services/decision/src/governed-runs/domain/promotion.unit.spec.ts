import { sha256Hex } from '@runledger/governance';
import { candidateOf, candidateSha256, identifiersOf, ticketTargetOf } from './promotion';

describe('GOVERNANCE_AGENT inputs (§4.5)', () => {
  it('reads the candidate and records only its digest, the same one the promotion run records', () => {
    const candidate = candidateOf({ candidates: [{ title: ' Deposits ', text: 'Send a  written demand.' }] });
    expect(candidate).toEqual({ title: 'Deposits', text: 'Send a written demand.' });
    expect(candidateSha256(candidate)).toBe(sha256Hex('Deposits\nSend a written demand.'));
    expect(() => candidateOf({ title: 'No text' })).toThrow(/title and a text/);
  });

  it('refuses identifiers it could not screen in full instead of trimming them (that would fail open)', () => {
    expect(identifiersOf({ client_identifiers: [' Jane Doe ', 'Jane Doe', ''] })).toEqual(['Jane Doe']);
    expect(identifiersOf(['a@example.com'])).toEqual(['a@example.com']);
    expect(() => identifiersOf({ client_identifiers: Array.from({ length: 101 }, (_, i) => `Person ${i}`) })).toThrow(/At most 100/);
    expect(() => identifiersOf({ client_identifiers: [42] })).toThrow(/list of strings/);
  });

  it('reads only the target from the ticket: its approval is the promotion service\'s to judge (and to record)', () => {
    expect(ticketTargetOf({ ticket_id: 't-1', approved: true, scope: { targets: ['shared_heuristics'] } })).toBe('shared_heuristics');
    expect(ticketTargetOf({ promotion_ticket_id: 't-1', target: 'shared_heuristics' })).toBe('shared_heuristics');
    expect(ticketTargetOf({ ticket_id: 't-1' })).toBe('shared_playbooks');
    expect(ticketTargetOf(null)).toBe('shared_playbooks');
  });
});
