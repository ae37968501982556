import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventSpanAttributes, failedRunOutcome } from './run-spans';
import { DURATION_BUCKETS_S } from './metrics';
import { serviceVersion } from './sdk';

describe('Issue 25 telemetry: what spans and histograms say about runs', () => {
  it('Issue 25 telemetry: a log message\'s span names its message id, its run and the agent its events name', () => {
    expect(eventSpanAttributes([
      { type: 'RunCreated', data: { agent_name: 'INTAKE_AGENT' }, metadata: { run_id: 'r-1', event_id: 'e-1' } },
      { type: 'RunStarted', data: {}, metadata: { run_id: 'r-1', event_id: 'e-2' } },
    ])).toEqual({ 'messaging.message.id': 'e-1', 'rl.run_id': 'r-1', 'rl.agent': 'INTAKE_AGENT' });
    expect(eventSpanAttributes([{ type: 'AgentRunRequested', data: { spec: { agent_name: 'ORCHESTRATOR' } }, metadata: { event_id: 'e-3' } }])).toEqual({ 'messaging.message.id': 'e-3', 'rl.agent': 'ORCHESTRATOR' });
    expect(eventSpanAttributes([])).toEqual({});
  });

  it('Issue 25 telemetry: a failed or denied run outcome is typed by its stable error code; other commits are not failures', () => {
    expect(failedRunOutcome([{ type: 'RunFailed', data: { error: { error_code: 'DATA.ERASED' } } }])).toBe('DATA.ERASED');
    expect(failedRunOutcome([{ type: 'RunCreated' }, { type: 'AuthzDecided' }, { type: 'RunDenied', data: { error: { error_code: 'AGENT.UNKNOWN' } } }])).toBe('AGENT.UNKNOWN');
    expect(failedRunOutcome([{ type: 'RunCompleted', data: {} }])).toBeUndefined();
    expect(failedRunOutcome([{ type: 'RunCancelled', data: {} }])).toBeUndefined();
  });

  it('Issue 25 telemetry: duration buckets are seconds, increasing, from milliseconds to minutes; service.version is the release', () => {
    expect(DURATION_BUCKETS_S[0]).toBeLessThan(0.01);
    expect(DURATION_BUCKETS_S[DURATION_BUCKETS_S.length - 1]).toBeGreaterThanOrEqual(300);
    expect([...DURATION_BUCKETS_S].sort((a, b) => a - b)).toEqual(DURATION_BUCKETS_S);
    expect(serviceVersion()).toBe((JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }).version);
  });
});
