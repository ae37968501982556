import path from 'node:path';
import { legacyRunSubject, parseRunSubject, RUN_CONTROLLER, RUN_CREATORS, RUN_OWNERS, runOwnership, runSubject, type OwnedEvent } from './run-ownership';

let seq = 0;
const ev = (subject: string, type: string, producer: string, data: unknown = {}, at = ++seq): OwnedEvent => ({ subject, type, data, seq: at, index: 0, metadata: { producer } });
const created = (subject: string, producer: string, run_kind: string) => ev(subject, 'RunCreated', producer, { run_kind });

describe('Issue 23: runs appendable only by their owner (run-ownership)', () => {
  it('a run created by the owner of its kind, on its own subject, is served with its events', () => {
    const s = runSubject('tool-gateway', 'r1');
    const run = runOwnership([created(s, 'tool-gateway', 'tool_gateway'), ev(s, 'RunCompleted', 'tool-gateway')]);
    expect(run).toMatchObject({ owner: 'tool-gateway', forgeries: [] });
    expect(run.events).toHaveLength(2);
  });

  it('fabricated run: a TASK_ASSISTANT (agent) run created by tool-gateway on its own subject is forged, not served', () => {
    const s = runSubject('tool-gateway', 'victim');
    const run = runOwnership([created(s, 'tool-gateway', 'agent'), ev(s, 'RunCompleted', 'tool-gateway')]);
    expect(run.owner).toBeUndefined();
    expect(run.events).toEqual([]);
    expect(run.forgeries[0].reason).toMatch(/only decision creates agent runs/);
  });

  it('producer mismatch: an event whose producer is not the subject\'s owner makes the run forged', () => {
    const s = runSubject('decision', 'r2');
    const run = runOwnership([created(s, 'decision', 'agent'), ev(s, 'RunCompleted', 'export')]);
    expect(run.events).toEqual([]);
    expect(run.forgeries).toEqual([expect.objectContaining({ subject: s, reason: 'RunCompleted produced by "export" on decision\'s run' })]);
  });

  it('recorded history: decision\'s cancel request or resolution on another owner\'s run (written before the bus refused it) still reads, nothing else', () => {
    const s = runSubject('db-write', 'w1');
    const base = [created(s, 'db-write', 'db_write'), ev(s, 'RunCancelRequested', RUN_CONTROLLER)];
    expect(runOwnership(base).owner).toBe('db-write');
    const at = ++seq;
    const resolution = [ev(s, 'DbWriteAudited', RUN_CONTROLLER, { resolved_by: 'decision/run-resolver' }, at), ev(s, 'RunResolved', RUN_CONTROLLER, {}, at), ev(s, 'RunFailed', RUN_CONTROLLER, {}, at)];
    expect(runOwnership([...base, ...resolution]).owner).toBe('db-write');
    expect(runOwnership([...base, ev(s, 'RunFailed', RUN_CONTROLLER)]).forgeries[0].reason).toMatch(/RunFailed produced by "decision"/);
  });

  it('a resolution commit cannot carry a choke point\'s facts: an unmarked audit or an effect event by decision makes the run forged', () => {
    const s = runSubject('tool-gateway', 't9');
    const base = [created(s, 'tool-gateway', 'tool_gateway')];
    const at = ++seq;
    const unmarked = [ev(s, 'ToolCallAudited', RUN_CONTROLLER, { status: 'ok' }, at), ev(s, 'RunResolved', RUN_CONTROLLER, {}, at), ev(s, 'RunCompleted', RUN_CONTROLLER, {}, at)];
    expect(runOwnership([...base, ...unmarked]).forgeries[0].reason).toMatch(/ToolCallAudited produced by "decision"/);
    const at2 = ++seq;
    const effect = [ev(s, 'ToolCallCompleted', RUN_CONTROLLER, {}, at2), ev(s, 'RunResolved', RUN_CONTROLLER, {}, at2), ev(s, 'RunCompleted', RUN_CONTROLLER, {}, at2)];
    expect(runOwnership([...base, ...effect]).forgeries[0].reason).toMatch(/ToolCallCompleted produced by "decision"/);
  });

  it('cross-run append: events under a run id on another service\'s subject are not part of the run and are named forged', () => {
    const own = runSubject('decision', 'r3');
    const intruder = runSubject('tool-gateway', 'r3');
    const run = runOwnership([created(own, 'decision', 'agent'), ev(intruder, 'RunCompleted', 'tool-gateway'), ev(own, 'RunStarted', 'decision')]);
    expect(run.owner).toBe('decision');
    expect(run.events.map((e) => e.type)).toEqual(['RunCreated', 'RunStarted']);
    expect(run.forgeries).toEqual([expect.objectContaining({ subject: intruder, reason: expect.stringMatching(/not RunCreated/) })]);
  });

  it('a squatter writing first under a run id neither hides nor takes over the run its owner creates after', () => {
    const squat = runSubject('export', 'r4');
    const own = runSubject('decision', 'r4');
    const run = runOwnership([created(squat, 'export', 'agent'), created(own, 'decision', 'agent')]);
    expect(run.owner).toBe('decision');
    expect(run.forgeries.map((f) => f.subject)).toEqual([squat]);
  });

  it('a run begun on the legacy subject (release c732176) continues on its kind\'s owner\'s subject', () => {
    const legacy = legacyRunSubject('old');
    const own = runSubject('tool-gateway', 'old');
    const run = runOwnership([created(legacy, 'tool-gateway', 'tool_gateway'), ev(legacy, 'RunStarted', 'tool-gateway'), ev(own, 'RunCompleted', 'tool-gateway')]);
    expect(run).toMatchObject({ owner: 'tool-gateway', forgeries: [] });
    expect(run.events.map((e) => e.subject)).toEqual([legacy, legacy, own]);
    // Its legacy producers were self-declared (any appender could write there): read as they were; its owner's subject is checked.
    expect(runOwnership([created(legacy, 'recorder', 'tool_gateway'), ev(legacy, 'RunStarted', 'decision')]).owner).toBe('tool-gateway');
    expect(runOwnership([created(legacy, 'recorder', 'tool_gateway'), ev(own, 'RunFailed', 'decision')]).forgeries[0].reason).toMatch(/RunFailed produced by "decision"/);
  });

  it('parses both run subject formats', () => {
    expect(parseRunSubject('rl.log.run.abc')).toEqual({ runId: 'abc', owner: null });
    expect(parseRunSubject('rl.log.run.db-write.abc')).toEqual({ runId: 'abc', owner: 'db-write' });
    expect(parseRunSubject('rl.log.inbox.decision')).toBeNull();
  });

  it('the owners of the permissions table are the owners of this table', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { loadTable } = require(path.join(__dirname, '../../../../scripts/lib/permissions.js')) as { loadTable(): { requests: Record<string, unknown>; log: { subjects: Record<string, { owners?: string[]; control?: string[] }> } } };
    const rule = loadTable().log.subjects['rl.log.run.{owner}.{run_id}'];
    expect([...(rule.owners ?? [])].sort()).toEqual([...RUN_OWNERS].sort());
    // Issue 23: nobody but the owner appends under its name; decision asks owners on rl.runs.control.{owner}.
    expect(rule.control).toBeUndefined();
    expect(loadTable().requests['rl.runs.control.{owner}']).toEqual({ serve: 'self', owners: RUN_OWNERS.filter((o) => o !== RUN_CONTROLLER), call: [RUN_CONTROLLER] });
    expect(new Set(Object.values(RUN_CREATORS))).toEqual(new Set(RUN_OWNERS));
  });
});
