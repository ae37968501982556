import { getMetadataStorage, ValidationArguments, ValidationTypes } from 'class-validator';
import type { MetadataStorage as TransformerMetadata } from 'class-transformer/types/MetadataStorage';
import { TransformationType, type TransformFnParams } from 'class-transformer';
import { jsonShape } from '@runledger/kernel';

// class-transformer keeps its @Type metadata in a module-level store it does not export from its index.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage: transformerMetadata } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: TransformerMetadata };

/**
 * The accepting half of `validateMessage`, compiled once per DTO class from the DTO's own class-validator and
 * class-transformer metadata: the same constraint functions, called directly, without class-transformer's copy of the
 * message and class-validator's error objects per property (most of a choke point's validation CPU, issue 22).
 *
 * It only ever says "valid, and here is the value": for a message it accepts, class-validator (with validateMessage's
 * options) accepts it too, and the value is what `plainToInstance` gives (DTO instances with their declared fields
 * first, the message's values, each through its field's @Transform as class-transformer applies it: a run id in lower
 * case, IsRunId). Anything else (a constraint that fails, a shape it does not handle, a key class-transformer
 * treats specially) gives `undefined`, and validateMessage asks class-validator, which gives the errors as ever.
 * `keysChecked`: the caller has refused every prototype-named key of the message (validateMessage has, from the
 * transport's walk), so free-form values are not walked again for them here.
 */
export function acceptedAs<T extends object>(dto: new () => T, plain: Record<string, unknown>, { keysChecked = false }: { keysChecked?: boolean } = {}): T | undefined {
  const plan = planOf(dto);
  return plan ? (accept(plan, plain, keysChecked) as T | undefined) : undefined;
}

interface ConstraintCheck {
  validate: (value: unknown, args: ValidationArguments) => unknown;
  targetName: string;
  property: string;
  constraints: unknown[];
  each: boolean;
}

interface PropertyPlan {
  name: string;
  conditions: Array<(object: object, value: unknown) => boolean>;
  /** IsDefined first, then the other constraints, as class-validator runs them. */
  checks: ConstraintCheck[];
  /** The nested DTO's plan (ValidateNested with @Type), resolved on first use. */
  nested?: () => ClassPlan | null;
  /** The field's @Transform functions (plain to class), applied in order to a value the message has, before its checks. */
  transforms: Array<(params: TransformFnParams) => unknown>;
}

interface ClassPlan {
  create: () => object;
  properties: Map<string, PropertyPlan>;
}

/** One plan per DTO class (null: a class this fast path does not handle); as many entries as DTO classes, no more. */
const plans = new WeakMap<new () => object, ClassPlan | null>();

function planOf(dto: new () => object): ClassPlan | null {
  let plan = plans.get(dto);
  if (plan === undefined) {
    plans.set(dto, null); // a class nested in itself sees "not handled" while its plan is made
    plan = compile(dto);
    plans.set(dto, plan);
  }
  return plan;
}

const HANDLED = new Set<string>([ValidationTypes.CUSTOM_VALIDATION, ValidationTypes.IS_DEFINED, ValidationTypes.CONDITIONAL_VALIDATION, ValidationTypes.NESTED_VALIDATION, ValidationTypes.WHITELIST]);

function compile(dto: new () => object): ClassPlan | null {
  const storage = getMetadataStorage();
  // Every metadata validateSync would use for this class (no groups, `always` off), inherited ones included.
  const metadatas = storage.getTargetValidationMetadatas(dto, '', false, false, undefined);
  if (!metadatas.length || transformerMetadata.getStrategy(dto) !== 'none') return null;
  const properties = new Map<string, PropertyPlan>();
  for (const m of metadatas) {
    if (!HANDLED.has(m.type) || typeof m.target !== 'function' || m.groups?.length || m.always !== undefined) return null;
    const name = m.propertyName;
    // A field named like an Object.prototype member is one class-transformer skips or trips on: left to it.
    if (name in Object.prototype || name in dto.prototype) return null;
    let p = properties.get(name);
    if (!p) {
      // The transforms class-transformer applies without groups (those of a group are skipped: no group is asked for).
      const transforms = transformerMetadata.findTransformMetadatas(dto, name, TransformationType.PLAIN_TO_CLASS).filter((t) => !t.options?.groups?.length).map((t) => t.transformFn);
      properties.set(name, (p = { name, conditions: [], checks: [], transforms }));
    }
    if (m.type === ValidationTypes.CONDITIONAL_VALIDATION) p.conditions.push(m.constraints[0] as (object: object, value: unknown) => boolean);
    if (m.type === ValidationTypes.NESTED_VALIDATION) {
      const type = transformerMetadata.findTypeMetadata(dto, name);
      // A nested DTO's value transformed as well is class-transformer's to build.
      if (!type || type.typeFunction.length || type.options?.discriminator || p.transforms.length) return null;
      p.nested = () => planOf(type.typeFunction() as new () => object);
    }
    if (m.type === ValidationTypes.CUSTOM_VALIDATION || m.type === ValidationTypes.IS_DEFINED) {
      const constraints = storage.getTargetValidatorConstraints(m.constraintCls);
      if (!constraints.length || constraints.some((c) => c.async)) return null;
      for (const c of constraints) {
        const instance = c.instance as { validate: ConstraintCheck['validate'] };
        const check = { validate: instance.validate.bind(instance), targetName: dto.name, property: name, constraints: m.constraints, each: m.each === true };
        if (m.type === ValidationTypes.IS_DEFINED) p.checks.unshift(check);
        else p.checks.push(check);
      }
    }
  }
  for (const [name, p] of properties) {
    // @Type without ValidateNested (converted, not validated) is class-transformer's to do.
    if (!p.nested && transformerMetadata.findTypeMetadata(dto, name)) return null;
  }
  // The instance class-transformer starts from: every declared field must be one the metadata knows (whitelist).
  // A field with an initial value is one class-validator checks on the built instance even when the message lacks
  // it (an optional `limit = 50` under @Max(10) is refused there): left to it, as the checks here see the message.
  const fresh = new dto() as Record<string, unknown>;
  if (Object.keys(fresh).some((k) => !properties.has(k) || fresh[k] !== undefined)) return null;
  return { create: () => new dto(), properties };
}

/** The DTO instance for `plain`, or undefined when it is not shown valid here. */
function accept(plan: ClassPlan, plain: Record<string, unknown>, keysChecked: boolean): object | undefined {
  const out = plan.create() as Record<string, unknown>;
  // The message's fields in its order, as class-transformer assigns them; one the DTO does not know is refused (forbidNonWhitelisted).
  for (const key of Object.keys(plain)) {
    const p = plan.properties.get(key);
    const converted = p ? acceptProperty(p, plain, transformed(p, plain, key), keysChecked) : REFUSED;
    if (converted === REFUSED) return undefined;
    if (converted !== undefined) out[key] = converted;
  }
  // The DTO's fields the message does not have are checked too (IsDefined, a required field's constraints).
  for (const p of plan.properties.values()) {
    if (!Object.hasOwn(plain, p.name) && acceptProperty(p, plain, undefined, keysChecked) === REFUSED) return undefined;
  }
  return out;
}

const REFUSED = Symbol('refused');

/**
 * The message's value of `key` through the field's transforms, as class-transformer gives it (only a field the message
 * has is transformed). One that makes a value absent or present is left to class-transformer (REFUSED: not shown
 * valid here): the field's conditions (IsOptional) read the message, class-validator reads the built instance.
 */
function transformed(p: PropertyPlan, plain: Record<string, unknown>, key: string): unknown {
  const value = plain[key];
  if (!p.transforms.length) return value;
  let out = value;
  for (const fn of p.transforms) out = fn({ value: out, key, obj: plain, type: TransformationType.PLAIN_TO_CLASS, options: TRANSFORM_OPTIONS });
  return (out === undefined || out === null) === (value === undefined || value === null) ? out : REFUSED;
}

/** validateMessage's class-transformer options, as a transform is handed them. */
const TRANSFORM_OPTIONS = { enableImplicitConversion: false };

function acceptProperty(p: PropertyPlan, plain: Record<string, unknown>, value: unknown, keysChecked: boolean): unknown {
  if (value === REFUSED) return REFUSED;
  // Skipped by a condition (IsOptional): nothing checked. Only an absent or null value is left as it is by class-transformer too.
  if (p.conditions.some((condition) => !condition(plain, value))) return value === undefined || value === null ? value : REFUSED;
  for (const check of p.checks) {
    const args: ValidationArguments = { targetName: check.targetName, property: check.property, object: plain, value, constraints: check.constraints };
    if (check.each && Array.isArray(value) ? !value.every((v) => passes(check, v, args)) : !passes(check, value, args)) return REFUSED;
  }
  if (p.nested) {
    if (value === undefined) return value;
    const nested = p.nested();
    if (!nested) return REFUSED;
    // ValidateNested validates each element of an array whatever its `each`, and class-transformer converts each.
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (const v of value) {
        const one = isRecord(v) ? accept(nested, v, keysChecked) : undefined;
        if (!one) return REFUSED;
        out.push(one);
      }
      return out;
    }
    return isRecord(value) ? (accept(nested, value, keysChecked) ?? REFUSED) : REFUSED;
  }
  // A free-form value is copied by class-transformer, which drops or trips on keys named like Object.prototype members.
  return !keysChecked && hasPrototypeKey(value) ? REFUSED : value;
}

function passes(check: ConstraintCheck, value: unknown, args: ValidationArguments): boolean {
  const ok = check.validate(value, args);
  return !(ok instanceof Promise) && !!ok;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A free-form value class-transformer would not copy as it is: a prototype-named key in it (or one too deep to look). */
function hasPrototypeKey(value: unknown): boolean {
  const shape = jsonShape(value);
  return shape.prototypeKeys.length > 0 || shape.tooDeep !== null;
}
