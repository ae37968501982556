import { headers as natsHeaders } from '@nats-io/transport-node';
import type { StreamConfig } from '@nats-io/jetstream';
import { isServerAnswer, kvGuardUpdate, revisionMark, kvWriterHeaders } from './kv-writer';

describe('who stored a KV revision: a writer, or the bus (kv-writer)', () => {
  it('a revision a writer marked for its own key is a writer\'s; marked for another key, it is a copy moved here', () => {
    expect(revisionMark(kvWriterHeaders('task-1'), 'task-1')).toBe('marked');
    expect(revisionMark(kvWriterHeaders('task-2'), 'task-1')).toBe('foreign');
    expect(revisionMark(undefined, 'task-1')).toBe('unmarked');
  });

  it('a direct get\'s copy (the server\'s Nats-* headers), a status or a log event is the bus\'s; a direct read adds the server\'s headers once, which is no copy', () => {
    const copy = kvWriterHeaders('task-1');
    copy.set('Nats-Stream', 'KV_rl_doc_tasks');
    copy.set('Nats-Sequence', '7');
    expect(revisionMark(copy, 'task-1')).toBe('foreign');
    // Read by a direct get: one set of server headers is the read's own; a second means a stored copy.
    const readDirect = kvWriterHeaders('task-1');
    readDirect.set('Nats-Sequence', '9');
    expect(revisionMark(readDirect, 'task-1', true)).toBe('marked');
    readDirect.append('Nats-Sequence', '12');
    expect(revisionMark(readDirect, 'task-1', true)).toBe('foreign');
    expect(revisionMark(natsHeaders(404, 'Message Not Found'), 'task-1')).toBe('foreign');
    const event = natsHeaders();
    event.set('Rl-Event-Type', 'RunCreated');
    expect(revisionMark(event, 'task-1')).toBe('foreign');
  });

  it('an unmarked value with the shape of a JetStream answer (typed API response, publish acknowledgement) is no document an earlier release wrote', () => {
    expect(isServerAnswer({ type: 'io.nats.jetstream.api.v1.account_info_response', memory: 0 })).toBe(true);
    expect(isServerAnswer({ stream: 'RUNLEDGER_LOG', seq: 12 })).toBe(true);
    expect(isServerAnswer({ stream: 'RUNLEDGER_LOG', seq: 12, duplicate: true })).toBe(true);
    expect(isServerAnswer({ error: { code: 503, description: 'no responders' } })).toBe(true);
    expect(isServerAnswer({ stream: 'x', seq: 1, title: 'a row' })).toBe(false);
    expect(isServerAnswer({ type: 'task', title: 'call the clinic' })).toBe(false);
    expect(isServerAnswer({})).toBe(false);
  });

  it('the bootstrap raises a bucket\'s history (never lowers it) and stops rollups; a bucket already so is left alone', () => {
    const earlier = { max_msgs_per_subject: 1, allow_rollup_hdrs: true } as StreamConfig;
    expect(kvGuardUpdate(earlier, 8)).toEqual({ max_msgs_per_subject: 8, allow_rollup_hdrs: false });
    expect(kvGuardUpdate({ max_msgs_per_subject: 8, allow_rollup_hdrs: false } as StreamConfig, 8)).toBeNull();
    expect(kvGuardUpdate({ max_msgs_per_subject: 16, allow_rollup_hdrs: false } as StreamConfig, 8)).toBeNull();
    // Every revision kept (data keys): discard-new per subject needs a per-subject limit, so it goes.
    expect(kvGuardUpdate({ max_msgs_per_subject: 1, allow_rollup_hdrs: true, discard_new_per_subject: true } as StreamConfig, -1))
      .toEqual({ max_msgs_per_subject: -1, allow_rollup_hdrs: false, discard_new_per_subject: false });
    expect(kvGuardUpdate({ max_msgs_per_subject: -1, allow_rollup_hdrs: false } as StreamConfig, -1)).toBeNull();
  });
});
