import fs from 'node:fs';
import path from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { contractValidator } from '@runledger/contract-schemas';

/** The repository's proto-contracts directory: the one source of every message and event contract. */
export const PROTO_CONTRACTS_DIR = path.resolve(__dirname, '..', '..', '..', 'proto-contracts');

/** An event as the log holds it: `{ type, data, metadata }` (metadata as libs/event-log's envelope has it). */
export interface LoggedEvent {
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
}

/** How the log seals personal fields (libs/messaging's table and predicates, handed in: this harness imports no service code). */
export interface SealedFieldRules {
  /** Per event type, the dotted data paths that may be stored sealed. */
  fields: Readonly<Record<string, readonly string[]>>;
  isSealed(value: unknown): boolean;
  /** A sealed value whose key was destroyed reads as this marker. */
  isErased(value: unknown): boolean;
}

interface EventTypeMap {
  events: Record<string, string>;
  sealed_value: string;
  log_record: string;
  audit_event: string;
}

/**
 * Every event in the log checked against its contract in proto-contracts (issue 26 "every record as the contract
 * says"): the message against the log record schema, each event's data against the schema proto-contracts/event-types.json
 * maps its type to (no missing and no extra field: the schemas are closed), the audit types also as audit_event.schema.json
 * records, and each sealed field in the sealed shape. Data is checked as producers wrote it (sealed fields opened);
 * a field erased since (its key destroyed) is checked only for its sealed shape.
 */
export class LogContracts {
  private readonly map: EventTypeMap;
  private readonly byType = new Map<string, ValidateFunction>();
  private readonly auditTypes: ReadonlySet<string>;
  private readonly sealedValue: ValidateFunction;
  private readonly logRecord: ValidateFunction;
  private readonly auditEvent: ValidateFunction;

  constructor(private readonly sealed: SealedFieldRules) {
    const root = PROTO_CONTRACTS_DIR;
    this.map = JSON.parse(fs.readFileSync(path.join(root, 'event-types.json'), 'utf8')) as EventTypeMap;
    // The schemas themselves come from the one contract validator (libs/contract-schemas), which loads them all.
    const compile = (file: string) => contractValidator(file);
    for (const [type, file] of Object.entries(this.map.events)) this.byType.set(type, compile(file));
    this.sealedValue = compile(this.map.sealed_value);
    this.logRecord = compile(this.map.log_record);
    this.auditEvent = compile(this.map.audit_event);
    const auditSchema = JSON.parse(fs.readFileSync(path.join(root, this.map.audit_event), 'utf8')) as { properties: { type: { enum: string[] } } };
    this.auditTypes = new Set(auditSchema.properties.type.enum);
  }

  /** The event types that have a schema. */
  get types(): string[] {
    return [...this.byType.keys()];
  }

  /** Problems of one log message as stored (its JSON), against the log record schema (format 1 or 2). */
  checkRecord(record: unknown): string[] {
    return this.logRecord(record) ? [] : describe(this.logRecord.errors, []);
  }

  /**
   * Problems of one event: `stored` as the log holds it (sealed fields sealed), `opened` with them opened (what its
   * producer wrote, or the erased marker where the key is gone).
   */
  checkEvent(stored: LoggedEvent, opened: LoggedEvent): string[] {
    const validate = this.byType.get(stored.type);
    if (!validate) return ["has no schema in proto-contracts/event-types.json"];
    const problems: string[] = [];
    const erased: string[] = [];
    for (const field of this.sealed.fields[stored.type] ?? []) {
      const at = field.split('.');
      const value = valueAt(stored.data, at);
      if (!this.sealed.isSealed(value)) continue;
      if (!this.sealedValue(value)) problems.push(...describe(this.sealedValue.errors, []).map((p) => `sealed ${field}: ${p}`));
      if (this.sealed.isErased(valueAt(opened.data, at))) erased.push(`/${at.join('/')}`);
    }
    if (!validate(opened.data)) problems.push(...describe(validate.errors, erased).map((p) => `data${p}`));
    if (this.auditTypes.has(stored.type) && !this.auditEvent(auditRecordOf(opened))) {
      problems.push(...describe(this.auditEvent.errors, erased.map((p) => `/data${p}`)).map((p) => `as audit_event: ${p}`));
    }
    return problems;
  }
}

/** An event as audit_event.schema.json describes it: the envelope's ids beside its data. */
function auditRecordOf(e: LoggedEvent): Record<string, unknown> {
  const m = e.metadata;
  const ids = ['run_id', 'parent_run_id', 'root_run_id', 'case_id', 'correlation_id'].filter((k) => m[k] !== undefined);
  return {
    event_id: m.event_id, type: e.type, contract_version: m.contract_version, recorded_at: m.recorded_at, data: e.data,
    ...Object.fromEntries(ids.map((k) => [k, m[k]])),
  };
}

function valueAt(data: unknown, at: readonly string[]): unknown {
  let value = data;
  for (const key of at) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Ajv's errors as `<pointer>: <message>` lines, leaving out those inside an erased field; if/then wrappers only repeat. */
function describe(errors: ErrorObject[] | null | undefined, erased: readonly string[]): string[] {
  const within = (p: string) => erased.some((e) => p === e || p.startsWith(`${e}/`));
  const lines = (errors ?? [])
    .filter((e) => e.keyword !== 'if' && !within(e.instancePath))
    .map((e) => {
      const p = e.params as Record<string, unknown>;
      const detail = e.keyword === 'additionalProperties' ? `has extra field "${String(p.additionalProperty)}"`
        : e.keyword === 'required' ? `misses required field "${String(p.missingProperty)}"`
        : e.message ?? e.keyword;
      return `${e.instancePath || '/'}: ${detail}`;
    });
  return [...new Set(lines)];
}

