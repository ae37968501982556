/* eslint-disable */
// Generated from proto-contracts/schemas/*/ by scripts/generate-contracts.js. Do not edit by hand.

import s0 from '../../../proto-contracts/schemas/audit/audit-checkpoint.schema.json';
import s1 from '../../../proto-contracts/schemas/audit/audit-head.schema.json';
import s2 from '../../../proto-contracts/schemas/audit/audit-query.schema.json';
import s3 from '../../../proto-contracts/schemas/audit/audit-verification.schema.json';
import s4 from '../../../proto-contracts/schemas/audit/decision-audit-record.schema.json';
import s5 from '../../../proto-contracts/schemas/callers/artifact-ingest-request.schema.json';
import s6 from '../../../proto-contracts/schemas/callers/caller-artifact-get-request.schema.json';
import s7 from '../../../proto-contracts/schemas/callers/caller-run-cancel-request.schema.json';
import s8 from '../../../proto-contracts/schemas/callers/caller-run-events-request.schema.json';
import s9 from '../../../proto-contracts/schemas/callers/caller-run-events.schema.json';
import s10 from '../../../proto-contracts/schemas/callers/caller-run-query.schema.json';
import s11 from '../../../proto-contracts/schemas/callers/caller-run.schema.json';
import s12 from '../../../proto-contracts/schemas/campaigns/campaign-answer-request.schema.json';
import s13 from '../../../proto-contracts/schemas/campaigns/campaign-command-request.schema.json';
import s14 from '../../../proto-contracts/schemas/campaigns/campaign-create-request.schema.json';
import s15 from '../../../proto-contracts/schemas/campaigns/campaign-leads-import-request.schema.json';
import s16 from '../../../proto-contracts/schemas/campaigns/campaign-view.schema.json';
import s17 from '../../../proto-contracts/schemas/events/agent-profile-published.schema.json';
import s18 from '../../../proto-contracts/schemas/events/agent-requested.schema.json';
import s19 from '../../../proto-contracts/schemas/events/agent-run-requested.schema.json';
import s20 from '../../../proto-contracts/schemas/events/approval-decided.schema.json';
import s21 from '../../../proto-contracts/schemas/events/approval-expired.schema.json';
import s22 from '../../../proto-contracts/schemas/events/approval-refused.schema.json';
import s23 from '../../../proto-contracts/schemas/events/approval-requested.schema.json';
import s24 from '../../../proto-contracts/schemas/events/artifact-access-denied.schema.json';
import s25 from '../../../proto-contracts/schemas/events/artifact-ingest-audited.schema.json';
import s26 from '../../../proto-contracts/schemas/events/artifact-persisted.schema.json';
import s27 from '../../../proto-contracts/schemas/events/artifact-stored.schema.json';
import s28 from '../../../proto-contracts/schemas/events/audit-chain-batch.schema.json';
import s29 from '../../../proto-contracts/schemas/events/audit-chain-entry.schema.json';
import s30 from '../../../proto-contracts/schemas/events/audit-signing-key-published.schema.json';
import s31 from '../../../proto-contracts/schemas/events/authz-decided.schema.json';
import s32 from '../../../proto-contracts/schemas/events/campaign-completed.schema.json';
import s33 from '../../../proto-contracts/schemas/events/campaign-created.schema.json';
import s34 from '../../../proto-contracts/schemas/events/campaign-cycles-requested.schema.json';
import s35 from '../../../proto-contracts/schemas/events/campaign-paused.schema.json';
import s36 from '../../../proto-contracts/schemas/events/campaign-started.schema.json';
import s37 from '../../../proto-contracts/schemas/events/child-run-started.schema.json';
import s38 from '../../../proto-contracts/schemas/events/cycle-aborted.schema.json';
import s39 from '../../../proto-contracts/schemas/events/cycle-completed.schema.json';
import s40 from '../../../proto-contracts/schemas/events/cycle-started.schema.json';
import s41 from '../../../proto-contracts/schemas/events/db-write-audited.schema.json';
import s42 from '../../../proto-contracts/schemas/events/dead-letter-retried.schema.json';
import s43 from '../../../proto-contracts/schemas/events/decision-recorded.schema.json';
import s44 from '../../../proto-contracts/schemas/events/effect-claimed.schema.json';
import s45 from '../../../proto-contracts/schemas/events/effect-released.schema.json';
import s46 from '../../../proto-contracts/schemas/events/export-assembled.schema.json';
import s47 from '../../../proto-contracts/schemas/events/export-authorized.schema.json';
import s48 from '../../../proto-contracts/schemas/events/export-finalized.schema.json';
import s49 from '../../../proto-contracts/schemas/events/item-executed.schema.json';
import s50 from '../../../proto-contracts/schemas/events/leads-analyzed.schema.json';
import s51 from '../../../proto-contracts/schemas/events/leads-imported.schema.json';
import s52 from '../../../proto-contracts/schemas/events/message-dead-lettered.schema.json';
import s53 from '../../../proto-contracts/schemas/events/message-exchanged.schema.json';
import s54 from '../../../proto-contracts/schemas/events/operator-action-decided.schema.json';
import s55 from '../../../proto-contracts/schemas/events/policy-file-published.schema.json';
import s56 from '../../../proto-contracts/schemas/events/promotion-audited.schema.json';
import s57 from '../../../proto-contracts/schemas/events/promotion-refused.schema.json';
import s58 from '../../../proto-contracts/schemas/events/proposal-recorded.schema.json';
import s59 from '../../../proto-contracts/schemas/events/run-cancel-requested.schema.json';
import s60 from '../../../proto-contracts/schemas/events/run-cancelled.schema.json';
import s61 from '../../../proto-contracts/schemas/events/run-completed.schema.json';
import s62 from '../../../proto-contracts/schemas/events/run-created.schema.json';
import s63 from '../../../proto-contracts/schemas/events/run-denied.schema.json';
import s64 from '../../../proto-contracts/schemas/events/run-failed.schema.json';
import s65 from '../../../proto-contracts/schemas/events/run-resolved.schema.json';
import s66 from '../../../proto-contracts/schemas/events/run-started.schema.json';
import s67 from '../../../proto-contracts/schemas/events/session-accounted.schema.json';
import s68 from '../../../proto-contracts/schemas/events/session-finished.schema.json';
import s69 from '../../../proto-contracts/schemas/events/session-llm-completed.schema.json';
import s70 from '../../../proto-contracts/schemas/events/session-llm-requested.schema.json';
import s71 from '../../../proto-contracts/schemas/events/session-noted.schema.json';
import s72 from '../../../proto-contracts/schemas/events/session-requested.schema.json';
import s73 from '../../../proto-contracts/schemas/events/session-started.schema.json';
import s74 from '../../../proto-contracts/schemas/events/session-tool-completed.schema.json';
import s75 from '../../../proto-contracts/schemas/events/session-tool-requested.schema.json';
import s76 from '../../../proto-contracts/schemas/events/step-compensated.schema.json';
import s77 from '../../../proto-contracts/schemas/events/step-completed.schema.json';
import s78 from '../../../proto-contracts/schemas/events/task-created.schema.json';
import s79 from '../../../proto-contracts/schemas/events/task-selected.schema.json';
import s80 from '../../../proto-contracts/schemas/events/task-selection-refused.schema.json';
import s81 from '../../../proto-contracts/schemas/events/task-status-changed.schema.json';
import s82 from '../../../proto-contracts/schemas/events/tool-call-audited.schema.json';
import s83 from '../../../proto-contracts/schemas/events/tool-call-recorded.schema.json';
import s84 from '../../../proto-contracts/schemas/events/tool-call-requested.schema.json';
import s85 from '../../../proto-contracts/schemas/events/tool-executed.schema.json';
import s86 from '../../../proto-contracts/schemas/governance/artifact_ref.schema.json';
import s87 from '../../../proto-contracts/schemas/governance/audit_event.schema.json';
import s88 from '../../../proto-contracts/schemas/governance/case-id.schema.json';
import s89 from '../../../proto-contracts/schemas/governance/export_bundle.schema.json';
import s90 from '../../../proto-contracts/schemas/governance/lanes.schema.json';
import s91 from '../../../proto-contracts/schemas/governance/roles.schema.json';
import s92 from '../../../proto-contracts/schemas/governance/run_record.schema.json';
import s93 from '../../../proto-contracts/schemas/governed-runs/agent-run-request.schema.json';
import s94 from '../../../proto-contracts/schemas/governed-runs/agent-run-response.schema.json';
import s95 from '../../../proto-contracts/schemas/governed-runs/artifact-get-request.schema.json';
import s96 from '../../../proto-contracts/schemas/governed-runs/artifact-get-result.schema.json';
import s97 from '../../../proto-contracts/schemas/governed-runs/artifact-put-request.schema.json';
import s98 from '../../../proto-contracts/schemas/governed-runs/export-request.schema.json';
import s99 from '../../../proto-contracts/schemas/governed-runs/export-result.schema.json';
import s100 from '../../../proto-contracts/schemas/governed-runs/promotion-request.schema.json';
import s101 from '../../../proto-contracts/schemas/governed-runs/promotion-result.schema.json';
import s102 from '../../../proto-contracts/schemas/operations/dead-letter-retry-request.schema.json';
import s103 from '../../../proto-contracts/schemas/operations/dead-letter.schema.json';
import s104 from '../../../proto-contracts/schemas/operations/dead-letters-list-result.schema.json';
import s105 from '../../../proto-contracts/schemas/proposals/analyze-leads.schema.json';
import s106 from '../../../proto-contracts/schemas/proposals/create-task.schema.json';
import s107 from '../../../proto-contracts/schemas/proposals/execute-tool.schema.json';
import s108 from '../../../proto-contracts/schemas/proposals/generate-message.schema.json';
import s109 from '../../../proto-contracts/schemas/proposals/no-op.schema.json';
import s110 from '../../../proto-contracts/schemas/proposals/persist-artifact.schema.json';
import s111 from '../../../proto-contracts/schemas/proposals/request-user-input.schema.json';
import s112 from '../../../proto-contracts/schemas/proposals/select-next-task.schema.json';
import s113 from '../../../proto-contracts/schemas/proposals/state-snapshot.schema.json';
import s114 from '../../../proto-contracts/schemas/proposals/validation-error.schema.json';
import s115 from '../../../proto-contracts/schemas/runs/event-envelope.schema.json';
import s116 from '../../../proto-contracts/schemas/runs/run-cancel-request.schema.json';
import s117 from '../../../proto-contracts/schemas/runs/run-cancel-result.schema.json';
import s118 from '../../../proto-contracts/schemas/runs/run-control-request.schema.json';
import s119 from '../../../proto-contracts/schemas/runs/run-control-result.schema.json';
import s120 from '../../../proto-contracts/schemas/runs/run-fork-request.schema.json';
import s121 from '../../../proto-contracts/schemas/runs/run-fork-result.schema.json';
import s122 from '../../../proto-contracts/schemas/runs/run-query.schema.json';
import s123 from '../../../proto-contracts/schemas/runs/run-summary.schema.json';
import s124 from '../../../proto-contracts/schemas/runs/runs-list-request.schema.json';
import s125 from '../../../proto-contracts/schemas/runs/runs-list-result.schema.json';
import s126 from '../../../proto-contracts/schemas/runs/runs-resolve-request.schema.json';
import s127 from '../../../proto-contracts/schemas/runs/runs-resolve-result.schema.json';
import s128 from '../../../proto-contracts/schemas/runs/sealed-value.schema.json';
import s129 from '../../../proto-contracts/schemas/runtime/db-read-request.schema.json';
import s130 from '../../../proto-contracts/schemas/runtime/db-result.schema.json';
import s131 from '../../../proto-contracts/schemas/runtime/db-write-request.schema.json';
import s132 from '../../../proto-contracts/schemas/runtime/governance-scope.schema.json';
import s133 from '../../../proto-contracts/schemas/runtime/run-error.schema.json';
import s134 from '../../../proto-contracts/schemas/runtime/tool-invocation-result.schema.json';
import s135 from '../../../proto-contracts/schemas/runtime/tool-invocation.schema.json';
import s136 from '../../../proto-contracts/schemas/runtime/transcription-result.schema.json';
import s137 from '../../../proto-contracts/schemas/sessions/session-get-request.schema.json';
import s138 from '../../../proto-contracts/schemas/sessions/session-reply.schema.json';
import s139 from '../../../proto-contracts/schemas/sessions/session-start-request.schema.json';
import s140 from '../../../proto-contracts/schemas/sessions/tool-list-reply.schema.json';
import s141 from '../../../proto-contracts/schemas/task-assistant/agent-decision-reply.schema.json';
import s142 from '../../../proto-contracts/schemas/task-assistant/classify-intent-request.schema.json';
import s143 from '../../../proto-contracts/schemas/task-assistant/decision-context.schema.json';
import s144 from '../../../proto-contracts/schemas/task-assistant/user-intent.schema.json';

/** Every contract schema with its path under proto-contracts/ (the key of a schema that has no $id). */
export const CONTRACT_SCHEMAS: ReadonlyArray<{ readonly path: string; readonly schema: object }> = [
  { path: 'schemas/audit/audit-checkpoint.schema.json', schema: s0 },
  { path: 'schemas/audit/audit-head.schema.json', schema: s1 },
  { path: 'schemas/audit/audit-query.schema.json', schema: s2 },
  { path: 'schemas/audit/audit-verification.schema.json', schema: s3 },
  { path: 'schemas/audit/decision-audit-record.schema.json', schema: s4 },
  { path: 'schemas/callers/artifact-ingest-request.schema.json', schema: s5 },
  { path: 'schemas/callers/caller-artifact-get-request.schema.json', schema: s6 },
  { path: 'schemas/callers/caller-run-cancel-request.schema.json', schema: s7 },
  { path: 'schemas/callers/caller-run-events-request.schema.json', schema: s8 },
  { path: 'schemas/callers/caller-run-events.schema.json', schema: s9 },
  { path: 'schemas/callers/caller-run-query.schema.json', schema: s10 },
  { path: 'schemas/callers/caller-run.schema.json', schema: s11 },
  { path: 'schemas/campaigns/campaign-answer-request.schema.json', schema: s12 },
  { path: 'schemas/campaigns/campaign-command-request.schema.json', schema: s13 },
  { path: 'schemas/campaigns/campaign-create-request.schema.json', schema: s14 },
  { path: 'schemas/campaigns/campaign-leads-import-request.schema.json', schema: s15 },
  { path: 'schemas/campaigns/campaign-view.schema.json', schema: s16 },
  { path: 'schemas/events/agent-profile-published.schema.json', schema: s17 },
  { path: 'schemas/events/agent-requested.schema.json', schema: s18 },
  { path: 'schemas/events/agent-run-requested.schema.json', schema: s19 },
  { path: 'schemas/events/approval-decided.schema.json', schema: s20 },
  { path: 'schemas/events/approval-expired.schema.json', schema: s21 },
  { path: 'schemas/events/approval-refused.schema.json', schema: s22 },
  { path: 'schemas/events/approval-requested.schema.json', schema: s23 },
  { path: 'schemas/events/artifact-access-denied.schema.json', schema: s24 },
  { path: 'schemas/events/artifact-ingest-audited.schema.json', schema: s25 },
  { path: 'schemas/events/artifact-persisted.schema.json', schema: s26 },
  { path: 'schemas/events/artifact-stored.schema.json', schema: s27 },
  { path: 'schemas/events/audit-chain-batch.schema.json', schema: s28 },
  { path: 'schemas/events/audit-chain-entry.schema.json', schema: s29 },
  { path: 'schemas/events/audit-signing-key-published.schema.json', schema: s30 },
  { path: 'schemas/events/authz-decided.schema.json', schema: s31 },
  { path: 'schemas/events/campaign-completed.schema.json', schema: s32 },
  { path: 'schemas/events/campaign-created.schema.json', schema: s33 },
  { path: 'schemas/events/campaign-cycles-requested.schema.json', schema: s34 },
  { path: 'schemas/events/campaign-paused.schema.json', schema: s35 },
  { path: 'schemas/events/campaign-started.schema.json', schema: s36 },
  { path: 'schemas/events/child-run-started.schema.json', schema: s37 },
  { path: 'schemas/events/cycle-aborted.schema.json', schema: s38 },
  { path: 'schemas/events/cycle-completed.schema.json', schema: s39 },
  { path: 'schemas/events/cycle-started.schema.json', schema: s40 },
  { path: 'schemas/events/db-write-audited.schema.json', schema: s41 },
  { path: 'schemas/events/dead-letter-retried.schema.json', schema: s42 },
  { path: 'schemas/events/decision-recorded.schema.json', schema: s43 },
  { path: 'schemas/events/effect-claimed.schema.json', schema: s44 },
  { path: 'schemas/events/effect-released.schema.json', schema: s45 },
  { path: 'schemas/events/export-assembled.schema.json', schema: s46 },
  { path: 'schemas/events/export-authorized.schema.json', schema: s47 },
  { path: 'schemas/events/export-finalized.schema.json', schema: s48 },
  { path: 'schemas/events/item-executed.schema.json', schema: s49 },
  { path: 'schemas/events/leads-analyzed.schema.json', schema: s50 },
  { path: 'schemas/events/leads-imported.schema.json', schema: s51 },
  { path: 'schemas/events/message-dead-lettered.schema.json', schema: s52 },
  { path: 'schemas/events/message-exchanged.schema.json', schema: s53 },
  { path: 'schemas/events/operator-action-decided.schema.json', schema: s54 },
  { path: 'schemas/events/policy-file-published.schema.json', schema: s55 },
  { path: 'schemas/events/promotion-audited.schema.json', schema: s56 },
  { path: 'schemas/events/promotion-refused.schema.json', schema: s57 },
  { path: 'schemas/events/proposal-recorded.schema.json', schema: s58 },
  { path: 'schemas/events/run-cancel-requested.schema.json', schema: s59 },
  { path: 'schemas/events/run-cancelled.schema.json', schema: s60 },
  { path: 'schemas/events/run-completed.schema.json', schema: s61 },
  { path: 'schemas/events/run-created.schema.json', schema: s62 },
  { path: 'schemas/events/run-denied.schema.json', schema: s63 },
  { path: 'schemas/events/run-failed.schema.json', schema: s64 },
  { path: 'schemas/events/run-resolved.schema.json', schema: s65 },
  { path: 'schemas/events/run-started.schema.json', schema: s66 },
  { path: 'schemas/events/session-accounted.schema.json', schema: s67 },
  { path: 'schemas/events/session-finished.schema.json', schema: s68 },
  { path: 'schemas/events/session-llm-completed.schema.json', schema: s69 },
  { path: 'schemas/events/session-llm-requested.schema.json', schema: s70 },
  { path: 'schemas/events/session-noted.schema.json', schema: s71 },
  { path: 'schemas/events/session-requested.schema.json', schema: s72 },
  { path: 'schemas/events/session-started.schema.json', schema: s73 },
  { path: 'schemas/events/session-tool-completed.schema.json', schema: s74 },
  { path: 'schemas/events/session-tool-requested.schema.json', schema: s75 },
  { path: 'schemas/events/step-compensated.schema.json', schema: s76 },
  { path: 'schemas/events/step-completed.schema.json', schema: s77 },
  { path: 'schemas/events/task-created.schema.json', schema: s78 },
  { path: 'schemas/events/task-selected.schema.json', schema: s79 },
  { path: 'schemas/events/task-selection-refused.schema.json', schema: s80 },
  { path: 'schemas/events/task-status-changed.schema.json', schema: s81 },
  { path: 'schemas/events/tool-call-audited.schema.json', schema: s82 },
  { path: 'schemas/events/tool-call-recorded.schema.json', schema: s83 },
  { path: 'schemas/events/tool-call-requested.schema.json', schema: s84 },
  { path: 'schemas/events/tool-executed.schema.json', schema: s85 },
  { path: 'schemas/governance/artifact_ref.schema.json', schema: s86 },
  { path: 'schemas/governance/audit_event.schema.json', schema: s87 },
  { path: 'schemas/governance/case-id.schema.json', schema: s88 },
  { path: 'schemas/governance/export_bundle.schema.json', schema: s89 },
  { path: 'schemas/governance/lanes.schema.json', schema: s90 },
  { path: 'schemas/governance/roles.schema.json', schema: s91 },
  { path: 'schemas/governance/run_record.schema.json', schema: s92 },
  { path: 'schemas/governed-runs/agent-run-request.schema.json', schema: s93 },
  { path: 'schemas/governed-runs/agent-run-response.schema.json', schema: s94 },
  { path: 'schemas/governed-runs/artifact-get-request.schema.json', schema: s95 },
  { path: 'schemas/governed-runs/artifact-get-result.schema.json', schema: s96 },
  { path: 'schemas/governed-runs/artifact-put-request.schema.json', schema: s97 },
  { path: 'schemas/governed-runs/export-request.schema.json', schema: s98 },
  { path: 'schemas/governed-runs/export-result.schema.json', schema: s99 },
  { path: 'schemas/governed-runs/promotion-request.schema.json', schema: s100 },
  { path: 'schemas/governed-runs/promotion-result.schema.json', schema: s101 },
  { path: 'schemas/operations/dead-letter-retry-request.schema.json', schema: s102 },
  { path: 'schemas/operations/dead-letter.schema.json', schema: s103 },
  { path: 'schemas/operations/dead-letters-list-result.schema.json', schema: s104 },
  { path: 'schemas/proposals/analyze-leads.schema.json', schema: s105 },
  { path: 'schemas/proposals/create-task.schema.json', schema: s106 },
  { path: 'schemas/proposals/execute-tool.schema.json', schema: s107 },
  { path: 'schemas/proposals/generate-message.schema.json', schema: s108 },
  { path: 'schemas/proposals/no-op.schema.json', schema: s109 },
  { path: 'schemas/proposals/persist-artifact.schema.json', schema: s110 },
  { path: 'schemas/proposals/request-user-input.schema.json', schema: s111 },
  { path: 'schemas/proposals/select-next-task.schema.json', schema: s112 },
  { path: 'schemas/proposals/state-snapshot.schema.json', schema: s113 },
  { path: 'schemas/proposals/validation-error.schema.json', schema: s114 },
  { path: 'schemas/runs/event-envelope.schema.json', schema: s115 },
  { path: 'schemas/runs/run-cancel-request.schema.json', schema: s116 },
  { path: 'schemas/runs/run-cancel-result.schema.json', schema: s117 },
  { path: 'schemas/runs/run-control-request.schema.json', schema: s118 },
  { path: 'schemas/runs/run-control-result.schema.json', schema: s119 },
  { path: 'schemas/runs/run-fork-request.schema.json', schema: s120 },
  { path: 'schemas/runs/run-fork-result.schema.json', schema: s121 },
  { path: 'schemas/runs/run-query.schema.json', schema: s122 },
  { path: 'schemas/runs/run-summary.schema.json', schema: s123 },
  { path: 'schemas/runs/runs-list-request.schema.json', schema: s124 },
  { path: 'schemas/runs/runs-list-result.schema.json', schema: s125 },
  { path: 'schemas/runs/runs-resolve-request.schema.json', schema: s126 },
  { path: 'schemas/runs/runs-resolve-result.schema.json', schema: s127 },
  { path: 'schemas/runs/sealed-value.schema.json', schema: s128 },
  { path: 'schemas/runtime/db-read-request.schema.json', schema: s129 },
  { path: 'schemas/runtime/db-result.schema.json', schema: s130 },
  { path: 'schemas/runtime/db-write-request.schema.json', schema: s131 },
  { path: 'schemas/runtime/governance-scope.schema.json', schema: s132 },
  { path: 'schemas/runtime/run-error.schema.json', schema: s133 },
  { path: 'schemas/runtime/tool-invocation-result.schema.json', schema: s134 },
  { path: 'schemas/runtime/tool-invocation.schema.json', schema: s135 },
  { path: 'schemas/runtime/transcription-result.schema.json', schema: s136 },
  { path: 'schemas/sessions/session-get-request.schema.json', schema: s137 },
  { path: 'schemas/sessions/session-reply.schema.json', schema: s138 },
  { path: 'schemas/sessions/session-start-request.schema.json', schema: s139 },
  { path: 'schemas/sessions/tool-list-reply.schema.json', schema: s140 },
  { path: 'schemas/task-assistant/agent-decision-reply.schema.json', schema: s141 },
  { path: 'schemas/task-assistant/classify-intent-request.schema.json', schema: s142 },
  { path: 'schemas/task-assistant/decision-context.schema.json', schema: s143 },
  { path: 'schemas/task-assistant/user-intent.schema.json', schema: s144 },
];
