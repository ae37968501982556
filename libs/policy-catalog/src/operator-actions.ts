import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { aggregateRef, EventLog } from '@runledger/event-log';
import { decideOperatorAction, type OperatorAction, type OperatorRoles, parseOperatorRoles } from '@runledger/governance';
import { AppError, settingText, sha256Hex } from '@runledger/kernel';
import { REQUEST_ID_HEADER, type RequestContext } from '@runledger/messaging';
import { parse } from 'yaml';
import { defaultPolicyDir, publishPolicyFile } from './policy-catalog';

/** The shipped policy/operators.yaml; OPERATOR_ROLES_FILE overrides. */
export function operatorRolesFile(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(settingText('OPERATOR_ROLES_FILE', env) ?? join(dirname(defaultPolicyDir({})), 'operators.yaml'));
}

/**
 * The identity every operator action is taken as. A request's reply inbox is the sender's to name, so it proves
 * nothing; what the bus enforces is who may publish: deploy/nats/permissions.yaml lets only `operator` (and the
 * admin, who holds every right on the bus) publish the operator subjects (rl.runs.cancel, rl.runs.fork,
 * rl.runs.resolve, rl.deadletters.retry, agents.campaign.answer), and scripts/lib/permissions.js refuses a table
 * that lets any other identity publish one. So a request on them is `operator`'s, and a role for any other identity
 * could never apply: loadOperatorRoles refuses such a file.
 */
export const OPERATOR_IDENTITY = 'operator';

/** The operators' roles and the file's text, or an error naming every problem: a service does not start on a bad file. */
export function loadOperatorRoles(file = operatorRolesFile()): { policy: OperatorRoles; yaml: string } {
  const yaml = readFileSync(file, 'utf8');
  const parsed = parseOperatorRoles(parse(yaml) as unknown);
  if (!parsed.ok) throw new Error(`${file} is not valid: ${parsed.problems.join('; ')}`);
  const others = Object.keys(parsed.policy.identities).filter((identity) => identity !== OPERATOR_IDENTITY);
  if (others.length) {
    throw new Error(`${file} is not valid: identities ${others.join(', ')}: only ${OPERATOR_IDENTITY} may publish the operator subjects (deploy/nats/permissions.yaml), so only ${OPERATOR_IDENTITY} may have a role`);
  }
  return { policy: parsed.policy, yaml };
}

/** What an operator asks for: the action, what it acts on, for whom and why. */
export interface OperatorAsk {
  action: OperatorAction;
  /** The request's own id (its Rl-Request-Id, the same on each retry; see operatorRequestId): the decision is recorded once per request. */
  request_id?: string;
  /** The person the identity acts for, as the request names them (requested_by, approver id). */
  requested_by: string;
  reason?: string;
  /** What the action is on: run_id, dead_letter_id, campaign_id and item_id. */
  target: Record<string, string>;
}

/** Recorded on the action's own events beside who and why. */
export interface OperatorGrant {
  identity: string;
  role: string;
  policy_version: string;
}

/**
 * The check every operator action passes where it is executed (decision, audit-ledger): the identity's role in the
 * pinned operators' policy must grant the action. Each decision, granted or refused, is recorded first as
 * OperatorActionDecided on rl.log.operator.<identity>; a refusal is OPERATOR.ACTION_NOT_GRANTED and nothing else.
 */
export class OperatorActions {
  constructor(private readonly log: EventLog, readonly policy: OperatorRoles, private readonly yaml: string) {}

  /**
   * Publishes this version to the log, or finds it there with this very text (decision and audit-ledger both, so
   * whichever starts first fixes a version's content): a changed file that kept its version is refused
   * (POLICY.INVALID) and the service does not start.
   */
  start(): Promise<void> {
    return publishPolicyFile(this.log, 'operators', this.policy.version, this.yaml);
  }

  async authorize(ask: OperatorAsk): Promise<OperatorGrant> {
    const identity = OPERATOR_IDENTITY;
    const verdict = decideOperatorAction(this.policy, identity, ask.action);
    const data = {
      action: ask.action, identity, role: verdict.role, requested_by: ask.requested_by, ...(ask.reason ? { reason: ask.reason } : {}),
      target: ask.target, policy_version: this.policy.version, granted: verdict.granted,
      ...(verdict.granted ? {} : { error_code: 'OPERATOR.ACTION_NOT_GRANTED', message: verdict.reason }),
    };
    // A retried request (the same request id) records its decision once; a request without an id is its own.
    const commandId = `operator-action:${ask.request_id ? sha256Hex(JSON.stringify([ask.request_id, ask.action, ask.target])) : randomUUID()}`;
    await this.log.append(aggregateRef('operator', identity), [{ type: 'OperatorActionDecided', data }], { commandId });
    if (!verdict.granted) throw new AppError('OPERATOR.ACTION_NOT_GRANTED', verdict.reason);
    return { identity, role: verdict.role, policy_version: this.policy.version };
  }
}

/** A request's own id: its Rl-Request-Id header (clients send the same one on each retry), if it has one. */
export function operatorRequestId(ctx: RequestContext | undefined): string | undefined {
  return ctx?.headers?.get(REQUEST_ID_HEADER).slice(0, 128) || undefined;
}
