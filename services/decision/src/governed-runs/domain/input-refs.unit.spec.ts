import { inputRefProblem } from './input-refs';

const stored = { artifact_id: 'art-1', sha256: 'a'.repeat(64), size_bytes: 42, media_type: 'application/json', kind: 'client_intake_form', case_id: 'case-1', name: 'form.json' };

describe('Issue 26 caller grants: an input is the artifact the store recorded under its id', () => {
  it('the stored reference is taken; its name is a label, never identity', () => {
    expect(inputRefProblem(stored, stored)).toBeNull();
    const { name: _name, ...unnamed } = stored;
    expect(inputRefProblem(unnamed, stored)).toBeNull();
    expect(inputRefProblem({ ...stored, name: 'renamed.json' }, stored)).toBeNull();
  });

  it('a relabelled kind or media type is INVALID_INPUT naming the field', () => {
    expect(inputRefProblem({ ...stored, kind: 'candidate_insights' }, stored)).toEqual({
      code: 'INVALID_INPUT', reason: "Input artifact art-1 is not the artifact stored under that id: its kind differs from the store's reference.",
    });
    expect(inputRefProblem({ ...stored, media_type: 'text/plain' }, stored)?.reason).toContain('its media_type differs');
  });

  it('review finding: an artifact the store holds for another case is answered as none, naming no field (nothing of another case\'s artifacts is told)', () => {
    const none = { code: 'ARTIFACT.NOT_FOUND', reason: 'Input artifact art-1 is not in the artifact store.' };
    const { case_id: _case, ...shared } = stored;
    expect(inputRefProblem(shared, stored)).toEqual(none);
    expect(inputRefProblem({ ...stored, case_id: 'case-2', kind: 'facts' }, stored)).toEqual(none);
    expect(inputRefProblem({ ...stored, case_id: 'case-2', sha256: 'b'.repeat(64) }, stored)).toEqual(none);
  });

  it('other bytes (sha256 or size_bytes) are ARTIFACT.HASH_MISMATCH, also with a relabelled kind; an id nothing is stored under is ARTIFACT.NOT_FOUND', () => {
    expect(inputRefProblem({ ...stored, size_bytes: 43 }, stored)?.code).toBe('ARTIFACT.HASH_MISMATCH');
    expect(inputRefProblem({ ...stored, sha256: 'b'.repeat(64), kind: 'facts' }, stored)?.code).toBe('ARTIFACT.HASH_MISMATCH');
    expect(inputRefProblem(stored, undefined)).toEqual({ code: 'ARTIFACT.NOT_FOUND', reason: 'Input artifact art-1 is not in the artifact store.' });
  });
});
