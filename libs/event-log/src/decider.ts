import { AggregateRef } from './aggregate-ref';
import { NewEvent, StoredEvent } from './envelope';
import { EventLog } from './event-log';
import { ConcurrencyError } from './log-errors';

/** An event as a fold sees it: type, data and the metadata the log recorded (time is data). */
export interface RecordedEvent<TType extends string = string, TData = unknown> {
  type: TType;
  data: TData;
  metadata: { recorded_at: string; event_id?: string; [key: string]: unknown };
}

/** Three pure functions per aggregate (emmett's decider): no clock, ids or I/O inside. */
export interface Decider<TCommand, TEvent extends { type: string; data: unknown }, TState> {
  decide(command: TCommand, state: TState): TEvent[];
  evolve(state: TState, event: RecordedEvent<TEvent['type'], TEvent['data']>): TState;
  initialState(): TState;
}

export function foldEvents<TState, TEvent extends RecordedEvent>(evolve: (s: TState, e: TEvent) => TState, initial: TState, events: readonly TEvent[]): TState {
  let state = initial;
  for (const e of events) state = evolve(state, e);
  return state;
}

export interface HandleResult<TState> {
  state: TState;
  version: number;
  appended: StoredEvent[];
}

/** An aggregate's state as folded up to `version` (the stream sequence of its last event folded). */
export interface KnownState<TState> {
  state: TState;
  version: number;
}

/**
 * Load → decide → append, serialised per aggregate with optimistic concurrency.
 * On a conflict the command is decided again on fresh state: the decider sees every concurrent write.
 * `opts.known`: a state the caller has just folded from the log; the first attempt decides on it without reading the
 * log again (an append that finds the aggregate moved on conflicts and the command is decided again on what the log
 * holds; a command the known state finds nothing to do for is checked again on a fresh read).
 */
export async function handleCommand<TCommand, TEvent extends { type: string; data: unknown }, TState>(
  log: EventLog,
  ref: AggregateRef,
  decider: Decider<TCommand, TEvent, TState>,
  command: TCommand,
  opts: { commandId: string; metadata?: NewEvent['metadata']; maxAttempts?: number; known?: KnownState<TState> },
): Promise<HandleResult<TState>> {
  const maxAttempts = opts.maxAttempts ?? 5;
  let known = opts.known;
  for (let attempt = 1; ; attempt++) {
    const { state, version } = known ?? (await loadState(log, ref, decider));
    const decidedOnHeld = known !== undefined;
    known = undefined;
    const decided = decider.decide(command, state);
    if (decided.length === 0) {
      if (decidedOnHeld) continue;
      return { state, version, appended: [] };
    }
    try {
      const result = await log.append(ref, decided.map((e) => ({ ...e, metadata: opts.metadata })), {
        commandId: `${opts.commandId}#${version}`,
        expectedVersion: version,
      });
      const next = foldEvents(decider.evolve, state, result.events as unknown as RecordedEvent<TEvent['type'], TEvent['data']>[]);
      return { state: next, version: result.version, appended: result.events };
    } catch (err) {
      if (err instanceof ConcurrencyError && (decidedOnHeld || attempt < maxAttempts)) continue;
      throw err;
    }
  }
}

async function loadState<TEvent extends { type: string; data: unknown }, TState>(log: EventLog, ref: AggregateRef, decider: Decider<unknown, TEvent, TState>): Promise<KnownState<TState>> {
  const { events, version } = await log.readAggregate(ref);
  return { state: foldEvents(decider.evolve, decider.initialState(), events as unknown as RecordedEvent<TEvent['type'], TEvent['data']>[]), version };
}
