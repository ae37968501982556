export * from './policy-catalog';
export { CALLER_GRANTS, callerGrantsFile, loadCallerGrants } from './caller-grants';
export { loadOperatorRoles, OPERATOR_IDENTITY, OperatorActions, operatorRequestId, operatorRolesFile, type OperatorAsk, type OperatorGrant } from './operator-actions';
