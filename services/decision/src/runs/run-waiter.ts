import { Inject, Injectable } from '@nestjs/common';
import { eventTypesOf, liveEvents, type StoredEvent } from '@runledger/event-log';
import { RUNTIME, ServiceRuntime } from '@runledger/messaging';
import { RunRepository, TERMINAL_TYPES } from '@runledger/runs';

/** How often a run is looked at when the log has no live feed (a log created before it; see LIVE_RUN_PREFIX). */
export const POLL_WITHOUT_FEED_MS = 250;

/**
 * Waits for a run to reach a terminal event, driven by events, with one timeout and no loop. The log republishes
 * every run event it has stored on the run's live subject (LIVE_RUN_PREFIX): a terminal event heard there is
 * committed, so it is the outcome, with no read (one whose body does not decode is looked up instead), handed over
 * with the commit that holds it (a task run's decision is recorded beside its RunCompleted, not in it). The log is
 * also read right after subscribing, so an outcome recorded earlier (a repeated request) is not missed; the caller
 * gets that read too (`lastAtStart`: a request checks its id against it). A run whose id is new (drawn at random for
 * this request) cannot have been recorded earlier: no read (`newRun`). A caller that learns only after subscribing
 * whether the request is new (its inbox append answered as a duplicate, issue 22) asks for that read then (`look`). At the timeout the run is looked up once more (an
 * outcome the feed lost while nats-server restarted is still found). On a log without the live feed the run's last
 * event is looked at every POLL_WITHOUT_FEED_MS instead (a run's terminal event is its last: the lifecycle admits
 * nothing after it). The first of these to find the terminal event settles the outcome; the rest are dropped.
 */
@Injectable()
export class RunWaiter {
  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime, private readonly runs: RunRepository) {}

  /** Subscribe first, then trigger the run, then await: no outcome can slip between the two. */
  async watch(runId: string, timeoutMs: number, opts: { newRun?: boolean } = {}): Promise<RunWatch> {
    const log = this.runs.log;
    // The runs waited for are agent runs, decision's own (a run begun before issue 23 also ends on decision's subject).
    const live = await log.liveSubject(RunRepository.ref(runId, 'decision'));
    let settle!: (outcome: RunOutcome | 'timeout') => void;
    const outcome = new Promise<RunOutcome | 'timeout'>((resolve) => (settle = resolve));
    // Over once settled or cancelled: nothing heard or looked up afterwards settles it, and no look is scheduled.
    let over = false;
    const finish = (found: RunOutcome | 'timeout' | null) => {
      if (!found || over) return;
      cancel();
      settle(found);
    };
    const ended = (commit: StoredEvent[], heard = false): RunOutcome | null => {
      const terminal = commit.at(-1);
      return terminal && TERMINAL_TYPES.has(terminal.type) ? { terminal, commit, heard } : null;
    };
    // A read that fails while nats-server restarts is "not there yet", never a reason to give up (or to crash).
    const lookUp = (): Promise<RunOutcome | null> => this.runs.lastCommit(runId, 'decision').then((c) => ended(c), () => null);
    const lookedUp = () => void lookUp().then(finish);
    const heard = (m: Parameters<typeof liveEvents>[0]) => {
      if (!eventTypesOf(m.headers).some((t) => TERMINAL_TYPES.has(t))) return;
      const commit = liveEvents(m);
      if (!commit.some((e) => TERMINAL_TYPES.has(e.type))) return lookedUp();
      Promise.all(commit.map((e) => log.open(e))).then((opened) => finish(ended(opened, true)), lookedUp);
    };
    const sub = live ? this.runtime.nc.subscribe(live, { callback: (_err, m) => heard(m) }) : null;
    // Without the feed: the next look is scheduled once the last one answered (reads never pile up on a slow log).
    let poll: NodeJS.Timeout | undefined;
    // unref: a pending wait never keeps the process alive on its own (a stopping service is not held by it).
    const pollSoon = () => (poll = setTimeout(() => void lookUp().then((last) => (last ? finish(last) : over || pollSoon())), POLL_WITHOUT_FEED_MS).unref());
    if (!sub) pollSoon();
    const timer = setTimeout(() => void lookUp().then((last) => finish(last ?? 'timeout')), timeoutMs).unref();
    const cancel = () => {
      over = true;
      clearTimeout(timer);
      clearTimeout(poll);
      sub?.unsubscribe();
    };
    const read = () => {
      const commit = this.runs.lastCommit(runId, 'decision');
      // A failed read here is the caller's to see (it rejects the last event); the wait goes on regardless.
      commit.then((c) => finish(ended(c)), () => undefined);
      const last = commit.then((c) => c.at(-1) ?? null);
      // Not every caller reads it: a failed read must not go unhandled.
      last.catch(() => undefined);
      return last;
    };
    const lastAtStart = opts.newRun ? Promise.resolve(null) : read();
    return { outcome, cancel, lastAtStart, look: read };
  }

  /** The run's RunCreated, if decision created it. */
  created(runId: string): Promise<StoredEvent | null> {
    return this.runs.created(runId);
  }
}

/** A run's terminal event and the commit that holds it (the records appended with it, opened), as the log stored them. */
export interface RunOutcome {
  terminal: StoredEvent;
  commit: readonly StoredEvent[];
  /** Heard on the live feed (false: found by a read of the log). */
  heard: boolean;
}

export interface RunWatch {
  /** The run's end once the log holds it, or 'timeout' (never settles once cancelled). */
  outcome: Promise<RunOutcome | 'timeout'>;
  cancel: () => void;
  /** The run's last event as the log held it just after subscribing (null for a new run); rejects if the read failed. */
  lastAtStart: Promise<StoredEvent | null>;
  /** Reads the run's last commit now (settling the outcome if it is terminal): its last event, null for none; rejects if the read failed. */
  look: () => Promise<StoredEvent | null>;
}
