export * from './sdk';
export * from './propagation';
