import 'reflect-metadata';
import { callerScopedUser } from '@runledger/contracts';
import { forCaller } from './caller-scope';

const keyed = callerScopedUser('caller', 'alice');
const decision = {
  decision_type: 'INVOKE_TOOL', response_text: "I've added 'buy milk' to your tasks.",
  tool_calls: [{ tool_name: 'add_task', parameters: { user_id: keyed, description: 'buy milk' }, sequence: 1 }],
};

describe('README "A caller\'s own door": what a door\'s caller reads names its user as it sent it', () => {
  it('Contract 000 Never expose: a door run\'s tool_calls (rl.caller.X.runs.get result, runs.events data) show the user_id the caller sent, not Runledger\'s keyed form of it', () => {
    const view = forCaller({ run_id: 'r', result: { decision } }, keyed, 'caller');
    expect(view.result.decision.tool_calls[0].parameters.user_id).toBe('alice');
    expect(JSON.stringify(view)).not.toContain('rl.caller.');
    const events = forCaller([{ type: 'RunCreated', data: { user_id: keyed, requested_by: 'caller' } }, { type: 'DecisionRecorded', data: { decision, audit_record: { user_id: keyed } } }], keyed, 'caller');
    expect(events.map((e) => JSON.stringify(e.data))).toEqual([expect.not.stringContaining('rl.caller.'), expect.not.stringContaining('rl.caller.')]);
    expect(events[0].data).toEqual({ user_id: 'alice', requested_by: 'caller' });
  });

  it('leaves everything else as it is: other strings, another caller\'s user, a run with no user', () => {
    const other = callerScopedUser('test-admin', 'alice');
    expect(forCaller({ user_id: other, text: `${keyed} in a sentence` }, other, 'caller')).toEqual({ user_id: other, text: `${keyed} in a sentence` });
    expect(forCaller({ result: { decision } }, undefined, 'caller')).toEqual({ result: { decision } });
    expect(forCaller({ n: 1, ok: true, none: null, list: [keyed, 'x'] }, keyed, 'caller')).toEqual({ n: 1, ok: true, none: null, list: ['alice', 'x'] });
  });
});
