import { Decider, foldEvents, RecordedEvent } from './decider';

/** Stamps test events with metadata so folds that read `recorded_at` work in specs. */
export function recorded<T extends { type: string; data: unknown }>(events: T[], at = '2026-01-01T00:00:00.000Z'): RecordedEvent<T['type'], T['data']>[] {
  return events.map((e, i) => ({ ...e, metadata: { recorded_at: at, event_id: `evt-${i}` } }));
}

/**
 * Given/when/then for deciders:
 *   DeciderSpec.for(decider).given([...past]).when(command).then([...expected])
 */
export const DeciderSpec = {
  for<C, E extends { type: string; data: unknown }, S>(decider: Decider<C, E, S>) {
    return {
      given(past: E[]) {
        const state = foldEvents(decider.evolve, decider.initialState(), recorded(past));
        return {
          when(command: C) {
            const run = () => decider.decide(command, state);
            return {
              then(expected: E[]) {
                expect(run()).toEqual(expected);
              },
              thenNothing() {
                expect(run()).toEqual([]);
              },
              thenThrows(match?: string | RegExp) {
                expect(run).toThrow(match);
              },
            };
          },
        };
      },
    };
  },
};

/** Given/then for projections: the state after folding the given events. */
export function projectionSpec<S, E extends RecordedEvent>(evolve: (s: S, e: E) => S, initial: () => S) {
  return {
    given(events: E[]) {
      return { then: (expected: S) => expect(foldEvents(evolve, initial(), events)).toEqual(expected) };
    },
  };
}
