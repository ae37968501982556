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
