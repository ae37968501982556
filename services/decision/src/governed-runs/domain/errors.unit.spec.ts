import { AppError } from '@runledger/kernel';
import { AgentStepError, runErrorOf } from './errors';

describe('§2.2 a failed step\'s error: what the caller is told and whether asking again can help', () => {
  it('Bad input gets a specific error code: a choke point refusing the run\'s request itself (REQUEST.INVALID) is INVALID_INPUT, not retryable, in the choke point\'s words', () => {
    expect(runErrorOf(new AppError('REQUEST.INVALID', 'artifact_ids.0 must be an artifact id'))).toEqual({ error_code: 'INVALID_INPUT', message: 'artifact_ids.0 must be an artifact id', retryable: false });
  });

  it('a dependency that is down stays retryable, a policy refusal stays POLICY_DENIED, and anything unknown is INTERNAL without its text', () => {
    expect(runErrorOf(new AppError('DEPENDENCY.DOWN', 'no responders'))).toMatchObject({ error_code: 'DEPENDENCY_DOWN', retryable: true });
    expect(runErrorOf(new AppError('LANE.DENIED', 'denied'))).toMatchObject({ error_code: 'POLICY_DENIED', retryable: false });
    expect(runErrorOf(new AgentStepError('EXPORT.FAILED', 'x', false))).toEqual({ error_code: 'EXPORT.FAILED', message: 'x', retryable: false });
    expect(runErrorOf(new Error('secret internals'))).toEqual({ error_code: 'INTERNAL', message: 'The agent failed unexpectedly.', retryable: true });
  });
});
