export * from './ids';
export * from './errors';
export * from './clock';
export * from './json-bounds';
export * from './rate-limit';
export * from './lru-map';
export * from './text';
export * from './settings';
