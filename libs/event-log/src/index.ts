export * from './envelope';
export * from './stream';
export * from './aggregate-ref';
export * from './event-log';
export * from './decider';
export * from './specification';
export * from './codec';
export * from './stored-event';
