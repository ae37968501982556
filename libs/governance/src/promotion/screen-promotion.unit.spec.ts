import { PROMOTION_DETECTION_LIMITS, screenPromotion, type PromotionScreenInput } from '../index';

const transcript =
  'Ms. Jane Okafor said her landlord entered the apartment on three separate occasions without any notice while she was at work, ' +
  'and changed the locks on the fourth of March.';
const sanitised =
  'Playbook: when a landlord repeatedly enters a rental unit without notice, document each entry with dates and witnesses ' +
  'before sending a demand letter.';
const base: PromotionScreenInput = {
  candidateText: sanitised,
  caseArtifactsText: ['Intake form: tenant dispute, residential lease.', transcript],
  clientIdentifiers: ['Jane Okafor', 'jane.okafor@example.org', '+1 (555) 010-2030', '2:26-cv-01234'],
};
const screen = (candidateText: string, overrides: Partial<PromotionScreenInput> = {}) => screenPromotion({ ...base, ...overrides, candidateText });
const evidence = (result: ReturnType<typeof screenPromotion>) => (result.ok ? [] : result.findings.map((f) => `${f.rule}: ${f.evidence}`));

describe('§4.5 promotion sanitiser', () => {
  test('§4.5 promotion: a sanitised, generalised insight passes', () => {
    expect(screen(sanitised)).toEqual({ ok: true });
  });

  test('§4.5 raw_case_text: an 8-word verbatim run from the case is refused, despite case, punctuation and spacing changes', () => {
    const copied = `Insight: the LANDLORD entered the apartment,  on three separate occasions -- without any notice. ${sanitised}`;
    const from = copied.indexOf('LANDLORD');
    const to = copied.indexOf('notice') + 'notice'.length;
    expect(evidence(screen(copied))).toEqual([`raw_case_text: verbatim run of 11 words from case artifact #2 at characters ${from}-${to}`]);
  });

  test('§4.5 raw_case_text: the threshold is 8 words — a 7-word shared run passes', () => {
    expect(screen('entered the apartment on three separate occasions, then left.')).toEqual({ ok: true });
    expect(screen('entered the apartment on three separate occasions without, then left.').ok).toBe(false);
  });

  test('§4.5 raw_case_text: evidence names the place, never the copied case text', () => {
    const result = screen(transcript);
    expect(result.ok).toBe(false);
    const text = evidence(result).join(' ');
    expect(text).not.toMatch(/landlord|apartment|Okafor/i);
  });

  test('§4.5 client_identity: supplied names, emails, phones and case numbers are found however they are written', () => {
    const leaky =
      'Heuristic from JANE  OKAFOR’s matter (Jane.Okafor@Example.org, 555.010.2030), docket 2:26-CV-01234: send the letter early.';
    const span = (s: string) => `${leaky.indexOf(s)}-${leaky.indexOf(s) + s.length}`;
    expect(evidence(screen(leaky))).toEqual([
      `client_identity: supplied client identifier #1 (J********) at characters ${span('JANE  OKAFOR')}`,
      `client_identity: supplied client identifier #2 (j********) at characters ${span('Jane.Okafor@Example.org')}`,
      `client_identity: supplied client identifier #3 (+********) at characters ${span('555.010.2030')}`,
      `client_identity: supplied client identifier #4 (2********) at characters ${span('2:26-CV-01234')}`,
    ]);
  });

  test('§4.5 client_identity: emails and phone numbers are refused even when nobody supplied them', () => {
    const text = 'Ask the tenant (t.nguyen@mail.example.com or +44 20 7946 0958) for photos.';
    const span = (s: string) => `${text.indexOf(s)}-${text.indexOf(s) + s.length}`;
    expect(evidence(screen(text, { clientIdentifiers: [] }))).toEqual([
      `client_identity: email address (t*******@m********.com) at characters ${span('t.nguyen@mail.example.com')}`,
      `client_identity: phone number (12 digits, ending 58) at characters ${span('+44 20 7946 0958')}`,
    ]);
  });

  test('§4.5 client_identity: identifiers match whole words only, and accents do not hide a name', () => {
    expect(screen('Use the okafore test.', { clientIdentifiers: ['Okafor'] })).toEqual({ ok: true });
    expect(evidence(screen('Per Zoë Müller, file early.', { clientIdentifiers: ['  ', 'Zoe Muller'] }))).toEqual([
      'client_identity: supplied client identifier #2 (Z********) at characters 4-14',
    ]);
  });

  test.each([
    'ATTORNEY-CLIENT PRIVILEGED: settle below 40k.',
    'Privileged & Confidential — strategy memo.',
    'This summary is attorney work product.',
    'Prepared at the direction of counsel.',
  ])('§4.5 privileged_notes: marker in "%s" is refused', (text) => {
    const result = screen(text);
    expect(result.ok).toBe(false);
    expect(result.ok || result.findings.every((f) => f.rule === 'privileged_notes')).toBe(true);
  });

  test('§4.5 promotion: every rule is reported at once, and long lists are capped with a count', () => {
    const phones = Array.from({ length: 13 }, (_, i) => `555-010-${String(2000 + i)}`).join(', ');
    const result = screen(`Privileged and confidential. ${transcript} Call ${phones}.`);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(new Set(result.findings.map((f) => f.rule))).toEqual(new Set(['raw_case_text', 'client_identity', 'privileged_notes']));
      const identity = result.findings.filter((f) => f.rule === 'client_identity');
      expect(identity).toHaveLength(11);
      expect(identity[10].evidence).toBe('and 4 more client_identity matches');
      expect(result.findings.every((f) => f.evidence.length <= 160)).toBe(true);
    }
  });

  test('§4.5 promotion: the detection limits are stated, including what is not detected', () => {
    expect(PROMOTION_DETECTION_LIMITS).toMatch(/8 or more consecutive words/);
    expect(PROMOTION_DETECTION_LIMITS).toMatch(/Not detected: paraphrased/);
    expect(PROMOTION_DETECTION_LIMITS).toMatch(/identifiers that were not supplied/);
  });
});
