export * from './policy-catalog';
export { CALLER_GRANTS, callerGrantsFile, loadCallerGrants } from './caller-grants';
export { loadOperatorRoles, OperatorActions, operatorRolesFile, type OperatorAsk, type OperatorGrant } from './operator-actions';
