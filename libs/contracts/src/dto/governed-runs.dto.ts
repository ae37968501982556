import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsBase64, IsDefined, IsIn, IsNotEmpty, IsOptional, IsString, Length, Matches, MaxLength, ValidateNested } from 'class-validator';
import type { ArtifactGetRequest, ArtifactPutRequest, ExportRequest, PromotionCandidate, PromotionRequest } from '../generated';
import { GovernanceScopeDto } from './runtime.dto';
import { ARTIFACT_ID, ARTIFACT_ID_FORM, KIND, KIND_FORM, MEDIA_TYPE, MEDIA_TYPE_FORM, SHA256, SHA256_FORM } from './forms';

// DTOs implement the generated contract types (proto-contracts/schemas/governed-runs/): a schema change the
// DTO does not follow fails to compile. Patterns repeat the schemas' so both reject the same input.

/** Bytes above this are refused (REQUEST.TOO_LARGE) by rl.artifacts.put. */
export const ARTIFACT_MAX_BYTES = 8 * 1024 * 1024;

export class ArtifactPutRequestDto implements ArtifactPutRequest {
  // No length cap here: the service decodes first and names the size and the limit in its refusal.
  @IsString() @IsBase64() content_base64!: string;
  @Matches(MEDIA_TYPE, MEDIA_TYPE_FORM) @MaxLength(127) media_type!: string;
  @Matches(KIND, KIND_FORM) @MaxLength(64) kind!: string;
  @IsOptional() @IsString() @Length(1, 255) name?: string;
  @IsOptional() @Matches(SHA256, SHA256_FORM) sha256?: string;
  @IsDefined() @ValidateNested() @Type(() => GovernanceScopeDto) governance!: GovernanceScopeDto;
}

export class ArtifactGetRequestDto implements ArtifactGetRequest {
  @Matches(ARTIFACT_ID, ARTIFACT_ID_FORM) @MaxLength(128) artifact_id!: string;
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
