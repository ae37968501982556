export * from './sdk';
export * from './propagation';
export * from './messaging-attributes';
export * from './metrics';
export * from './run-spans';
