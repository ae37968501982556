export * from './domain/run-events';
export * from './domain/run-state';
export * from './infra/run-repository';
