import { artifactText, truncateChars, utf8Prefix } from './text';

describe('One truncation, in the unit the bound is stated in (issue 21)', () => {
  it('truncateChars counts code points: an emoji (two UTF-16 units) is one character and is never cut in half', () => {
    expect(truncateChars('a😀b😀c', 3)).toBe('a😀b');
    expect(truncateChars('😀😀', 1)).toBe('😀');
    expect(truncateChars('short', 10)).toBe('short');
    expect(truncateChars('abcdefghij', 8, { ellipsis: true })).toBe('abcde...');
  });

  it('utf8Prefix keeps at most the byte budget and cuts at a character boundary', () => {
    expect(utf8Prefix('héllo', 2)).toEqual({ text: 'h', bytes: 1, originalBytes: 6 });
    expect(utf8Prefix('héllo', 3)).toEqual({ text: 'hé', bytes: 3, originalBytes: 6 });
    expect(utf8Prefix('😀', 3)).toEqual({ text: '', bytes: 0, originalBytes: 4 });
    expect(utf8Prefix('abc', 10)).toEqual({ text: 'abc', bytes: 3, originalBytes: 3 });
  });

  it('artifactText reads a stored text as ingest does: a UTF-8 byte order mark is no character of it (a JSON recording or form with one parses), a malformed byte is U+FFFD', () => {
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"utterances":[]}')]);
    expect(JSON.parse(artifactText(withBom))).toEqual({ utterances: [] });
    expect(withBom.toString('utf8').charCodeAt(0)).toBe(0xfeff); // what Buffer's decode kept
    expect(artifactText(Buffer.from([0x41, 0xff, 0x42]))).toBe('A\uFFFDB');
  });
});
