import { documentIdProblem, MAX_DOCUMENT_ID_BYTES } from './document-id';

describe('Bad input gets a specific error code: one rule says which document ids are storable', () => {
  it('a document id with a control character, a lone surrogate or more than 512 UTF-8 bytes is named for what is wrong', () => {
    expect(documentIdProblem('')).toBe('must not be empty');
    expect(documentIdProblem('a\u0000b')).toBe('must not hold control characters');
    expect(documentIdProblem('a\u007f')).toBe('must not hold control characters');
    expect(documentIdProblem('\uDC00a')).toBe('must be well-formed text (no lone UTF-16 surrogate)');
    expect(documentIdProblem('é'.repeat(257))).toBe(`must be at most ${MAX_DOCUMENT_ID_BYTES} bytes as UTF-8 (it is 514)`);
  });

  it('a document id of letters, punctuation, other scripts and surrogate pairs up to 512 bytes is storable', () => {
    for (const id of ['x', 'a.b/c:d e', 'タスク', '😀'.repeat(128), 'x'.repeat(512)]) expect(documentIdProblem(id)).toBeNull();
  });
});
