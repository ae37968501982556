import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { validateMessage } from '@runledger/messaging';
import { acceptedAs } from '../../../messaging/src/dto-fast-path';
import { AppError } from '@runledger/kernel';
import { AgentRunRequestDto } from './agent-run.dto';
import { CallerArtifactGetRequestDto, CallerRunEventsRequestDto, CallerRunQueryDto } from './callers.dto';
import { RunControlRequestDto, RunsListRequestDto } from './operations.dto';
import { AuditQueryDto, auditSelector, auditSelectorProblem, RunQueryDto, ToolInvocationDto } from './runtime.dto';
import { SessionGetRequestDto } from './session.dto';
import { DecisionContextDto } from './task-assistant.dto';

const RUN = '7f0e7c4e-2a7b-4f43-9f7e-0c6f8d7f5a11';
const UPPER = RUN.toUpperCase();
const MIXED = '7F0e7C4e-2A7b-4F43-9f7E-0C6f8D7f5A11';

function details(dto: new () => object, raw: unknown): string[] {
  try {
    validateMessage(dto, raw);
  } catch (err) {
    if (err instanceof AppError) return [...(err.details ?? [])];
    throw err;
  }
  return [];
}

describe('Probe finding: a run id is read in lower case at the boundary (UUIDs are case-insensitive, RFC 9562; run ids are recorded lower case)', () => {
  it('RFC 9562 run ids: run_id, parent_run_id, root_run_id and conversation_id in upper or mixed case are read as the lower-case id, on every DTO that takes one', () => {
    for (const sent of [UPPER, MIXED]) {
      expect(validateMessage(CallerRunQueryDto, { run_id: sent }).run_id).toBe(RUN);
      expect(validateMessage(RunQueryDto, { run_id: sent }).run_id).toBe(RUN);
      expect(validateMessage(SessionGetRequestDto, { run_id: sent }).run_id).toBe(RUN);
      expect(validateMessage(CallerRunEventsRequestDto, { run_id: sent, after: 3 })).toMatchObject({ run_id: RUN, after: 3 });
      expect(validateMessage(CallerArtifactGetRequestDto, { run_id: sent, artifact_id: 'a-1' }).run_id).toBe(RUN);
      expect(validateMessage(AuditQueryDto, { conversation_id: sent })).toEqual(Object.assign(new AuditQueryDto(), { conversation_id: RUN }));
      expect(validateMessage(RunsListRequestDto, { root_run_id: sent }).root_run_id).toBe(RUN);
      expect(validateMessage(DecisionContextDto, { user_id: 'u', message: 'hi', conversation_id: sent }).conversation_id).toBe(RUN);
      const start = validateMessage(AgentRunRequestDto, { agent_name: 'INTAKE_AGENT', case_id: 'c', run_id: sent, parent_run_id: sent, root_run_id: sent, input_artifacts: [], parameters: {} });
      expect([start.run_id, start.parent_run_id, start.root_run_id]).toEqual([RUN, RUN, RUN]);
      const governance = { parent_run_id: sent, root_run_id: sent, agent_name: 'TASK_ASSISTANT', lane: 'TASKS', policy_versions: { lanes: 'v1', roles: 'v1' } };
      expect(validateMessage(ToolInvocationDto, { call_id: 'c', tool_name: 't', parameters: {}, governance }).governance).toMatchObject({ parent_run_id: RUN, root_run_id: RUN });
      const control = validateMessage(RunControlRequestDto, { command_id: 'k', type: 'cancel_request', run_id: sent, child_run_ids: [sent, RUN] });
      expect([control.run_id, control.child_run_ids]).toEqual([RUN, [RUN, RUN]]);
    }
  });

  it('RFC 9562 run ids: a lower-case id is read exactly as sent, and what is not a UUID is refused as before, not changed', () => {
    expect(validateMessage(CallerRunQueryDto, { run_id: RUN }).run_id).toBe(RUN);
    const query = { run_id: UPPER };
    expect(validateMessage(CallerRunQueryDto, query).run_id).toBe(RUN);
    expect(query.run_id).toBe(UPPER); // the message itself is never changed: the lower-case id is the instance's
    expect(details(CallerRunQueryDto, { run_id: 'NOT-A-UUID' })).toEqual(['run_id must be a UUID']);
    expect(details(CallerRunQueryDto, { run_id: 7 })).toEqual(['run_id must be a UUID']);
    expect(details(CallerRunQueryDto, {})).toEqual(['run_id is required']);
    expect(details(RunControlRequestDto, { command_id: 'k', type: 'cancel_request', run_id: RUN, child_run_ids: ['X', UPPER] })).toEqual(['each value in child_run_ids must be a UUID']);
  });

  it('RFC 9562 run ids: validateMessage\'s fast path answers as class-transformer and class-validator do (the same lower-case instance)', () => {
    for (const [dto, plain] of [
      [CallerRunQueryDto, { run_id: UPPER }],
      [AgentRunRequestDto, { agent_name: 'INTAKE_AGENT', case_id: 'c', parent_run_id: MIXED, input_artifacts: [], parameters: {} }],
      [DecisionContextDto, { user_id: 'u', message: 'hi', conversation_id: UPPER }],
    ] as Array<[new () => object, Record<string, unknown>]>) {
      expect(acceptedAs(dto, plain)).not.toBeUndefined(); // the fast path takes the message: the comparison below is of it
      const slow = plainToInstance(dto, plain, { enableImplicitConversion: false });
      expect(validateSync(slow, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true })).toEqual([]);
      expect(validateMessage(dto, plain)).toStrictEqual(slow);
    }
  });
});

describe('Probe finding: a log position is a safe integer (runs.events after, artifacts.get offset)', () => {
  it('Number.MAX_SAFE_INTEGER bounds after and offset: 1e300 is REQUEST.INVALID naming the bound, 2^53 - 1 is taken', () => {
    expect(details(CallerRunEventsRequestDto, { run_id: RUN, after: 1e300 })).toEqual([`after must not be greater than ${Number.MAX_SAFE_INTEGER}`]);
    expect(details(CallerRunEventsRequestDto, { run_id: RUN, after: Number.MAX_SAFE_INTEGER + 1 })).toEqual([`after must not be greater than ${Number.MAX_SAFE_INTEGER}`]);
    expect(validateMessage(CallerRunEventsRequestDto, { run_id: RUN, after: Number.MAX_SAFE_INTEGER }).after).toBe(Number.MAX_SAFE_INTEGER);
    expect(details(CallerArtifactGetRequestDto, { run_id: RUN, artifact_id: 'a-1', offset: 1e300 })).toEqual([`offset must not be greater than ${Number.MAX_SAFE_INTEGER}`]);
  });
});

describe('Probe finding: rl.audit.query reads by exactly one selector (README: {conversation_id | run_id | root_run_id})', () => {
  it('README rl.audit.query: two or three selectors, or none, are refused naming the rule; one is taken', () => {
    expect(auditSelectorProblem({ run_id: RUN, conversation_id: RUN })).toBe('exactly one of conversation_id, run_id or root_run_id is required (conversation_id and run_id were given)');
    expect(auditSelectorProblem({ run_id: RUN, conversation_id: RUN, root_run_id: RUN })).toBe('exactly one of conversation_id, run_id or root_run_id is required (conversation_id, run_id and root_run_id were given)');
    expect(auditSelectorProblem({})).toBe('exactly one of conversation_id, run_id or root_run_id is required (none was given)');
    for (const one of [{ run_id: RUN }, { conversation_id: RUN }, { root_run_id: RUN }]) expect(auditSelectorProblem(validateMessage(AuditQueryDto, { ...one, limit: 5 }))).toBeNull();
  });

  it('README rl.audit.query: a selector sent as null is not given (null with no other is refused, null beside one reads by that one)', () => {
    expect(auditSelector(validateMessage(AuditQueryDto, { conversation_id: null }))).toEqual({ problem: 'exactly one of conversation_id, run_id or root_run_id is required (none was given)' });
    expect(auditSelector(validateMessage(AuditQueryDto, { conversation_id: null, run_id: null, root_run_id: null }))).toEqual({ problem: 'exactly one of conversation_id, run_id or root_run_id is required (none was given)' });
    expect(auditSelector(validateMessage(AuditQueryDto, { conversation_id: null, root_run_id: UPPER }))).toEqual({ key: 'root_run_id', value: RUN });
    expect(auditSelector({ run_id: RUN })).toEqual({ key: 'run_id', value: RUN });
  });
});
