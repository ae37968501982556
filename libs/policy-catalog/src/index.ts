export * from './policy-catalog';
export { CALLER_GRANTS, callerGrantsFile, loadCallerGrants } from './caller-grants';
