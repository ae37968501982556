import { delegationRefusal, isSessionRun, sessionReplyOf, terminalOf } from './session-run';
import { initialRunState, RunState } from '@runledger/runs';

describe('session runs', () => {
  it('INV-DT-002: an agent that is already in its delegation chain is refused as a cycle, with the chain named', () => {
    expect(delegationRefusal(['planner', 'researcher'], 'planner', 5)).toEqual({ error_code: 'DELEGATION.CYCLE', message: 'Circular delegation: planner -> researcher -> planner.', retryable: false });
    expect(delegationRefusal(['planner'], 'researcher', 5)).toBeUndefined();
  });

  it('INV-DT-001: a chain deeper than maxDepth is refused; up to maxDepth is allowed', () => {
    expect(delegationRefusal(['a', 'b'], 'c', 2)).toBeUndefined();
    expect(delegationRefusal(['a', 'b', 'c'], 'd', 2)).toMatchObject({ error_code: 'DELEGATION.DEPTH_EXCEEDED' });
  });

  it('Issue 7 a session is a run of the session kind: its opening pins a profile and its authorization is the session worker\'s; a governed run, also one whose caller wrote session-like parameters, is none', () => {
    const parameters = { session: { agent: 'researcher', version: '1', profile_sha256: 'h' }, prompt: 'x' };
    const session = { run: { parameters } as never, authz: { decision: 'allow', action: 'session:researcher' } as never };
    expect(isSessionRun(session)).toBe(true);
    expect(isSessionRun({ run: { parameters: {} } as never, authz: { decision: 'allow', action: 'INTAKE_AGENT' } as never })).toBe(false);
    expect(isSessionRun({ ...session, authz: { decision: 'allow', action: 'INTAKE_AGENT' } as never })).toBe(false);
    expect(isSessionRun({ run: undefined, authz: undefined })).toBe(false);
  });

  it('§2 Always Return Output: a session without success ends failed with the error kind as code; success completes', () => {
    expect(terminalOf({ success: false, error: { kind: 'quota', message: 'token budget exhausted' }, conversation: [], accounting: [] })).toEqual({ type: 'RunFailed', data: { error: { error_code: 'SESSION.QUOTA', message: 'token budget exhausted', retryable: false } } });
    const report = { status: 'success' as const, format: 'markdown', source: 'tool' as const, ts: 1, content: 'ok' };
    expect(terminalOf({ success: true, finalReport: report, conversation: [], accounting: [] })).toMatchObject({ type: 'RunCompleted', data: { result: { success: true, finalReport: report } } });
  });

  it('Issue 9 erasure (review 1): a failed report\'s text is not copied into RunFailed (unsealed); it stays in the sealed SessionFinished', () => {
    const report = { status: 'failure' as const, format: 'markdown', source: 'tool' as const, ts: 1, content: 'client Dana Reyes could not be reached' };
    const terminal = terminalOf({ success: false, finalReport: report, conversation: [], accounting: [] });
    expect(terminal).toMatchObject({ type: 'RunFailed', data: { error: { error_code: 'SESSION.NO_REPORT' } } });
    expect(JSON.stringify(terminal)).not.toContain('Dana Reyes');
  });

  it('§4 accounting: the reply folds accounting and usage from the recorded events, counting a repeated index once', () => {
    const entry = { type: 'llm', provider: 'p', model: 'm', status: 'ok', latency: 3, tokens: { inputTokens: 10, outputTokens: 5, totalTokens: 15 }, timestamp: 1, costUsd: 0.5 };
    const events = [
      { type: 'SessionAccounted', data: { index: 0, entry } },
      { type: 'SessionAccounted', data: { index: 0, entry } },
      { type: 'SessionFinished', data: { success: true, conversation: [] } },
    ];
    const reply = sessionReplyOf('r', { ...initialRunState(), status: 'completed' } as unknown as RunState, events);
    expect(reply.result!.accounting).toEqual([entry]);
    expect(reply.usage).toEqual({ llmRequests: 1, toolCalls: 0, inputTokens: 10, outputTokens: 5, totalTokens: 15, costUsd: 0.5 });
  });
});
