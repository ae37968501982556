import { DeciderSpec, projectionSpec, recorded } from '@runledger/event-log';
import { conversationDecider, evolveConversation, initialConversation, MessageExchanged } from './conversation';

const exchange = (run_id: string, pending: MessageExchanged['pending_confirmation'] = null): MessageExchanged => ({
  run_id, user_message: `hi ${run_id}`, assistant_message: `hello ${run_id}`, at: '2026-01-01T00:00:00.000Z', pending_confirmation: pending,
});
const pending = { action_type: 'DELETE_TASK' as const, task_id: '6f1c2a4e-0000-4000-8000-000000000001', task_description: 'x', created_at: '2026-01-01T00:00:00.000Z', expires_at: '2026-01-01T00:05:00.000Z' };

describe('Conversation decider', () => {
  it('records an exchange once', () => {
    DeciderSpec.for(conversationDecider).given([]).when(exchange('r1')).then([{ type: 'MessageExchanged', data: exchange('r1') }]);
  });
  it('Effects happen once: a retried run records nothing more', () => {
    DeciderSpec.for(conversationDecider).given([{ type: 'MessageExchanged', data: exchange('r1') }]).when(exchange('r1')).thenNothing();
  });
});

describe('Conversation projection', () => {
  it('history alternates user and assistant; the latest exchange decides the pending confirmation', () => {
    projectionSpec(evolveConversation, initialConversation).given(recorded([{ type: 'MessageExchanged', data: exchange('r1', pending) }, { type: 'MessageExchanged', data: exchange('r2') }])).then({
      history: [
        { role: 'user', content: 'hi r1', timestamp: '2026-01-01T00:00:00.000Z' },
        { role: 'assistant', content: 'hello r1', timestamp: '2026-01-01T00:00:00.000Z' },
        { role: 'user', content: 'hi r2', timestamp: '2026-01-01T00:00:00.000Z' },
        { role: 'assistant', content: 'hello r2', timestamp: '2026-01-01T00:00:00.000Z' },
      ],
      pending_confirmation: null,
      recent_run_ids: ['r1', 'r2'],
    });
  });
});

describe('Conversation decider: a turn finishing after a later one', () => {
  it('Rule 1: a stale turn (decided before the latest turn) keeps the latest pending confirmation', () => {
    const later = { ...exchange('r2', pending), based_on_run_id: 'r0' };
    const stale = { ...exchange('r1', null), based_on_run_id: 'r0' };
    DeciderSpec.for(conversationDecider)
      .given([{ type: 'MessageExchanged', data: exchange('r0') }, { type: 'MessageExchanged', data: later }])
      .when(stale)
      .then([{ type: 'MessageExchanged', data: { ...stale, pending_confirmation: pending } }]);
  });
  it('a turn decided on the latest state sets its own pending confirmation', () => {
    const turn = { ...exchange('r1', pending), based_on_run_id: 'r0' };
    DeciderSpec.for(conversationDecider).given([{ type: 'MessageExchanged', data: exchange('r0') }]).when(turn).then([{ type: 'MessageExchanged', data: turn }]);
  });
});
