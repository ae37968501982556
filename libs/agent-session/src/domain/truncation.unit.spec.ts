import { truncateToolResponse } from './truncation';

describe('toolResponseMaxBytes (truncation)', () => {
  it('toolResponseMaxBytes: content within the limit is untouched', () => {
    expect(truncateToolResponse('abc', 3)).toEqual({ truncated: false, content: 'abc' });
  });

  it('toolResponseMaxBytes: the notice reports original and kept bytes, is prepended, and the whole stays within the limit', () => {
    const r = truncateToolResponse('a'.repeat(500), 100);
    expect(r.truncated).toBe(true);
    if (!r.truncated) return;
    expect(r.content).toBe(`[TRUNCATED] Original size 500 bytes; truncated to ${r.truncatedBytes} bytes.\n${'a'.repeat(r.truncatedBytes)}`);
    expect(new TextEncoder().encode(r.content).length).toBeLessThanOrEqual(100);
    // Y has fewer digits than the limit, so the ceiling may be undershot by a byte or two, never exceeded.
    expect(r.content.length).toBeGreaterThanOrEqual(98);
  });

  it('toolResponseMaxBytes: sizes are UTF-8 bytes and a multi-byte character is never split', () => {
    const r = truncateToolResponse('€'.repeat(100), 80);
    if (!r.truncated) throw new Error('expected truncation');
    expect(r.originalBytes).toBe(300);
    expect(r.truncatedBytes % 3).toBe(0);
    expect(r.content).not.toContain('\uFFFD');
  });
});
