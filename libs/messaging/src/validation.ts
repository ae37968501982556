import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AppError, jsonShapeProblems } from '@runledger/kernel';
import { acceptedAs } from './dto-fast-path';
import { shapeOf } from './request-shape';
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
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    throw new AppError('REQUEST.INVALID', 'The request must be a JSON object.');
  }
  // Before class-transformer, which would drop these keys unseen (or trip on one: `constructor`).
  const shape = shapeOf(plain);
  if (shape.tooDeep !== null || shape.prototypeKeys.length) throw invalid(jsonShapeProblems(shape));
  const accepted = acceptedAs(dto, plain as Record<string, unknown>, { keysChecked: true });
  if (accepted) return accepted;
  const instance = plainToInstance(dto, plain, { enableImplicitConversion: false });
  const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
  if (errors.length) throw invalid(describeErrors(errors));
  return instance;
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
  if (fields.length) throw new AppError('REQUEST.INVALID', 'The request is not valid: it takes no fields.', fields.map((f) => `property ${f} should not exist`));
}

/** Nest pipe form, for `@Payload(new MessagePipe(Dto))` in thin transport controllers. */
@Injectable()
export class MessagePipe<T extends object> implements PipeTransform {
  constructor(private readonly dto: new () => T) {}
  transform(value: unknown, _meta: ArgumentMetadata): T {
    return validateMessage(this.dto, value);
  }
}
