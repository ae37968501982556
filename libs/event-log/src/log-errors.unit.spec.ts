import { jserrors } from '@nats-io/jetstream/internal';
import { errors } from '@nats-io/nats-core';
import { isBusFault } from './log-errors';

describe('Issue 10 bus faults are retryable, never a decision', () => {
  it('a publish without responders after the client\'s retries (JetStreamNotEnabled: a cluster node restarting) is a bus fault, as a timeout is', () => {
    expect(isBusFault(new jserrors.JetStreamNotEnabled('jetstream is not enabled'))).toBe(true);
    expect(isBusFault(new errors.TimeoutError())).toBe(true);
    expect(isBusFault(new Error('jetstream is not enabled'))).toBe(false);
  });
});
