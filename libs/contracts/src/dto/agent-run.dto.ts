import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsInt, IsObject, IsOptional, IsString, Length, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { IsRunId } from './ids';
import type { AgentRunRequest, ArtifactRef, TaxonomyVersions } from '../generated';
import { JSON_FIELD_MAX_BYTES, MaxJsonBytes } from './bounds';
import { PolicyVersionsDto } from './runtime.dto';
import { AGENT_NAME_FORM, ARTIFACT_ID, ARTIFACT_ID_FORM, CASE_ID, CASE_ID_FORM, KIND, KIND_FORM, MEDIA_TYPE, MEDIA_TYPE_FORM, SHA256, SHA256_FORM, UPPER_NAME } from './forms';

// DTOs implement the generated contract types (proto-contracts/schemas/governed-runs/agent-run-*.schema.json):
// a schema change the DTO does not follow fails to compile. Patterns repeat the schemas' so both reject the same input.

/** One input artifact_ref of an agent request (proto-contracts/schemas/governance/artifact_ref.schema.json). */
export class InputArtifactRefDto implements ArtifactRef {
  @Matches(ARTIFACT_ID, ARTIFACT_ID_FORM) @MaxLength(128) artifact_id!: string;
  @Matches(SHA256, SHA256_FORM) sha256!: string;
  @IsInt() @Min(0) @Max(Number.MAX_SAFE_INTEGER) size_bytes!: number;
  @Matches(MEDIA_TYPE, MEDIA_TYPE_FORM) @MaxLength(127) media_type!: string;
  @Matches(KIND, KIND_FORM) @MaxLength(64) kind!: string;
  @IsOptional() @IsString() @Length(1, 128) case_id?: string;
  @IsOptional() @IsString() @Length(1, 255) name?: string;
}

export class TaxonomyVersionsDto implements TaxonomyVersions {
  @IsOptional() @IsString() @Length(1, 64) coa?: string;
  @IsOptional() @IsString() @Length(1, 64) tags?: string;
  @IsOptional() @IsString() @Length(1, 64) entities?: string;
}

/** Contract 001 §2.1 agent request on rl.caller.<identity>.runs.start. */
export class AgentRunRequestDto implements AgentRunRequest {
  @Matches(UPPER_NAME, AGENT_NAME_FORM) agent_name!: string;
  @IsString() @Matches(CASE_ID, CASE_ID_FORM) @Length(1, 128) case_id!: string;
  @IsOptional() @IsRunId() run_id?: string;
  @IsOptional() @IsRunId() parent_run_id?: string;
  @IsOptional() @IsRunId() root_run_id?: string;
  @IsOptional() @IsString() @Length(1, 128) correlation_id?: string;
  @IsOptional() @ValidateNested() @Type(() => PolicyVersionsDto) policy_versions?: PolicyVersionsDto;
  @IsOptional() @ValidateNested() @Type(() => TaxonomyVersionsDto) taxonomy_versions?: TaxonomyVersionsDto;
  @IsArray() @ArrayMaxSize(64) @ValidateNested({ each: true }) @Type(() => InputArtifactRefDto) input_artifacts!: InputArtifactRefDto[];
  @IsObject() @MaxJsonBytes(JSON_FIELD_MAX_BYTES.parameters) parameters!: Record<string, unknown>;
  @IsOptional() @Matches(SHA256, SHA256_FORM) request_hash_sha256?: string;
}
