/**
 * One error taxonomy for every service. Codes are stable and cross the wire;
 * messages are written for the caller and never carry internals (stack, query, connection detail).
 * Retryability is a field of the error, not a guess by the caller.
 */
export const ERROR_CODES = {
  'REQUEST.INVALID': { retryable: false, message: 'The request is not valid.' },
  'REQUEST.CONFLICT': { retryable: false, message: 'That request id was already used for a different request.' },
  'REQUEST.TOO_LARGE': { retryable: false, message: 'The request is too large.' },
  'REQUEST.RATE_LIMITED': { retryable: true, message: 'Too many rejected requests; slow down and retry later.' },
  'REQUEST.UNATTRIBUTED': { retryable: false, message: 'The request comes from an identity with no role in the caller grants; nothing was started.' },
  'AUTH.MISSING': { retryable: false, message: 'Authentication is required.' },
  'NOT_FOUND': { retryable: false, message: 'The requested item was not found.' },
  'RUN.NOT_FOUND': { retryable: false, message: 'No run with that id.' },
  'RUN.CONFLICT': { retryable: true, message: 'The run changed concurrently; retry.' },
  'RUN.TIMEOUT': { retryable: true, message: 'The run is taking longer than expected.' },
  'RUN.UNKNOWN_CALLER': { retryable: false, message: 'The calling run is not in the log.' },
  'RUN.CLAIM_MISMATCH': { retryable: false, message: "The call's claims differ from what the calling run recorded." },
  'RUN.PARENT_TERMINAL': { retryable: false, message: 'The calling run has finished.' },
  'RUN.ABANDONED': { retryable: false, message: 'The run was cut short and nobody carries it any more; the log holds no outcome of its effect.' },
  'RUN.FORGED': { retryable: false, message: 'Events under this run id were not written by the service that owns the run; it is not served.' },
  'FORK.RUN_NOT_FOUND': { retryable: false, message: 'No run with that id to fork.' },
  'FORK.CHECKPOINT_NOT_IN_RUN': { retryable: false, message: 'The source run has no completed step with that id.' },
  'FORK.NOT_FORKABLE': { retryable: false, message: 'Only top-level governed agent runs (a caller\'s runs.start) can be forked.' },
  'FORK.SOURCE_NOT_TERMINAL': { retryable: true, message: 'The source run has no outcome yet; fork it once it has ended.' },
  'FORK.POLICY_UNKNOWN': { retryable: false, message: 'That policy version was never published.' },
  'FORK.REQUEST_CONFLICT': { retryable: false, message: 'That request_id already forked another run, checkpoint or policy.' },
  'DEADLETTER.NOT_FOUND': { retryable: false, message: 'No dead letter with that id.' },
  'DEADLETTER.NOT_RETRYABLE': { retryable: false, message: 'This dead letter cannot be re-published.' },
  'LANE.DENIED': { retryable: false, message: 'The action is not permitted in this lane.' },
  'CASE.CROSS_CASE_DENIED': { retryable: false, message: 'Cross-case access is not permitted.' },
  'TOOL.NOT_FOUND': { retryable: false, message: 'No such tool.' },
  'TOOL.INVALID_INPUT': { retryable: false, message: 'The tool input is not valid.' },
  'TOOL.TIMEOUT': { retryable: true, message: 'The tool did not answer in time.' },
  'TOOL.FAILED': { retryable: true, message: 'The tool failed.' },
  'TRANSCRIPTION.NOT_CONFIGURED': { retryable: false, message: 'Audio transcription is not configured on this deployment, so audio recordings cannot be transcribed; text and JSON recordings can.' },
  'TOOL.DESTINATION_DENIED': { retryable: false, message: 'The tool may not reach that destination: the browser tools open only public http(s) addresses.' },
  'ARTIFACT.HASH_MISMATCH': { retryable: false, message: 'The artifact content does not match its hash.' },
  'ARTIFACT.NOT_FOUND': { retryable: false, message: 'No artifact with that id.' },
  'ARTIFACT.UNREADABLE': { retryable: false, message: 'The recording cannot be read: a JSON recording is an array of utterances (or {"utterances": [...]}) each with a text, a text recording is "Speaker: words" lines, and media types other than these and audio cannot be transcribed.' },
  'ARTIFACT.TOO_LARGE': { retryable: false, message: 'The artifact is larger than its kind allows.' },
  'ARTIFACT.TYPE_DENIED': { retryable: false, message: 'The artifact is not of a media type its kind allows.' },
  'ARTIFACT.KIND_DENIED': { retryable: false, message: "The caller's role may not supply this kind of input to this agent." },
  'CASE.NOT_GRANTED': { retryable: false, message: "The caller's role may not put artifacts into this case." },
  'DATA.ERASED': { retryable: false, message: 'The data of this user or case was erased; nothing more is stored for it.' },
  'DATA.KEY_UNUSABLE': { retryable: false, message: 'The data key slot of this user or case takes no key until the bootstrap brings the data-key bucket to this release\'s settings (npm start, or the deployment\'s bootstrap step, does).' },
  'PROMOTION.REFUSED': { retryable: false, message: 'The promotion was refused by the sanitiser.' },
  'POLICY.INVALID': { retryable: false, message: 'The policy files are not valid.' },
  'STORE.CONFLICT': { retryable: true, message: 'The document changed concurrently; retry.' },
  'DEPENDENCY.DOWN': { retryable: true, message: 'A dependency is not available; retry later.' },
  'LOG.UNREADABLE': { retryable: false, message: 'A stored message of the event log cannot be read (damaged or removed).' },
  'LOG.FOREIGN_MESSAGE': { retryable: false, message: 'A message in the event log was made by no Runledger writer (the server stored it there as the reply to a request); readers skip it.' },
  'CAMPAIGN.NOT_FOUND': { retryable: false, message: 'No campaign with that id.' },
  'CAMPAIGN.EXISTS': { retryable: false, message: 'A different campaign already has that id.' },
  'CAMPAIGN.STATE': { retryable: false, message: 'The campaign is not in a state that allows this.' },
  'CAMPAIGN.AGENT_UNAVAILABLE': { retryable: false, message: 'The campaign\'s agent cannot propose (an agent that does not exist); the cycle was aborted.' },
  'APPROVAL.NOT_FOUND': { retryable: false, message: 'No pending item with that id.' },
  'APPROVAL.ROLE_DENIED': { retryable: false, message: 'This role may not decide campaign items.' },
  'APPROVAL.EXPIRED': { retryable: false, message: 'The item expired; it will not be executed.' },
  'OPERATOR.ACTION_NOT_GRANTED': { retryable: false, message: "The operator's role (policy/operators.yaml) does not grant this action." },
  'APPROVAL.ALREADY_DECIDED': { retryable: false, message: 'The item was already decided.' },
  'INTERNAL': { retryable: true, message: 'Something went wrong on our side.' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The error shape that crosses the wire. */
export interface WireError {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  details?: string[];
}

/** A business or boundary failure with a stable code; safe to show to the caller. */
export class AppError extends Error {
  readonly retryable: boolean;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: string[],
  ) {
    super(message ?? ERROR_CODES[code].message);
    this.name = 'AppError';
    this.retryable = ERROR_CODES[code].retryable;
  }

  toWire(): WireError {
    return { code: this.code, message: this.message, retryable: this.retryable, ...(this.details?.length ? { details: this.details } : {}) };
  }
}

/** Maps anything thrown to a wire error; unknown errors become INTERNAL with a generic message. */
export function toWireError(err: unknown): WireError {
  if (err instanceof AppError) return err.toWire();
  // An exception of our own that names a code (the log's ConcurrencyError: RUN.CONFLICT) says it in the code's words:
  // its message and fields (a log subject, a version) are internal (probe finding: they reached an operator raw).
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' && code in ERROR_CODES ? new AppError(code as ErrorCode).toWire() : { code: 'INTERNAL', message: ERROR_CODES.INTERNAL.message, retryable: true };
  }
  // A wire error relayed as it came (another service's answer): its own fields only.
  if (isWireError(err)) return { code: err.code, message: err.message, retryable: err.retryable, ...(err.details?.length ? { details: err.details } : {}) };
  return { code: 'INTERNAL', message: ERROR_CODES.INTERNAL.message, retryable: true };
}

export function isWireError(value: unknown): value is WireError {
  return (
    typeof value === 'object' && value !== null &&
    typeof (value as WireError).code === 'string' && (value as WireError).code in ERROR_CODES &&
    typeof (value as WireError).message === 'string'
  );
}
