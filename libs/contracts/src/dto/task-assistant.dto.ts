import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsISO8601, IsNotEmpty, IsOptional, IsString, Length, Matches, MaxLength, ValidateNested, ArrayMaxSize, Equals } from 'class-validator';
import { IsRunId } from './ids';
import { DESCRIPTION, DESCRIPTION_FORM, USER_ID, USER_ID_FORM } from './forms';
import type { ClassifyIntentRequest, DecisionContext, HistoryMessage, PendingConfirmation } from '../generated';

// DTOs implement the generated contract types: a schema change that the DTO does not follow fails to compile.

export class HistoryMessageDto implements HistoryMessage {
  @IsIn(['user', 'assistant']) role!: 'user' | 'assistant';
  @IsString() @MaxLength(8000) content!: string;
  @IsISO8601() timestamp!: string;
}

export class PendingConfirmationDto implements PendingConfirmation {
  @Equals('DELETE_TASK') action_type!: 'DELETE_TASK';
  // Not @IsUUID: contract 000's validation table answers a non-UUID task_id with the task-not-found
  // message (the decision engine does that), not with a wire-level rejection. Bounded, like every field.
  @IsString() @MaxLength(128) task_id!: string;
  // Contract 000 "task description 1-1000 chars": one that shows nothing is as empty as "" (hasVisibleText's rule).
  @IsString() @Length(1, 1000) @Matches(DESCRIPTION, DESCRIPTION_FORM) task_description!: string;
  @IsISO8601() created_at!: string;
  @IsISO8601() expires_at!: string;
}

/**
 * Structural checks only (types, formats, nesting). The contract's own validation table (missing user →
 * "I need you to be logged in…", message length → "I didn't understand that…") is applied by the decision
 * engine, because those failures are answered with contract templates, not wire errors.
 */
export class DecisionContextDto implements Omit<DecisionContext, 'user_id' | 'message'> {
  // Bounds the engine's table does not state: a user id is at most 256 characters (as every governance scope's).
  @IsOptional() @IsString() @MaxLength(256) @Matches(USER_ID, USER_ID_FORM) user_id?: string;
  @IsOptional() @IsString() message?: string;
  @IsRunId() conversation_id!: string;
  @IsOptional() @IsString() @Length(1, 128) request_id?: string;
  @IsOptional() @IsArray() @ArrayMaxSize(200) @ValidateNested({ each: true }) @Type(() => HistoryMessageDto) message_history?: HistoryMessageDto[];
  @IsOptional() @ValidateNested() @Type(() => PendingConfirmationDto) pending_confirmation?: PendingConfirmationDto | null;
}

export class ClassifyIntentRequestDto implements ClassifyIntentRequest {
  @IsString() @IsNotEmpty() @MaxLength(4000) message!: string;
  @IsArray() @ArrayMaxSize(200) @ValidateNested({ each: true }) @Type(() => HistoryMessageDto) history!: HistoryMessageDto[];
  @IsBoolean() pending_confirmation_active!: boolean;
}
