/** Typed bus clients for APIs that several services call (one place per API, not one copy per caller). */
export * from './artifact-client';
export * from './tool-client';
export * from './run-control';
