import { canonicalUuid, deterministicUuid, isUuid, sha256Hex } from './ids';
import { AppError, toWireError } from './errors';

describe('ids', () => {
  it('Effects happen once: the same inputs derive the same UUID, different inputs differ', () => {
    const a = deterministicUuid('run-1', 'call', 2);
    expect(a).toBe(deterministicUuid('run-1', 'call', 2));
    expect(a).not.toBe(deterministicUuid('run-1', 'call', 3));
    expect(isUuid(a)).toBe(true);
  });
  it('Probe: parts holding the separator or a lone surrogate never derive another input\'s id (two users\' request ids, conversations)', () => {
    expect(deterministicUuid('task-assistant', 'P', 'q\u001fr')).not.toBe(deterministicUuid('task-assistant', 'P\u001fq', 'r'));
    expect(deterministicUuid('conversation', 'w\ud801', 'c')).not.toBe(deterministicUuid('conversation', 'w\ufffd', 'c'));
    expect(deterministicUuid('conversation', 'w\ud801', 'c')).not.toBe(deterministicUuid('conversation', 'w\udfff', 'c'));
    // An escaped part cannot be spelled by an unescaped one either.
    expect(deterministicUuid('\u001e"a\\u001fb"')).not.toBe(deterministicUuid('a\u001fb'));
    // Ids derived before (no separator, well-formed) are unchanged: the same hash as the plain join.
    const hex = sha256Hex(['conversation', 'user-1', 'c-1'].join('\u001f'));
    expect(deterministicUuid('conversation', 'user-1', 'c-1').replace(/-/g, '').slice(0, 12)).toBe(hex.slice(0, 12));
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
  it('Probe finding: an exception of ours that names a code (the log\'s RUN.CONFLICT, a document conflict) is said in the code\'s words, never with its subject, version or ids', () => {
    const conflict = Object.assign(new Error('concurrent append to rl.log.run.decision.b1ec (expected version 331)'), { code: 'RUN.CONFLICT', subject: 'rl.log.run.decision.b1ec', expectedVersion: 331 });
    expect(toWireError(conflict)).toEqual({ code: 'RUN.CONFLICT', message: 'The run changed concurrently; retry.', retryable: true });
    expect(JSON.stringify(toWireError(Object.assign(new Error('x'), { code: 'STORE.CONFLICT', collection: 'tasks', id: 'u1' })))).not.toMatch(/tasks|u1/);
    // A wire error relayed from another service keeps its own fields, and only them.
    expect(toWireError({ code: 'LANE.DENIED', message: 'Not in this lane.', retryable: false, extra: 'x' })).toEqual({ code: 'LANE.DENIED', message: 'Not in this lane.', retryable: false });
  });
  it('app errors carry a stable code and retryable flag', () => {
    expect(new AppError('LANE.DENIED').toWire()).toMatchObject({ code: 'LANE.DENIED', retryable: false });
  });
});

describe('RFC 9562 run ids: canonicalUuid reads every UUID Runledger accepts in lower case', () => {
  it('RFC 9562 run ids: an id of any version (also one IsUUID refuses, version 0, which the task assistant\'s conversation_id check takes) is lower-cased; what is no UUID is left as it is', () => {
    expect(canonicalUuid('7F0E7C4E-2A7B-4F43-9F7E-0C6F8D7F5A11')).toBe('7f0e7c4e-2a7b-4f43-9f7e-0c6f8d7f5a11');
    expect(canonicalUuid('ABCDEF01-2345-0789-0BCD-EF0123456789')).toBe('abcdef01-2345-0789-0bcd-ef0123456789');
    expect(isUuid('ABCDEF01-2345-0789-0BCD-EF0123456789')).toBe(true);
    for (const other of ['NOT-A-UUID', 'URN:UUID:7F0E7C4E-2A7B-4F43-9F7E-0C6F8D7F5A11', 7, null]) expect(canonicalUuid(other)).toBe(other);
  });
});
