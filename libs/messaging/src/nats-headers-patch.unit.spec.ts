import './nats-headers-patch';
import { headers, Match, MsgHdrsImpl } from '@nats-io/nats-core/internal';

/**
 * Issue 22: the header fast path (nats-headers-patch) answers exactly as nats.js does; only allocation changed. Every
 * refusal is still nats.js's own error.
 */
describe('Issue 22: NATS headers without per-call allocation keep nats.js behaviour', () => {
  it('exact get, has, values, set and delete see each name once, values in order, trimmed', () => {
    const h = headers();
    h.append('Nats-Msg-Id', ' a ');
    h.append('Nats-Msg-Id', 'b');
    expect(h.get('Nats-Msg-Id')).toBe('a');
    expect(h.values('Nats-Msg-Id')).toEqual(['a', 'b']);
    expect(h.has('Nats-Msg-Id')).toBe(true);
    expect(h.has('nats-msg-id')).toBe(false);
    expect(h.get('nats-msg-id')).toBe('');
    expect(h.values('missing')).toEqual([]);
    h.values('Nats-Msg-Id').push('not kept');
    expect(h.values('Nats-Msg-Id')).toEqual(['a', 'b']);
    h.set('Nats-Msg-Id', 'c');
    expect(h.values('Nats-Msg-Id')).toEqual(['c']);
    h.delete('Nats-Msg-Id');
    expect(h.has('Nats-Msg-Id')).toBe(false);
  });

  it('other match modes are nats.js\'s own (case-insensitive lookups still find the name)', () => {
    const h = headers();
    h.append('traceparent', '00-abc');
    expect(h.get('TRACEPARENT', Match.IgnoreCase)).toBe('00-abc');
    expect(h.has('Traceparent', Match.CanonicalMIME)).toBe(false);
    h.append('x-kind', 'one', Match.CanonicalMIME);
    expect(h.get('X-Kind')).toBe('one');
    h.delete('X-KIND', Match.IgnoreCase);
    expect(h.has('X-Kind')).toBe(false);
  });

  it('a name with a colon or a value with a line break is refused every time, also after the name was accepted', () => {
    const h = headers();
    expect(() => h.append('bad:name', 'v')).toThrow(/not a valid character in a header name/);
    expect(() => h.append('bad:name', 'v')).toThrow(/not a valid character in a header name/);
    h.append('Rl-Event-Type', 'RunCreated');
    expect(() => h.append('Rl-Event-Type', 'a\r\nInjected: 1')).toThrow(/values cannot contain/);
    expect(h.values('Rl-Event-Type')).toEqual(['RunCreated']);
  });

  it('a received header block decodes to the same headers that were sent', () => {
    const h = headers();
    h.append('Nats-Expected-Last-Subject-Sequence', '12');
    h.append('traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    h.append('Multi', 'x');
    h.append('Multi', 'y');
    const decoded = MsgHdrsImpl.decode((h as MsgHdrsImpl).encode());
    expect(decoded.equals(h as MsgHdrsImpl)).toBe(true);
    expect(decoded.values('Multi')).toEqual(['x', 'y']);
    expect(decoded.get('Nats-Expected-Last-Subject-Sequence')).toBe('12');
  });
});
