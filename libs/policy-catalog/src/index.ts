export * from './policy-catalog';
