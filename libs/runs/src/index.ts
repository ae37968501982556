export * from './domain/run-events';
export * from './domain/run-state';
export * from './domain/authz';
export * from './domain/tool-outcome';
export * from './infra/run-repository';
export * from './infra/caller-verifier';
export * from './domain/run-summary';
