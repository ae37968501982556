import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { IsInt, IsOptional, Max, validateSync } from 'class-validator';
import * as contracts from '@runledger/contracts';
import { CallerRunEventsRequestDto, ClassifyIntentRequestDto, DbWriteRequestDto, DecisionContextDto, ToolInvocationDto } from '@runledger/contracts';
import { acceptedAs } from './dto-fast-path';

type Dto = new () => object;

/** What validateMessage answered before the fast path: class-transformer's instance if class-validator accepts it. */
function classValidatorAnswer(dto: Dto, plain: Record<string, unknown>): { ok: true; value: object } | { ok: false } {
  let instance: object;
  try {
    instance = plainToInstance(dto, plain, { enableImplicitConversion: false });
  } catch {
    return { ok: false }; // class-transformer trips on some keys (a `constructor` field): never accepted
  }
  const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
  return errors.length ? { ok: false } : { ok: true, value: instance };
}

const parse = (json: string) => JSON.parse(json) as Record<string, unknown>;
const ISO = '2026-01-01T00:00:00.000Z';
const governance = {
  parent_run_id: '0b7f7d1e-1c2a-4c3b-8d4e-5f6a7b8c9d0e', root_run_id: '1b7f7d1e-1c2a-4c3b-8d4e-5f6a7b8c9d0e', correlation_id: 'conv-1', agent_name: 'TASK_ASSISTANT', lane: 'TASKS',
  user_id: 'user-1', scope: { team: 'a' }, policy_versions: { lanes: 'v1', roles: 'v1' },
};
const history = [{ role: 'user', content: 'hello', timestamp: ISO }, { role: 'assistant', content: 'hi', timestamp: ISO }];
/** Messages of the request path (issue 22's hot choke points), valid as sent. */
const VALID: Array<[Dto, string]> = [
  [ToolInvocationDto, JSON.stringify({ call_id: 'call-1', tool_name: 'add_task', parameters: { description: 'milk', nested: { list: [1, 'a', null] } }, timeout_ms: 5000, governance })],
  [ToolInvocationDto, JSON.stringify({ governance: { ...governance, scope: undefined, user_id: undefined }, parameters: {}, tool_name: 'list_tasks', call_id: 'c' })],
  [DbWriteRequestDto, JSON.stringify({ write_id: 'w:add', collection: 'tasks', operation: 'append', document_id: 'd1', document: { task_id: 'd1', description: 'milk', status: 'pending', created_at: ISO, completed_at: null }, governance })],
  [DbWriteRequestDto, JSON.stringify({ write_id: 'w:upd', collection: 'tasks', operation: 'update', document_id: 'd1', patch: { description: 'eggs' }, governance })],
  [DecisionContextDto, JSON.stringify({ user_id: 'user-1', conversation_id: governance.root_run_id, request_id: 'r-1', message: 'add task milk' })],
  [DecisionContextDto, JSON.stringify({ user_id: 'user-1', conversation_id: governance.root_run_id, message: 'yes', message_history: history, pending_confirmation: { action_type: 'DELETE_TASK', task_id: 't1', task_description: 'milk', created_at: ISO, expires_at: ISO } })],
  [DecisionContextDto, JSON.stringify({ conversation_id: governance.root_run_id, message: 'hi', pending_confirmation: null })],
  [ClassifyIntentRequestDto, JSON.stringify({ message: 'add task milk', history, pending_confirmation_active: false })],
  // Run ids in upper case: read in lower case (IsRunId's transform), by the fast path too.
  [ToolInvocationDto, JSON.stringify({ call_id: 'call-2', tool_name: 'list_tasks', parameters: {}, governance: { ...governance, parent_run_id: governance.parent_run_id.toUpperCase(), root_run_id: governance.root_run_id.toUpperCase() } })],
  [DecisionContextDto, JSON.stringify({ user_id: 'user-1', conversation_id: governance.root_run_id.toUpperCase(), message: 'hi' })],
  [CallerRunEventsRequestDto, JSON.stringify({ run_id: governance.root_run_id.toUpperCase(), after: 12, wait_ms: 1000 })],
];

/** Answers the same as class-validator: what it accepts is accepted as the same instance (or left to it), what it refuses is refused. */
function expectSameAnswer(dto: Dto, json: string): boolean {
  const fast = acceptedAs(dto, parse(json));
  const slow = classValidatorAnswer(dto, parse(json));
  if (fast === undefined) return false;
  expect({ json, accepted: slow.ok }).toEqual({ json, accepted: true });
  if (slow.ok) {
    expect(fast).toStrictEqual(slow.value);
    expect(JSON.stringify(fast)).toBe(JSON.stringify(slow.value)); // same fields in the same order
  }
  return true;
}

/** A small deterministic generator (the same mutations on every run). */
function rng(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
}

const ODD_VALUES: unknown[] = [null, 1, -1, 0, 1.5, 1e300, '', 'x'.repeat(300), true, [], {}, [{}], 'not-a-uuid', '2026-13-45', 'tasks', 'append', 'DELETE_TASK', ISO, '0B7F7D1E-1C2A-4C3B-8D4E-5F6A7B8C9D0E'];
const ODD_KEYS = ['extra', '__proto__', 'constructor', 'toString', 'hasOwnProperty'];

/** One random change somewhere in the message: a field removed, replaced by an odd value, wrapped, or an odd key added. */
function mutate(value: Record<string, unknown>, next: () => number): void {
  const containers: Array<Record<string, unknown> | unknown[]> = [];
  (function walk(v: unknown) {
    if (typeof v !== 'object' || v === null) return;
    containers.push(v as Record<string, unknown>);
    for (const child of Object.values(v)) walk(child);
  })(value);
  const target = containers[Math.floor(next() * containers.length)] as Record<string, unknown>;
  const keys = Object.keys(target);
  const key = keys[Math.floor(next() * keys.length)];
  const pick = next();
  if (pick < 0.15 && key !== undefined) delete target[key];
  else if (pick < 0.3) Object.defineProperty(target, ODD_KEYS[Math.floor(next() * ODD_KEYS.length)], { value: next() < 0.5 ? { a: 1 } : 'v', enumerable: true, writable: true, configurable: true });
  else if (pick < 0.4 && key !== undefined) target[key] = [target[key]];
  else if (key !== undefined) target[key] = ODD_VALUES[Math.floor(next() * ODD_VALUES.length)];
}

describe('Issue 22 validateMessage fast path: the same answers as class-validator, from the DTO\'s own metadata', () => {
  it('Issue 22 the request path\'s valid messages are accepted by the fast path as the instance class-transformer builds (same classes, fields and order)', () => {
    for (const [dto, json] of VALID) expect({ dto: dto.name, json, fast: expectSameAnswer(dto, json) }).toEqual({ dto: dto.name, json, fast: true });
  });

  it('Issue 22 thousands of changed messages: the fast path never accepts what class-validator refuses, nor answers with another value', () => {
    const next = rng(22);
    let accepted = 0;
    let refused = 0;
    for (let i = 0; i < 3000; i++) {
      const [dto, json] = VALID[i % VALID.length];
      const changed = parse(json);
      mutate(changed, next);
      if (next() < 0.3) mutate(changed, next);
      const text = JSON.stringify(changed); // as JSON text: odd keys are own properties, as a decoded message's are
      if (expectSameAnswer(dto, text)) accepted++;
      else refused++;
    }
    // Both halves were exercised (some changes keep a message valid: a wrapped optional dropped, a value still in bounds).
    expect(accepted).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(1000);
  });

  it('Issue 22 every DTO of the contracts compiles or is left to class-validator, and answers an empty message as it does', () => {
    const dtos = Object.entries(contracts).filter(([name, v]) => name.endsWith('Dto') && typeof v === 'function') as Array<[string, Dto]>;
    expect(dtos.length).toBeGreaterThan(20);
    for (const [, dto] of dtos) expectSameAnswer(dto, '{}');
  });

  it('Issue 22 a DTO field with an initial value is left to class-validator, which checks the built instance (an absent optional field keeps its initial value)', () => {
    class PageDto {
      @IsOptional() @IsInt() @Max(10) limit = 50;
    }
    expect(classValidatorAnswer(PageDto, {})).toEqual({ ok: false });
    expect(acceptedAs(PageDto, {})).toBeUndefined();
    expectSameAnswer(PageDto, '{"limit": 5}');
  });
});
