export * from './contract-validator';
