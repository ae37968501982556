import { checkAuditCoverage, type CoverageEvent } from '../index';

type Kind = 'agent' | 'tool_gateway' | 'db_write' | 'promotion' | 'export';
const created = (run_id: string, run_kind: Kind, parent_run_id?: string): CoverageEvent => ({ run_id, type: 'RunCreated', data: { run_kind, parent_run_id } });
const authz = (run_id: string, decision: 'allow' | 'deny'): CoverageEvent => ({ run_id, type: 'AuthzDecided', data: { decision } });
const ev = (run_id: string, type: string): CoverageEvent => ({ run_id, type, data: {} });

/** An INTERVIEW_AGENT run with one transcription call and one transcript write, fully audited (§7.1, §7.2). */
function interviewRun(): CoverageEvent[] {
  return [
    created('agent-1', 'agent'), authz('agent-1', 'allow'), ev('agent-1', 'RunStarted'),
    created('tool-1', 'tool_gateway', 'agent-1'), authz('tool-1', 'allow'), ev('tool-1', 'RunStarted'), ev('tool-1', 'ToolCallAudited'), ev('tool-1', 'RunCompleted'),
    created('write-1', 'db_write', 'agent-1'), authz('write-1', 'allow'), ev('write-1', 'RunStarted'), ev('write-1', 'DbWriteAudited'), ev('write-1', 'RunCompleted'),
    ev('agent-1', 'RunCompleted'),
  ];
}
const without = (events: CoverageEvent[], run_id: string, type: string) => events.filter((e) => !(e.run_id === run_id && e.type === type));

describe('§6 required audit coverage', () => {
  test('§6 coverage: a fully audited agent run with tool and write child runs passes', () => {
    expect(checkAuditCoverage(interviewRun())).toEqual({ ok: true, runs_checked: 3, violations: [], in_progress: [] });
  });

  test('§6 coverage: a tool call without its ToolCallAudited event is a defect', () => {
    expect(checkAuditCoverage(without(interviewRun(), 'tool-1', 'ToolCallAudited')).violations).toEqual([{ run_id: 'tool-1', missing: 'ToolCallAudited' }]);
  });

  test('§6 coverage: a write without its DbWriteAudited event is a defect', () => {
    expect(checkAuditCoverage(without(interviewRun(), 'write-1', 'DbWriteAudited')).violations).toEqual([{ run_id: 'write-1', missing: 'DbWriteAudited' }]);
  });

  test('§1 authz_decision: a run without an AuthzDecided event, or with it late, is a defect', () => {
    expect(checkAuditCoverage(without(interviewRun(), 'agent-1', 'AuthzDecided')).violations).toEqual([{ run_id: 'agent-1', missing: 'AuthzDecided' }]);
    const late = [created('r', 'agent'), ev('r', 'RunStarted'), authz('r', 'allow'), ev('r', 'RunCompleted')];
    expect(checkAuditCoverage(late).violations).toEqual([{ run_id: 'r', missing: 'AuthzDecided as the first event after RunCreated' }]);
  });

  test('§1 terminal outcome: a run needs exactly one terminal event', () => {
    const none = without(interviewRun(), 'agent-1', 'RunCompleted');
    expect(checkAuditCoverage(none).violations).toEqual([{ run_id: 'agent-1', missing: 'terminal event' }]);
    const two = [...interviewRun(), ev('agent-1', 'RunFailed')];
    expect(checkAuditCoverage(two).violations).toEqual([{ run_id: 'agent-1', missing: 'exactly one terminal event (found 2: RunCompleted, RunFailed)' }]);
  });

  test('§1 denied runs: a deny decision ends in RunDenied and needs no action audit; RunDenied needs a deny', () => {
    const denied = [created('w', 'db_write', 'a'), authz('w', 'deny'), ev('w', 'RunDenied')];
    expect(checkAuditCoverage(denied)).toMatchObject({ ok: true, runs_checked: 1 });
    const deniedButCompleted = [created('w', 'db_write', 'a'), authz('w', 'deny'), ev('w', 'RunCompleted')];
    expect(checkAuditCoverage(deniedButCompleted).violations).toEqual([{ run_id: 'w', missing: 'RunDenied after a deny decision' }]);
    const allowedButDenied = [created('t', 'tool_gateway', 'a'), authz('t', 'allow'), ev('t', 'ToolCallAudited'), ev('t', 'RunDenied')];
    expect(checkAuditCoverage(allowedButDenied).violations).toEqual([{ run_id: 't', missing: 'a deny decision before RunDenied' }]);
  });

  test('§7.4 promotion: an allowed promotion run needs PromotionAudited', () => {
    const promotion = [created('p', 'promotion'), authz('p', 'allow'), ev('p', 'RunStarted'), ev('p', 'RunCompleted')];
    expect(checkAuditCoverage(promotion).violations).toEqual([{ run_id: 'p', missing: 'PromotionAudited' }]);
    expect(checkAuditCoverage([...promotion.slice(0, 3), ev('p', 'PromotionAudited'), promotion[3]]).ok).toBe(true);
  });

  test('§4.6 export audit: an allowed export run needs authorize, assemble and finalize events', () => {
    const exportRun = [created('x', 'export', 'a'), authz('x', 'allow'), ev('x', 'ExportAuthorized'), ev('x', 'RunFailed')];
    expect(checkAuditCoverage(exportRun).violations).toEqual([
      { run_id: 'x', missing: 'ExportAssembled' },
      { run_id: 'x', missing: 'ExportFinalized' },
    ]);
  });

  test('§6 coverage: events of a run that was never created, and malformed RunCreated/AuthzDecided, are defects', () => {
    const events = [
      ev('ghost', 'ToolCallAudited'),
      { run_id: 'odd', type: 'RunCreated', data: { run_kind: 'shell' } },
      { run_id: 'odd', type: 'AuthzDecided', data: { decision: 'maybe' } },
      ev('odd', 'RunCompleted'),
    ];
    expect(checkAuditCoverage(events).violations).toEqual([
      { run_id: 'ghost', missing: 'RunCreated' },
      { run_id: 'odd', missing: 'RunCreated with a valid run_kind' },
      { run_id: 'odd', missing: 'AuthzDecided with decision allow or deny' },
    ]);
  });

  test('§6 coverage: with allowInProgress, unfinished runs are listed apart instead of failing the check', () => {
    const running = interviewRun().slice(0, 7); // agent and tool runs still open, tool already audited
    const strict = checkAuditCoverage(running);
    expect(strict.violations).toEqual([
      { run_id: 'agent-1', missing: 'terminal event' },
      { run_id: 'tool-1', missing: 'terminal event' },
    ]);
    const lenient = checkAuditCoverage([...running, created('w2', 'db_write', 'agent-1'), authz('w2', 'allow')], { allowInProgress: true });
    expect(lenient).toEqual({ ok: true, runs_checked: 3, violations: [], in_progress: ['agent-1', 'tool-1', 'w2'] });
    // In progress does not excuse what is already wrong.
    expect(checkAuditCoverage([created('z', 'agent'), ev('z', 'RunStarted')], { allowInProgress: true }).violations).toEqual([
      { run_id: 'z', missing: 'AuthzDecided' },
    ]);
  });
});
