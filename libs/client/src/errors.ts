/** The error body of a reply whose `Rl-Status` header is `error` (every Runledger service answers failures so). */
export interface WireError {
  code: string;
  message: string;
  retryable: boolean;
  details?: string[];
}

/**
 * A refusal or failure with Runledger's stable code (`RUN.NOT_FOUND`, `CASE.NOT_GRANTED` …) and whether asking again
 * may succeed. Every error this client throws is one; the subclasses group the codes by what a caller does about them.
 */
export class RunledgerError extends Error {
  readonly code: string;
  readonly retryable: boolean;
  readonly details: readonly string[];
  /** The subject the request went to. */
  readonly subject: string | undefined;

  constructor(wire: WireError, subject?: string) {
    super(wire.message);
    this.name = new.target.name;
    this.code = wire.code;
    this.retryable = wire.retryable;
    this.details = wire.details ?? [];
    this.subject = subject;
  }
}

/** The request itself is wrong (shape, size, media type, a reused id): fix it, do not retry it. */
export class InvalidRequestError extends RunledgerError {}
/** Policy refuses it: a lane, a case, a role, an input kind. */
export class AccessDeniedError extends RunledgerError {}
/** No such run, artifact or campaign — or none this caller may see. */
export class NotFoundError extends RunledgerError {}
/** Bytes do not match their reference (on the wire, in the store, or as read back here). */
export class IntegrityError extends RunledgerError {}
/** A state that forbids the request (a finished parent run, a campaign not active, an item decided). */
export class ConflictError extends RunledgerError {}
/** Runledger or something it depends on is not available now; the client already retried with backoff. */
export class UnavailableError extends RunledgerError {}
/** No reply within the request's timeout (after the client's retries). The request may still have been carried out. */
export class TimeoutError extends RunledgerError {}

type ErrorClass = new (wire: WireError, subject?: string) => RunledgerError;

/** Codes by class, the one table of it; a code not listed falls back on its retryability. */
const BY_CODE: ReadonlyArray<[ErrorClass, readonly string[]]> = [
  [InvalidRequestError, ['REQUEST.INVALID', 'REQUEST.TOO_LARGE', 'REQUEST.CONFLICT', 'TOOL.INVALID_INPUT', 'ARTIFACT.TYPE_DENIED', 'ARTIFACT.TOO_LARGE', 'ARTIFACT.UNREADABLE', 'AUTH.MISSING']],
  [AccessDeniedError, ['LANE.DENIED', 'TOOL.DESTINATION_DENIED', 'CASE.CROSS_CASE_DENIED', 'CASE.NOT_GRANTED', 'REQUEST.UNATTRIBUTED', 'ARTIFACT.KIND_DENIED', 'APPROVAL.ROLE_DENIED', 'DATA.ERASED', 'DATA.KEY_UNUSABLE', 'PROMOTION.REFUSED']],
  [NotFoundError, ['NOT_FOUND', 'RUN.NOT_FOUND', 'ARTIFACT.NOT_FOUND', 'CAMPAIGN.NOT_FOUND', 'APPROVAL.NOT_FOUND', 'TOOL.NOT_FOUND']],
  [IntegrityError, ['ARTIFACT.HASH_MISMATCH', 'ARTIFACT.SIZE_MISMATCH']],
  [ConflictError, ['RUN.PARENT_TERMINAL', 'CAMPAIGN.EXISTS', 'CAMPAIGN.STATE', 'APPROVAL.EXPIRED', 'APPROVAL.ALREADY_DECIDED', 'RUN.CLAIM_MISMATCH', 'RUN.UNKNOWN_CALLER']],
  [TimeoutError, ['CLIENT.TIMEOUT', 'RUN.TIMEOUT', 'TOOL.TIMEOUT']],
];

/** The typed error for a wire error. */
export function errorFromWire(wire: WireError, subject?: string): RunledgerError {
  const found = BY_CODE.find(([, codes]) => codes.includes(wire.code))?.[0];
  const Class = found ?? (wire.retryable ? UnavailableError : RunledgerError);
  return new Class(wire, subject);
}

export function isWireError(value: unknown): value is WireError {
  const v = value as Partial<WireError> | null;
  return typeof v === 'object' && v !== null && typeof v.code === 'string' && typeof v.message === 'string' && typeof v.retryable === 'boolean';
}
