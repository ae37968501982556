import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { ValidateFunction } from 'ajv';
import { AppError, jsonShapeProblems, unknownProperty } from '@runledger/kernel';
import { acceptedAs } from './dto-fast-path';
import { shapeOf } from './request-shape';
import { describeSchemaErrors } from './schema-messages';
import { describeErrors } from './validation-messages';

/**
 * Validates a plain message against a class-validator DTO. Unknown properties are refused,
 * so a caller learns about a typo instead of having it silently ignored; so is a key named like an Object.prototype
 * member at any depth (`toString`, also inside a free-form `parameters`), which class-transformer would drop before
 * class-validator's whitelist saw it: found by the transport's one walk of the body (jsonShape; a value built in the
 * process is walked here), named in the words of every other detail. A message the DTO's compiled checks accept
 * (dto-fast-path.ts: the same constraints, without class-transformer's copy) is answered from them; any other is
 * class-validator's to refuse, with its errors.
 */
export function validateMessage<T extends object>(dto: new () => T, plain: unknown): T {
  // Before class-transformer, which would drop these keys unseen (or trip on one: `constructor`).
  boundedObject(plain);
  const accepted = acceptedAs(dto, plain, { keysChecked: true });
  if (accepted) return accepted;
  const instance = plainToInstance(dto, plain, { enableImplicitConversion: false });
  const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
  if (errors.length) throw invalid(describeErrors(errors));
  return instance;
}

/**
 * Validates a plain message against the JSON Schema of its contract (a compiled `contractValidator`): the requests
 * whose contract is their schema itself (the campaign subjects). The same boundary as validateMessage's: a JSON
 * object, no prototype-named key at any depth, and every problem in the same words (schema-messages.ts).
 */
export function validateBySchema<T>(validate: ValidateFunction, plain: unknown): T {
  boundedObject(plain);
  if (validate(plain)) return plain as T;
  throw invalid(describeSchemaErrors(validate.errors ?? [], validate.schema));
}

/** A JSON object without prototype-named keys (found by the transport's walk, jsonShape), else REQUEST.INVALID. */
function boundedObject(plain: unknown): asserts plain is Record<string, unknown> {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    throw new AppError('REQUEST.INVALID', 'The request must be a JSON object.');
  }
  const shape = shapeOf(plain);
  if (shape.tooDeep !== null || shape.prototypeKeys.length) throw invalid(jsonShapeProblems(shape));
}

/** Problems named in one refusal, at most: a body of 100k bad keys must not get an answer larger than the bus carries. */
const MAX_DETAILS = 20;

function invalid(details: string[]): AppError {
  return new AppError('REQUEST.INVALID', 'The request is not valid.', details.length > MAX_DETAILS ? [...details.slice(0, MAX_DETAILS), `and ${details.length - MAX_DETAILS} more`] : details);
}

/**
 * A request its contract says is empty (`{}` or no body: rl.audit.verify, .head, .coverage): anything else is refused,
 * so a caller who sends fields learns they are not read instead of thinking they were applied.
 */
export function validateEmptyMessage(plain: unknown): void {
  if (plain === undefined) return;
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) throw new AppError('REQUEST.INVALID', 'The request must be a JSON object.');
  const fields = Object.keys(plain);
  if (fields.length) throw new AppError('REQUEST.INVALID', 'The request is not valid: it takes no fields.', fields.map(unknownProperty));
}

/** Nest pipe form, for `@Payload(new MessagePipe(Dto))` in thin transport controllers. */
@Injectable()
export class MessagePipe<T extends object> implements PipeTransform {
  constructor(private readonly dto: new () => T) {}
  transform(value: unknown, _meta: ArgumentMetadata): T {
    return validateMessage(this.dto, value);
  }
}
