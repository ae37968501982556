import { IsBase64, IsInt, IsOptional, IsString, IsUUID, Length, Matches, Max, MaxLength, Min } from 'class-validator';
import type { ArtifactIngestRequest, CallerArtifactGetRequest, CallerRunCancelRequest, CallerRunEventsRequest, CallerRunQuery } from '../generated';

// DTOs of a caller's own subjects (proto-contracts/schemas/callers/, issue 26). Patterns repeat the schemas'.
const CASE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
const UPPER_NAME = /^[A-Z][A-Z0-9_]{1,63}$/;
const KIND = /^[a-z][a-z0-9_]*$/;
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*(;.*)?$/;
const SHA256 = /^[0-9a-f]{64}$/;
const ARTIFACT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

/** The longest a caller's follow request waits for the next event of its run (CallerRunEventsRequest.wait_ms). */
export const CALLER_FOLLOW_MAX_WAIT_MS = 20_000;

export class ArtifactIngestRequestDto implements ArtifactIngestRequest {
  @Matches(CASE_ID) @Length(1, 128) case_id!: string;
  @Matches(UPPER_NAME) agent_name!: string;
  @Matches(KIND) @MaxLength(64) kind!: string;
  @Matches(MEDIA_TYPE) @MaxLength(127) media_type!: string;
  @IsOptional() @IsString() @Length(1, 255) name?: string;
  // No length cap here: the service decodes first and names the size and the kind's limit in its refusal.
  @IsString() @IsBase64() content_base64!: string;
  @IsOptional() @Matches(SHA256) sha256?: string;
}

/** The largest range one chunked read of rl.caller.<identity>.artifacts.get answers. */
export const CALLER_ARTIFACT_CHUNK_MAX_BYTES = 4 * 1024 * 1024;

export class CallerArtifactGetRequestDto implements CallerArtifactGetRequest {
  @IsUUID() run_id!: string;
  @Matches(ARTIFACT_ID) @MaxLength(128) artifact_id!: string;
  @IsOptional() @IsInt() @Min(0) offset?: number;
  @IsOptional() @IsInt() @Min(1) @Max(CALLER_ARTIFACT_CHUNK_MAX_BYTES) length?: number;
}

export class CallerRunQueryDto implements CallerRunQuery {
  @IsUUID() run_id!: string;
}

export class CallerRunEventsRequestDto implements CallerRunEventsRequest {
  @IsUUID() run_id!: string;
  @IsOptional() @IsInt() @Min(0) after?: number;
  @IsOptional() @IsInt() @Min(0) @Max(CALLER_FOLLOW_MAX_WAIT_MS) wait_ms?: number;
  @IsOptional() @IsInt() @Min(1) @Max(500) limit?: number;
}

export class CallerRunCancelRequestDto implements CallerRunCancelRequest {
  @IsUUID() run_id!: string;
  @IsOptional() @IsString() @Length(1, 300) reason?: string;
}
