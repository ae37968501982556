import { Inject, Injectable } from '@nestjs/common';
import { eventTypesOf, liveEvents, type StoredEvent } from '@runledger/event-log';
import { RUNTIME, ServiceRuntime } from '@runledger/messaging';
import { RunRepository, TERMINAL_TYPES } from '@runledger/runs';

/** How often a run is looked at when the log has no live feed (a log created before it; see LIVE_RUN_PREFIX). */
const POLL_WITHOUT_FEED_MS = 250;

/**
 * Waits for a run to reach a terminal event. The log republishes every run event it has stored on the run's live
 * subject (LIVE_RUN_PREFIX): a terminal event heard there is committed, so it is the outcome, with no read. The
 * log is also read right after subscribing, so an outcome recorded earlier (a repeated request) is not missed;
 * the caller gets that read too (`lastAtStart`: a request checks its id against it). A run whose id is new (drawn
 * at random for this request) cannot have been recorded earlier: no read. On a log without the live feed the run's
 * last event is looked at every POLL_WITHOUT_FEED_MS instead (a run's terminal event is its last: the lifecycle
 * admits nothing after it).
 */
@Injectable()
export class RunWaiter {
  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime, private readonly runs: RunRepository) {}

  /** Subscribe first, then trigger the run, then await: no outcome can slip between the two. */
  async watch(runId: string, timeoutMs: number, opts: { newRun?: boolean } = {}): Promise<RunWatch> {
    const log = this.runs.log;
    // The runs waited for are agent runs, decision's own (a run begun before issue 23 also ends on decision's subject).
    const live = await log.liveSubject(RunRepository.ref(runId, 'decision'));
    const sub = live ? this.runtime.nc.subscribe(live) : null;
    let timer: NodeJS.Timeout | undefined;
    const cancel = () => {
      if (timer) clearTimeout(timer);
      sub?.unsubscribe();
    };
    const terminal = (last: StoredEvent | null) => (last && TERMINAL_TYPES.has(last.type) ? last : null);
    // A read that fails while nats-server restarts is "not there yet", never a reason to give up (or to crash).
    const lookedUp = async (): Promise<StoredEvent | null> => terminal(await this.last(runId).catch(() => null));
    const heard = sub
      ? (async function* () {
        for await (const m of sub) {
          if (eventTypesOf(m.headers).some((t) => TERMINAL_TYPES.has(t))) yield liveEvents(m).find((e) => TERMINAL_TYPES.has(e.type)) ?? null;
        }
      })()
      : null;
    const never = new Promise<never>(() => undefined);
    // The next terminal event the feed carries (null: heard, but its body did not decode: look it up instead).
    const next = (): Promise<StoredEvent | null> => (heard ? heard.next().then((r) => (r.done ? never : r.value)) : new Promise((r) => setTimeout(() => r(null), POLL_WITHOUT_FEED_MS)));
    const lastAtStart = opts.newRun ? Promise.resolve(null) : this.last(runId);
    const outcome = (async (): Promise<StoredEvent | 'timeout'> => {
      const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
      try {
        const earlier = terminal(await lastAtStart.catch(() => null));
        if (earlier) return earlier;
        for (;;) {
          const woke = await Promise.race([next(), timedOut]);
          if (woke !== null && woke !== 'timeout') return log.open(woke);
          const last = await lookedUp();
          if (last) return last;
          if (woke === 'timeout') return 'timeout';
        }
      } finally {
        cancel();
      }
    })();
    // The caller may never await the outcome (its inbox append failed): an outcome that rejects must not go unhandled.
    outcome.catch(() => undefined);
    return { outcome, cancel, lastAtStart };
  }

  /** The run's last event (null: none yet), opened. */
  private async last(runId: string): Promise<StoredEvent | null> {
    return (await this.runs.lastCommit(runId, 'decision')).pop() ?? null;
  }

  /** The run's RunCreated, if decision created it. */
  created(runId: string): Promise<StoredEvent | null> {
    return this.runs.created(runId);
  }
}

export interface RunWatch {
  /** The run's terminal event once the log holds it, or 'timeout'. */
  outcome: Promise<StoredEvent | 'timeout'>;
  cancel: () => void;
  /** The run's last event as the log held it just after subscribing (null for a new run); rejects if the read failed. */
  lastAtStart: Promise<StoredEvent | null>;
}
