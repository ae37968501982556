import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsISO8601, IsNotEmpty, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { DURABLE_NAME, DURABLE_NAME_FORM } from './forms';
import { IsRunId } from './ids';
import type { DeadLetterRetryRequest, RunCancelRequest, RunControlRequest, RunForkRequest, RunsListRequest, RunsResolveRequest } from '../generated';

export const RUN_STATUSES = ['created', 'authorized', 'running', 'completed', 'failed', 'denied', 'cancelled'] as const;

export class RunsListRequestDto implements RunsListRequest {
  @IsOptional() @IsIn(RUN_STATUSES) status?: RunsListRequest['status'];
  @IsOptional() @IsString() @MaxLength(128) agent_name?: string;
  @IsOptional() @IsString() @MaxLength(64) run_kind?: string;
  @IsOptional() @IsString() @MaxLength(128) case_id?: string;
  @IsOptional() @IsString() @MaxLength(256) user_id?: string;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(200) text?: string;
  @IsOptional() @IsRunId() root_run_id?: string;
  @IsOptional() @IsBoolean() failed_only?: boolean;
  @IsOptional() @IsBoolean() include_children?: boolean;
  @IsOptional() @IsBoolean() by_agent?: boolean;
  @IsOptional() @IsISO8601({ strict: true }) since?: string;
  @IsOptional() @IsISO8601({ strict: true }) until?: string;
  @IsOptional() @IsInt() @Min(1) @Max(500) limit?: number;
  @IsOptional() @IsString() @MaxLength(512) cursor?: string;
}

export class RunCancelRequestDto implements RunCancelRequest {
  @IsRunId() run_id!: string;
  @IsOptional() @IsString() @MaxLength(500) reason?: string;
  @IsOptional() @IsString() @MaxLength(256) requested_by?: string;
}

export class ForkPolicyVersionsDto {
  @IsString() @IsNotEmpty() @MaxLength(64) lanes!: string;
  @IsString() @IsNotEmpty() @MaxLength(64) roles!: string;
}

/** rl.runs.fork (issue 25): the source run, its checkpoint (a completed step id), the policy to pin, the idempotency key. */
export class RunForkRequestDto implements RunForkRequest {
  @IsRunId() run_id!: string;
  @IsString() @Matches(/^[A-Za-z0-9_.:#-]{1,128}$/, { message: 'from_step must be a step id (letters, digits, _ . : # -)' }) from_step!: string;
  @IsOptional() @ValidateNested() @Type(() => ForkPolicyVersionsDto) policy_versions?: ForkPolicyVersionsDto;
  @IsString() @Matches(/^[A-Za-z0-9_.:-]{1,128}$/, { message: 'request_id must be 1-128 of letters, digits, _ . : -' }) request_id!: string;
  @IsOptional() @IsString() @MaxLength(256) requested_by?: string;
  @IsOptional() @IsBoolean() wait?: boolean;
}

export class RunsResolveRequestDto implements RunsResolveRequest {
  @IsOptional() @IsInt() @Min(60_000) @Max(604_800_000) idle_ms?: number;
  @IsOptional() @IsString() @MaxLength(256) requested_by?: string;
}

/** rl.runs.control.<owner> (issue 23): decision asks a run's owner to cancel or resolve one of its runs. */
export class RunControlRequestDto implements RunControlRequest {
  @Matches(/^[A-Za-z0-9_.:@-]{1,128}$/) command_id!: string;
  @IsIn(['cancel_request', 'resolve_abandoned']) type!: RunControlRequest['type'];
  @IsRunId() run_id!: string;
  @IsOptional() @IsString() @MaxLength(500) reason?: string;
  @IsOptional() @IsString() @MaxLength(256) requested_by?: string;
  @IsOptional() @IsInt() @Min(0) @Max(604_800_000) idle_ms?: number;
  @IsOptional() @IsInt() @Min(0) @Max(604_800_000) grace_ms?: number;
  @IsOptional() @IsArray() @ArrayMaxSize(1000) @IsRunId({ each: true }) child_run_ids?: string[];
}

export class DeadLettersListRequestDto {
  @IsOptional() @IsString() @Matches(DURABLE_NAME, DURABLE_NAME_FORM) durable?: string;
}

export class DeadLetterRetryRequestDto implements DeadLetterRetryRequest {
  @Matches(/^[A-Za-z0-9_-]+:[0-9]+$/) id!: string;
  @IsOptional() @IsString() @MaxLength(256) requested_by?: string;
}
