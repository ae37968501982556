import { IsBase64, IsInt, IsOptional, IsString, Length, Matches, Max, MaxLength, Min } from 'class-validator';
import { IsRunId } from './ids';
import type { ArtifactIngestRequest, CallerArtifactGetRequest, CallerRunCancelRequest, CallerRunEventsRequest, CallerRunQuery } from '../generated';
import { AGENT_NAME_FORM, ARTIFACT_ID, ARTIFACT_ID_FORM, CASE_ID, CASE_ID_FORM, KIND, KIND_FORM, MEDIA_TYPE, MEDIA_TYPE_FORM, SHA256, SHA256_FORM, UPPER_NAME } from './forms';

// DTOs of a caller's own subjects (proto-contracts/schemas/callers/, issue 26). Patterns repeat the schemas'.

/** The longest a caller's follow request waits for the next event of its run (CallerRunEventsRequest.wait_ms). */
export const CALLER_FOLLOW_MAX_WAIT_MS = 20_000;

export class ArtifactIngestRequestDto implements ArtifactIngestRequest {
  @IsString() @Matches(CASE_ID, CASE_ID_FORM) @Length(1, 128) case_id!: string;
  @Matches(UPPER_NAME, AGENT_NAME_FORM) agent_name!: string;
  @Matches(KIND, KIND_FORM) @MaxLength(64) kind!: string;
  @Matches(MEDIA_TYPE, MEDIA_TYPE_FORM) @MaxLength(127) media_type!: string;
  @IsOptional() @IsString() @Length(1, 255) name?: string;
  // No length cap here: the service decodes first and names the size and the kind's limit in its refusal.
  @IsString() @IsBase64() content_base64!: string;
  @IsOptional() @Matches(SHA256, SHA256_FORM) sha256?: string;
}

/** The largest range one chunked read of rl.caller.<identity>.artifacts.get answers. */
export const CALLER_ARTIFACT_CHUNK_MAX_BYTES = 4 * 1024 * 1024;

export class CallerArtifactGetRequestDto implements CallerArtifactGetRequest {
  @IsRunId() run_id!: string;
  @Matches(ARTIFACT_ID, ARTIFACT_ID_FORM) @MaxLength(128) artifact_id!: string;
  @IsOptional() @IsInt() @Min(0) @Max(Number.MAX_SAFE_INTEGER) offset?: number;
  @IsOptional() @IsInt() @Min(1) @Max(CALLER_ARTIFACT_CHUNK_MAX_BYTES) length?: number;
}

export class CallerRunQueryDto implements CallerRunQuery {
  @IsRunId() run_id!: string;
}

export class CallerRunEventsRequestDto implements CallerRunEventsRequest {
  @IsRunId() run_id!: string;
  // A log position is a safe integer: past 2^53 - 1 a number names no one position (1e300 is "an integer" to JSON).
  @IsOptional() @IsInt() @Min(0) @Max(Number.MAX_SAFE_INTEGER) after?: number;
  @IsOptional() @IsInt() @Min(0) @Max(CALLER_FOLLOW_MAX_WAIT_MS) wait_ms?: number;
  @IsOptional() @IsInt() @Min(1) @Max(500) limit?: number;
}

export class CallerRunCancelRequestDto implements CallerRunCancelRequest {
  @IsRunId() run_id!: string;
  @IsOptional() @IsString() @Length(1, 300) reason?: string;
}
