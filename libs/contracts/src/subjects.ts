/** Every request/reply subject, in one place; proto-contracts/asyncapi.yaml documents each. */
export const SUBJECTS = {
  taskAssistantProcess: 'agents.task-assistant.process',
  toolList: 'rl.tool.list',
  campaignCreate: 'agents.campaign.create',
  campaignLeadsImport: 'agents.campaign.leads.import',
  campaignStart: 'agents.campaign.start',
  campaignPause: 'agents.campaign.pause',
  campaignGet: 'agents.campaign.get',
  campaignCycle: 'agents.campaign.cycle',
  campaignRun: 'agents.campaign.run',
  campaignAnswer: 'agents.campaign.answer',
  runsGet: 'rl.runs.get',
  runsList: 'rl.runs.list',
  runsCancel: 'rl.runs.cancel',
  runsFork: 'rl.runs.fork',
  runsResolve: 'rl.runs.resolve',
  /** Issue 23: decision asks a run's owner (tool-gateway, db-write, promotion, export) to cancel or resolve one of its runs. */
  runsControl: (owner: string) => `rl.runs.control.${owner}`,
  deadLettersList: 'rl.deadletters.list',
  deadLettersRetry: 'rl.deadletters.retry',
  intentClassify: 'rl.intent.classify',
  toolInvoke: 'rl.tool.invoke',
  dbWrite: 'rl.db.write',
  dbRead: 'rl.db.read',
  artifactsPut: 'rl.artifacts.put',
  artifactsGet: 'rl.artifacts.get',
  promotionPromote: 'rl.promotion.promote',
  exportBundle: 'rl.export.bundle',
  auditQuery: 'rl.audit.query',
  auditVerify: 'rl.audit.verify',
  auditCoverage: 'rl.audit.coverage',
  auditHead: 'rl.audit.head',
  health: (service: string) => `rl.health.${service}`,
  /** A caller's own door (issue 26): served on the wildcard, sent on the caller's own name (see callerSubject). */
  callerRunsStart: 'rl.caller.*.runs.start',
  callerSessionsStart: 'rl.caller.*.sessions.start',
  callerSessionsGet: 'rl.caller.*.sessions.get',
  callerArtifactsIngest: 'rl.caller.*.artifacts.ingest',
  callerArtifactsGet: 'rl.caller.*.artifacts.get',
  callerRunsGet: 'rl.caller.*.runs.get',
  callerRunsEvents: 'rl.caller.*.runs.events',
  callerRunsCancel: 'rl.caller.*.runs.cancel',
  /** The task assistant and campaigns on a caller's door: what a caller makes there is its own (caller-scope.ts). */
  callerTaskAssistantProcess: 'rl.caller.*.task-assistant.process',
  callerCampaignCreate: 'rl.caller.*.campaign.create',
  callerCampaignLeadsImport: 'rl.caller.*.campaign.leads.import',
  callerCampaignStart: 'rl.caller.*.campaign.start',
  callerCampaignPause: 'rl.caller.*.campaign.pause',
  callerCampaignGet: 'rl.caller.*.campaign.get',
  callerCampaignCycle: 'rl.caller.*.campaign.cycle',
  callerCampaignRun: 'rl.caller.*.campaign.run',
} as const;

/** The door `op` of the caller `identity` (rl.caller.<identity>.<op>): the only subjects of it that identity may publish. */
export function callerSubject(identity: string, op: string): string {
  return `rl.caller.${identity}.${op}`;
}

/**
 * The calling identity a `rl.caller.<identity>.…` subject names. NATS lets each caller publish only on its own name
 * (deploy/nats/permissions.yaml `{caller}`), so a request that arrives there was sent by that identity.
 */
export function callerOfSubject(subject: string): string | undefined {
  const [rl, caller, identity] = subject.split('.');
  return rl === 'rl' && caller === 'caller' && identity && identity !== '*' ? identity : undefined;
}

/** Aggregate kinds of the log: `rl.log.<kind>.<id>`. */
export const LOG_KINDS = {
  run: 'run',
  conversation: 'conversation',
  inbox: 'inbox',
  audit: 'audit',
  deadletter: 'deadletter',
  campaign: 'campaign',
} as const;

export const SERVICES = ['intent-classification', 'decision', 'tool-gateway', 'db-write', 'promotion', 'export', 'audit-ledger'] as const;
export type ServiceName = (typeof SERVICES)[number];
