// Contract v1 (governed runs): the pure domain. No I/O, no clock, no randomness: callers pass
// file contents, times and ids as data.
export * from './policy/types';
export { loadPolicy, PolicyError, type PolicySources } from './policy/load-policy';
export { PolicyRegistry } from './policy/registry';
export * from './authz/authorize';
export * from './authz/authz-inputs';
export * from './authz/what-if';
export * from './hashing/canonical-json';
export * from './hashing/hashes';
export * from './artifacts/artifact-ref';
export { checkSchema, type GovernanceSchemaName, type SchemaCheck } from './schemas/validators';
export * from './promotion/screen-promotion';
export * from './export/tar';
export * from './export/manifest';
export * from './export/bundle';
export * from './audit/hash-chain';
export * from './audit/anchored-chain';
export * from './audit/coverage';
export * from './lifecycle/run-lifecycle';
export { APPROVAL_KINDS, approverOf, authorizeIngest, caseGranted, contentProblem, INGEST_STORE_MAX_BYTES, parseCallerGrants, type CallerGrants, type CallerRole, type GrantRefusal, type IngestAsk, type KindRule } from './callers/caller-grants';
export { decideOperatorAction, OPERATOR_ACTIONS, parseOperatorRoles, type OperatorAction, type OperatorRoles, type OperatorVerdict } from './operators/operator-roles';
