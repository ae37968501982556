import { nextRunState, type LifecycleEvent, type RunLifecycleState, type RunStatus } from '../index';

const ev = (type: string, data?: unknown): LifecycleEvent => ({ type, data });
/** Folds events from nothing; returns the final status or the first refusal. */
function fold(events: LifecycleEvent[]): RunStatus | string {
  let state: RunLifecycleState | undefined;
  for (const event of events) {
    const step = nextRunState(state, event);
    if (!step.ok) return `refused: ${step.reason}`;
    state = step.state;
  }
  return state ? state.status : 'none';
}
const allowed = [ev('RunCreated'), ev('AuthzDecided', { decision: 'allow' })];

describe('§1 run lifecycle (policy/contract-v1/run_lifecycle.md)', () => {
  test.each<[string, LifecycleEvent[], RunStatus]>([
    ['— RunCreated → created', [ev('RunCreated')], 'created'],
    ['created AuthzDecided{allow} → authorized', allowed, 'authorized'],
    ['created AuthzDecided{deny} → created (decision recorded)', [ev('RunCreated'), ev('AuthzDecided', { decision: 'deny' })], 'created'],
    ['created (after deny) RunDenied → denied', [ev('RunCreated'), ev('AuthzDecided', { decision: 'deny' }), ev('RunDenied')], 'denied'],
    ['authorized RunStarted → running', [...allowed, ev('RunStarted')], 'running'],
    ['running RunCompleted → completed', [...allowed, ev('RunStarted'), ev('RunCompleted')], 'completed'],
    ['running RunFailed → failed', [...allowed, ev('RunStarted'), ev('RunFailed')], 'failed'],
    ['running RunCancelled → cancelled', [...allowed, ev('RunStarted'), ev('RunCancelled')], 'cancelled'],
  ])('§1 lifecycle: %s', (_row, events, status) => {
    expect(fold(events)).toBe(status);
  });

  test.each<[string, LifecycleEvent[], string]>([
    ['work cannot start before an allow decision', [ev('RunCreated'), ev('RunStarted')], 'RunStarted is not allowed in state created'],
    ['a denied run cannot start', [ev('RunCreated'), ev('AuthzDecided', { decision: 'deny' }), ev('RunStarted')], 'RunStarted is not allowed in state created'],
    ['RunDenied needs a deny decision', [...allowed, ev('RunDenied')], 'RunDenied is not allowed in state authorized'],
    ['a run is decided once', [...allowed, ev('AuthzDecided', { decision: 'deny' })], 'AuthzDecided is not allowed in state authorized'],
    ['terminal states are final', [...allowed, ev('RunStarted'), ev('RunCompleted'), ev('RunFailed')], 'RunFailed is not allowed in state completed'],
    ['denied is terminal', [ev('RunCreated'), ev('AuthzDecided', { decision: 'deny' }), ev('RunDenied'), ev('RunDenied')], 'RunDenied is not allowed in state denied'],
    ['no completion before running', [...allowed, ev('RunCompleted')], 'RunCompleted is not allowed in state authorized'],
    ['nothing before RunCreated', [ev('AuthzDecided', { decision: 'allow' })], 'AuthzDecided is not allowed in state none'],
    ['a decision must be allow or deny', [ev('RunCreated'), ev('AuthzDecided', { decision: 'perhaps' })], 'AuthzDecided without a decision of allow or deny'],
  ])('§1 lifecycle: illegal — %s', (_case, events, reason) => {
    expect(fold(events)).toBe(`refused: ${reason}`);
  });

  test('§1 lifecycle: audit and other events never move the state', () => {
    expect(fold([...allowed, ev('RunStarted'), ev('ToolCallAudited'), ev('LlmCalled'), ev('RunCompleted')])).toBe('completed');
    expect(fold([...allowed, ev('ExportAuthorized')])).toBe('authorized');
  });
});
