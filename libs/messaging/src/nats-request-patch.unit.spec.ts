import { errors, RequestOne } from '@nats-io/nats-core/internal';
import './nats-request-patch';

/** A request as the client's multiplexer holds it, with its promise's reject observed. */
function request() {
  const mux = { cancel: jest.fn() };
  const r = new RequestOne(mux as never, 'rl.tool.invoke', { timeout: 60_000 }, false) as unknown as {
    deferred: Promise<unknown> & { reject: jest.Mock };
    resolver(err: Error | null, msg: unknown): void;
    cancel(err?: Error): void;
  };
  const reject = jest.spyOn(r.deferred, 'reject');
  return { r, mux, reject };
}

describe('nats.js request patch (issue 12: no Error built per answered request)', () => {
  it('an answered request resolves with its message, leaves the inbox, and is not given an error of its own', async () => {
    const a = request();
    const b = request();
    a.r.resolver(null, 'reply-a');
    b.r.resolver(null, 'reply-b');
    await expect(a.r.deferred).resolves.toBe('reply-a');
    await expect(b.r.deferred).resolves.toBe('reply-b');
    expect(a.mux.cancel).toHaveBeenCalledTimes(1);
    // cancel() rejects the settled promise (a no-op) with one shared error, not a new one each time.
    expect(a.reject.mock.calls[0][0]).toBe(b.reject.mock.calls[0][0]);
  });

  it('a request cancelled before any answer (a closed connection) still fails with an error of its own', async () => {
    const a = request();
    const b = request();
    a.r.cancel();
    b.r.cancel();
    await expect(a.r.deferred).rejects.toBeInstanceOf(errors.RequestError);
    await expect(b.r.deferred).rejects.toBeInstanceOf(errors.RequestError);
    expect(a.reject.mock.calls[0][0]).not.toBe(b.reject.mock.calls[0][0]);
  });

  it('an answer that is an error (no responders) still rejects the request with that cause', async () => {
    const a = request();
    a.r.resolver(new errors.NoRespondersError('rl.tool.invoke'), undefined);
    await expect(a.r.deferred).rejects.toMatchObject({ cause: expect.any(errors.NoRespondersError) });
  });
});
