import { Inject, Injectable } from '@nestjs/common';
import { decodeEnvelope, type StoredEvent } from '@runledger/event-log';
import { RUNTIME, ServiceRuntime } from '@runledger/messaging';
import { RunRepository, TERMINAL_TYPES } from '@runledger/runs';

/**
 * Waits for a run to reach a terminal event. A core subscription on the run's subject hears an append the
 * moment it is published — but also appends the stream refused or has not committed yet — so a terminal event
 * heard there is only a hint: the outcome counts once a read of the log confirms it. The log is also read
 * right after subscribing, so an outcome recorded earlier (a repeated request) is not missed. A confirmation is
 * one get of the run's last event (a run's terminal event is its last: the lifecycle admits nothing after it);
 * the outcome is that event, and a caller that needs the whole run folds it once.
 */
@Injectable()
export class RunWaiter {
  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime, private readonly runs: RunRepository) {}

  /** Subscribe first, then trigger the run, then await: no outcome can slip between the two. */
  watch(runId: string, timeoutMs: number): { outcome: Promise<StoredEvent | 'timeout'>; cancel: () => void } {
    const sub = this.runtime.nc.subscribe(RunRepository.ref(runId).subject);
    let timer: NodeJS.Timeout | undefined;
    const cancel = () => {
      if (timer) clearTimeout(timer);
      sub.unsubscribe();
    };
    const hints = (async function* () {
      for await (const m of sub) {
        try {
          if (TERMINAL_TYPES.has(decodeEnvelope(m.data).type)) yield true;
        } catch {
          // not an event envelope; ignore
        }
      }
    })();
    const never = new Promise<never>(() => undefined);
    const nextHint = () => hints.next().then((r) => (r.done ? never : ('hint' as const)));
    // A read that fails while nats-server restarts is "not confirmed yet", never a reason to give up (or to crash).
    const confirmed = async (): Promise<StoredEvent | null> => {
      const last = await this.runs.log.last(RunRepository.ref(runId)).catch(() => null);
      return last && TERMINAL_TYPES.has(last.type) ? last : null;
    };
    const outcome = (async (): Promise<StoredEvent | 'timeout'> => {
      const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
      try {
        let wake: Promise<'hint' | 'timeout' | 'done'> = Promise.race([confirmed().then((s) => (s ? ('done' as const) : never)), nextHint(), timedOut]);
        for (;;) {
          const why = await wake;
          const terminal = await confirmed();
          if (terminal) return terminal;
          if (why === 'timeout') return 'timeout';
          // Heard but not (yet) in the log: look again shortly, or at the next hint.
          wake = Promise.race([nextHint(), timedOut, new Promise<'hint'>((r) => setTimeout(() => r('hint'), 100))]);
        }
      } finally {
        cancel();
      }
    })();
    // The caller may never await the outcome (its inbox append failed): an outcome that rejects must not go unhandled.
    outcome.catch(() => undefined);
    return { outcome, cancel };
  }
}
