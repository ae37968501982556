/**
 * @runledger/client: Runledger's public NATS subjects, typed. `connect()` as a caller, then `taskAssistant`, `runs`,
 * `sessions`, `campaigns` and `artifacts`. Errors are RunledgerError subclasses carrying Runledger's stable codes.
 */
export { connect, RunledgerClient } from './client.js';
export type { ArtifactContent, ArtifactInput, ConnectOptions, FollowOptions, RunEvent } from './client.js';
export {
  AccessDeniedError, ConflictError, errorFromWire, IntegrityError, InvalidRequestError, NotFoundError, RunledgerError, TimeoutError, UnavailableError,
} from './errors.js';
export type { WireError } from './errors.js';
export { REQUEST_ID_HEADER, STATUS_HEADER } from './transport.js';
export type { RequestOptions, RetryPolicy } from './transport.js';
export type * from './contracts.js';
