import type { StoredEvent } from '@runledger/event-log';
import fixture from '../../../../libs/runs/src/domain/fixtures/task-run-v1.json';
import { decisionOf } from './task-run.reply';

const stored = (e: { type: string; data: unknown }, index: number): StoredEvent => ({ ...e, metadata: {} as StoredEvent['metadata'], seq: 9, index, subject: 'rl.log.run.decision.r' });

describe('Issue 21 a task run\'s reply: its decision, stored once (DecisionRecorded beside RunCompleted)', () => {
  const [decided, completed] = fixture.events.slice(-2);
  const decision = (decided!.data as { decision: unknown }).decision;

  it('Recorded history: a run recorded before issue 21 (the decision in DecisionRecorded and RunCompleted.result) answers its decision', () => {
    const commit = [stored(decided!, 0), stored(completed!, 1)];
    expect(decisionOf({ terminal: commit[1]!, commit })).toEqual(decision);
    // A reader handed RunCompleted alone (its commit not read) still answers from the copy the old run holds.
    expect(decisionOf({ terminal: commit[1]!, commit: [commit[1]!] })).toEqual(decision);
  });

  it('a run recorded since (RunCompleted holds no copy) answers the decision of the DecisionRecorded in its commit', () => {
    const { result: _copy, ...data } = completed!.data as { result: unknown };
    const commit = [stored(decided!, 0), stored({ type: 'RunCompleted', data }, 1)];
    expect(decisionOf({ terminal: commit[1]!, commit })).toEqual(decision);
  });

  it('a run that ended without a decision says what happened', () => {
    const cancelled = stored({ type: 'RunCancelled', data: { reason: 'r' } }, 0);
    expect(decisionOf({ terminal: cancelled, commit: [cancelled] }).decision_type).toBe('RESPOND_ONLY');
  });
});
