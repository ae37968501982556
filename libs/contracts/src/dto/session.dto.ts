import { IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { IsRunId } from './ids';
import type { SessionGetRequest, SessionStartRequest } from '../generated';
import { CASE_ID, CASE_ID_FORM, PROFILE_ID, PROFILE_ID_FORM, USER_ID, USER_ID_FORM } from './forms';

// DTOs implement the generated contract types (proto-contracts/schemas/sessions/): a schema change the DTO
// does not follow fails to compile. Patterns repeat the schemas' so both reject the same input.

/** rl.caller.<identity>.sessions.start */
export class SessionStartRequestDto implements SessionStartRequest {
  @Matches(PROFILE_ID, PROFILE_ID_FORM) @MaxLength(64) agent!: string;
  @IsOptional() @IsString() @Length(1, 64) version?: string;
  @IsString() @Length(1, 200_000) prompt!: string;
  @IsOptional() @IsString() @Length(1, 128) request_id?: string;
  @IsOptional() @IsRunId() run_id?: string;
  @IsOptional() @IsRunId() parent_run_id?: string;
  @IsOptional() @IsString() @Matches(CASE_ID, CASE_ID_FORM) @Length(1, 128) case_id?: string;
  @IsOptional() @IsString() @Length(1, 256) @Matches(USER_ID, USER_ID_FORM) user_id?: string;
  @IsOptional() @IsString() @Length(1, 128) correlation_id?: string;
}

/** rl.caller.<identity>.sessions.get */
export class SessionGetRequestDto implements SessionGetRequest {
  @IsRunId() run_id!: string;
}
