import { deterministicUuid, isUuid, sha256Hex } from './ids';
import { AppError, toWireError } from './errors';

describe('ids', () => {
  it('Effects happen once: the same inputs derive the same UUID, different inputs differ', () => {
    const a = deterministicUuid('run-1', 'call', 2);
    expect(a).toBe(deterministicUuid('run-1', 'call', 2));
    expect(a).not.toBe(deterministicUuid('run-1', 'call', 3));
    expect(isUuid(a)).toBe(true);
  });
  it('part boundaries matter ("ab","c" ≠ "a","bc")', () => {
    expect(deterministicUuid('ab', 'c')).not.toBe(deterministicUuid('a', 'bc'));
  });
  it('sha256Hex matches the published test vector', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
  it('Issue 22 sha256Hex (one-shot) hashes a text as its UTF-8 bytes, and bytes as given', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex(new TextEncoder().encode('abc'))).toBe(sha256Hex('abc'));
    expect(sha256Hex(new TextEncoder().encode('tâche \u{1F600}'))).toBe(sha256Hex('tâche \u{1F600}'));
  });
});

describe('errors', () => {
  it('unknown errors never leak their message', () => {
    const wire = toWireError(new Error('connect ECONNREFUSED 10.0.0.1:27017 SELECT * FROM users'));
    expect(wire).toEqual({ code: 'INTERNAL', message: 'Something went wrong on our side.', retryable: true });
  });
  it('app errors carry a stable code and retryable flag', () => {
    expect(new AppError('LANE.DENIED').toWire()).toMatchObject({ code: 'LANE.DENIED', retryable: false });
  });
});
