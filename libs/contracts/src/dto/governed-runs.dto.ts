import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsBase64, IsDefined, IsIn, IsNotEmpty, IsOptional, IsString, Length, Matches, MaxLength, ValidateNested } from 'class-validator';
import type { ArtifactGetRequest, ArtifactPutRequest, ExportRequest, PromotionCandidate, PromotionRequest } from '../generated';
import { GovernanceScopeDto } from './runtime.dto';

// DTOs implement the generated contract types (proto-contracts/schemas/governed-runs/): a schema change the
// DTO does not follow fails to compile. Patterns repeat the schemas' so both reject the same input.
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*(;.*)?$/;
const KIND = /^[a-z][a-z0-9_]*$/;
const ARTIFACT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
const SHA256 = /^[0-9a-f]{64}$/;

/** Bytes above this are refused (REQUEST.TOO_LARGE) by rl.artifacts.put. */
export const ARTIFACT_MAX_BYTES = 8 * 1024 * 1024;

export class ArtifactPutRequestDto implements ArtifactPutRequest {
  // No length cap here: the service decodes first and names the size and the limit in its refusal.
  @IsString() @IsBase64() content_base64!: string;
  @Matches(MEDIA_TYPE) @MaxLength(127) media_type!: string;
  @Matches(KIND) @MaxLength(64) kind!: string;
  @IsOptional() @IsString() @Length(1, 255) name?: string;
  @IsOptional() @Matches(SHA256) sha256?: string;
  @IsDefined() @ValidateNested() @Type(() => GovernanceScopeDto) governance!: GovernanceScopeDto;
}

export class ArtifactGetRequestDto implements ArtifactGetRequest {
  @Matches(ARTIFACT_ID) @MaxLength(128) artifact_id!: string;
  @IsDefined() @ValidateNested() @Type(() => GovernanceScopeDto) governance!: GovernanceScopeDto;
}

export class PromotionCandidateDto implements PromotionCandidate {
  @IsString() @Length(1, 200) title!: string;
  @IsString() @Length(1, 20_000) text!: string;
}

export class PromotionRequestDto implements PromotionRequest {
  @IsString() @IsNotEmpty() @MaxLength(128) promotion_id!: string;
  @IsString() @IsNotEmpty() @MaxLength(128) promotion_ticket_id!: string;
  @IsIn(['shared_playbooks', 'shared_heuristics']) target!: 'shared_playbooks' | 'shared_heuristics';
  @IsDefined() @ValidateNested() @Type(() => PromotionCandidateDto) candidate!: PromotionCandidateDto;
  @IsOptional() @IsString() @Length(1, 128) source_case_id?: string;
  @IsOptional() @IsArray() @ArrayMaxSize(100) @ArrayUnique() @IsString({ each: true }) @Length(1, 128, { each: true }) source_artifact_ids?: string[];
  @IsOptional() @IsArray() @ArrayMaxSize(100) @IsString({ each: true }) @Length(1, 256, { each: true }) client_identifiers?: string[];
  @IsDefined() @ValidateNested() @Type(() => GovernanceScopeDto) governance!: GovernanceScopeDto;
}

export class ExportRequestDto implements ExportRequest {
  @IsString() @IsNotEmpty() @MaxLength(128) export_id!: string;
  @IsString() @Length(1, 128) case_id!: string;
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(500) @ArrayUnique() @IsString({ each: true }) @Length(1, 128, { each: true }) artifact_ids!: [string, ...string[]];
  @IsDefined() @ValidateNested() @Type(() => GovernanceScopeDto) governance!: GovernanceScopeDto;
}
