import { Type } from 'class-transformer';
import { IsBoolean, IsDefined, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { IsDocumentId, IsRunId } from './ids';
import { JSON_FIELD_MAX_BYTES, MaxJsonBytes, OWNER_ID_MAX_LENGTH } from './bounds';
import type { DbReadRequest, DbWriteRequest, GovernanceScope, PolicyVersions, ToolInvocation } from '../generated';
import { AGENT_NAME_FORM, COLLECTION, COLLECTION_FORM, LANE_FORM, UPPER_NAME } from './forms';


export class PolicyVersionsDto implements PolicyVersions {
  @IsString() @IsNotEmpty() @MaxLength(128) lanes!: string;
  @IsString() @IsNotEmpty() @MaxLength(128) roles!: string;
}

export class GovernanceScopeDto implements GovernanceScope {
  @IsRunId() parent_run_id!: string;
  @IsRunId() root_run_id!: string;
  @IsOptional() @IsString() @MaxLength(128) correlation_id?: string;
  @Matches(UPPER_NAME, AGENT_NAME_FORM) agent_name!: string;
  @Matches(UPPER_NAME, LANE_FORM) lane!: string;
  @IsOptional() @IsString() @MaxLength(128) case_id?: string;
  // A door's user (callerScopedUser) is the caller's name and its user_id (≤ 256) together.
  @IsOptional() @IsString() @MaxLength(OWNER_ID_MAX_LENGTH.user) user_id?: string;
  @IsOptional() @IsObject() @MaxJsonBytes(JSON_FIELD_MAX_BYTES.scope) scope?: Record<string, string>;
  @IsDefined() @ValidateNested() @Type(() => PolicyVersionsDto) policy_versions!: PolicyVersionsDto;
}

export class ToolInvocationDto implements ToolInvocation {
  @IsString() @IsNotEmpty() @MaxLength(128) call_id!: string;
  @IsString() @IsNotEmpty() @MaxLength(128) tool_name!: string;
  @IsObject() @MaxJsonBytes(JSON_FIELD_MAX_BYTES.parameters) parameters!: Record<string, unknown>;
  @IsOptional() @IsInt() @Min(1) @Max(600_000) timeout_ms?: number;
  @IsDefined() @ValidateNested() @Type(() => GovernanceScopeDto) governance!: GovernanceScopeDto;
}

export class DbWriteRequestDto implements DbWriteRequest {
  @IsString() @IsNotEmpty() @MaxLength(128) write_id!: string;
  @Matches(COLLECTION, COLLECTION_FORM) collection!: string;
  @IsIn(['append', 'upsert', 'update', 'delete']) operation!: 'append' | 'upsert' | 'update' | 'delete';
  @IsOptional() @IsString() @MaxLength(256) @IsDocumentId() document_id?: string;
  @IsOptional() @IsObject() @MaxJsonBytes(JSON_FIELD_MAX_BYTES.document) document?: Record<string, unknown>;
  @IsOptional() @IsObject() @MaxJsonBytes(JSON_FIELD_MAX_BYTES.document) patch?: Record<string, unknown>;
  @IsDefined() @ValidateNested() @Type(() => GovernanceScopeDto) governance!: GovernanceScopeDto;
}

export class DbReadRequestDto implements DbReadRequest {
  @Matches(COLLECTION, COLLECTION_FORM) collection!: string;
  @IsOptional() @IsString() @MaxLength(256) @IsDocumentId() document_id?: string;
  @IsOptional() @IsObject() @MaxJsonBytes(JSON_FIELD_MAX_BYTES.filter) filter?: Record<string, unknown>;
  @IsOptional() @IsInt() @Min(1) @Max(1000) limit?: number;
  @IsDefined() @ValidateNested() @Type(() => GovernanceScopeDto) governance!: GovernanceScopeDto;
}

export class RunQueryDto {
  @IsRunId() run_id!: string;
  @IsOptional() @IsBoolean() include_events?: boolean;
}

export class AuditQueryDto {
  @IsOptional() @IsRunId() conversation_id?: string;
  @IsOptional() @IsRunId() run_id?: string;
  @IsOptional() @IsRunId() root_run_id?: string;
  // With conversation_id only: whose records (a conversation id may be two users'; "" a request refused without a user).
  @IsOptional() @IsString() @MaxLength(OWNER_ID_MAX_LENGTH.user) user_id?: string;
  @IsOptional() @IsInt() @Min(1) @Max(1000) limit?: number;
}

/** What rl.audit.query reads by: exactly one is given (a conversation's decision records, a run's or a tree's events). */
export const AUDIT_QUERY_SELECTORS = ['conversation_id', 'run_id', 'root_run_id'] as const;

/**
 * The one selector an rl.audit.query reads by, or why it names none or more than one (its answer would leave all but
 * one unread, unseen), in the words of a refusal's details. A selector that is null or undefined is not given (IsOptional
 * lets null through): `{conversation_id: null}` names none. The query dispatches on the key found here, never on a
 * second test of its own.
 */
export function auditSelector(q: Pick<AuditQueryDto, AuditSelectorKey> | { [K in AuditSelectorKey]?: string | null }): { key: AuditSelectorKey; value: string; problem?: undefined } | { key?: undefined; problem: string } {
  const given = AUDIT_QUERY_SELECTORS.filter((s) => q[s] !== undefined && q[s] !== null);
  if (given.length === 1) return { key: given[0], value: q[given[0]] as string };
  const which = given.length ? `${given.slice(0, -1).join(', ')} and ${given[given.length - 1]} were given` : 'none was given';
  return { problem: `exactly one of conversation_id, run_id or root_run_id is required (${which})` };
}

/** A selector of rl.audit.query. */
export type AuditSelectorKey = (typeof AUDIT_QUERY_SELECTORS)[number];

/** Why an rl.audit.query names no selector or more than one (auditSelector's problem); null for exactly one. */
export function auditSelectorProblem(q: Parameters<typeof auditSelector>[0]): string | null {
  return auditSelector(q).problem ?? null;
}
