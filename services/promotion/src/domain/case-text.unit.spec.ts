import { artifactText, DEFAULT_SCREEN_LIMITS, referencedArtifactIds, screenLimitsFrom, strings } from './case-text';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('what a promotion screen reads from its case', () => {
  it('follows the artifact references of records and JSON artifacts, at any depth, once each', () => {
    const factsRecord = { case_id: 'c', artifact_id: 'art-facts', sha256: 'x', facts: [{ fact_id: 'f1', text: 't', source_artifact_id: 'art-doc' }, { source_artifact_id: 'art-doc' }] };
    expect(referencedArtifactIds(factsRecord)).toEqual(['art-facts', 'art-doc']);
    expect(referencedArtifactIds({ source_artifact_ids: ['art-a', 'art-b', 42, 'not an id!'] })).toEqual(['art-a', 'art-b']);
    expect(referencedArtifactIds({ transcription_id: 'art-x', document_id: 'art-y' })).toEqual([]);
  });

  it('Probe finding: reads every string of a value nested up to the request bound (32 levels), not 16 (deeper text went unscreened)', () => {
    let deep: unknown = 'the hidden case text';
    for (let i = 0; i < 31; i++) deep = { inner: deep };
    expect(strings(deep)).toEqual(['the hidden case text']);
  });

  it('screens JSON by its string values one per line, text as is, and nothing of media it cannot read', () => {
    const transcript = JSON.stringify({ segments: [{ index: 0, speaker: 'client', text: 'first turn ends here' }, { index: 1, speaker: 'client', text: 'and the second starts' }] });
    const json = artifactText('application/json', bytes(transcript));
    expect(json.text).toBe('client\nfirst turn ends here\nclient\nand the second starts');
    expect(json.json).toEqual(JSON.parse(transcript));
    expect(artifactText('text/plain; charset=utf-8', bytes('a lease'))).toEqual({ text: 'a lease' });
    expect(artifactText('application/pdf', bytes('%PDF-1.7'))).toEqual({ text: null });
    expect(artifactText('application/json', bytes('{not json'))).toEqual({ text: '{not json' });
  });

  it('takes its limits from the environment, the defaults when unset; a bad value stops the service at start, named (issue 21 settings)', () => {
    expect(screenLimitsFrom({})).toEqual(DEFAULT_SCREEN_LIMITS);
    expect(screenLimitsFrom({ PROMOTION_MAX_CASE_RECORDS: '5' })).toEqual({ ...DEFAULT_SCREEN_LIMITS, maxRecords: 5 });
    expect(() => screenLimitsFrom({ PROMOTION_MAX_SCREEN_ARTIFACTS: '-1' })).toThrow(/PROMOTION_MAX_SCREEN_ARTIFACTS: must be at least 1/);
    expect(() => screenLimitsFrom({ PROMOTION_MAX_SCREEN_TEXT_BYTES: 'lots' })).toThrow(/PROMOTION_MAX_SCREEN_TEXT_BYTES: must be a whole number/);
  });
});
