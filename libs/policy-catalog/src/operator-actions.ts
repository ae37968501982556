import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { aggregateRef, EventLog } from '@runledger/event-log';
import { decideOperatorAction, type OperatorAction, type OperatorRoles, parseOperatorRoles } from '@runledger/governance';
import { AppError, settingText } from '@runledger/kernel';
import { parse } from 'yaml';
import { defaultPolicyDir, publishPolicyFile, readPublishedPolicyFile } from './policy-catalog';

/** The shipped policy/operators.yaml; OPERATOR_ROLES_FILE overrides. */
export function operatorRolesFile(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(settingText('OPERATOR_ROLES_FILE', env) ?? join(dirname(defaultPolicyDir({})), 'operators.yaml'));
}

/** The operators' roles and the file's text, or an error naming every problem: a service does not start on a bad file. */
export function loadOperatorRoles(file = operatorRolesFile()): { policy: OperatorRoles; yaml: string } {
  const yaml = readFileSync(file, 'utf8');
  const parsed = parseOperatorRoles(parse(yaml) as unknown);
  if (!parsed.ok) throw new Error(`${file} is not valid: ${parsed.problems.join('; ')}`);
  return { policy: parsed.policy, yaml };
}

/** What an operator asks for: the action, what it acts on, for whom and why. */
export interface OperatorAsk {
  action: OperatorAction;
  /** The NATS identity the request comes from (its reply inbox's; see libs/messaging replyIdentity). */
  identity: string | undefined;
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
   * `publish`: put this version in the log (decision); else only check that the log's copy of this version, if
   * any, is this text (audit-ledger may not append policy files). Either way a changed file that kept its version
   * is refused and the service does not start.
   */
  async start(publish: boolean): Promise<void> {
    if (publish) return publishPolicyFile(this.log, 'operators', this.policy.version, this.yaml);
    const published = await readPublishedPolicyFile(this.log, 'operators', this.policy.version);
    if (published !== undefined && published !== this.yaml) throw new AppError('POLICY.INVALID', `operators version ${this.policy.version} was published before with different content; bump the version.`);
  }

  async authorize(ask: OperatorAsk): Promise<OperatorGrant> {
    const verdict = decideOperatorAction(this.policy, ask.identity, ask.action);
    const identity = ask.identity ?? 'unknown';
    const data = {
      action: ask.action, identity, role: verdict.role, requested_by: ask.requested_by, ...(ask.reason ? { reason: ask.reason } : {}),
      target: ask.target, policy_version: this.policy.version, granted: verdict.granted,
      ...(verdict.granted ? {} : { error_code: 'OPERATOR.ACTION_NOT_GRANTED', message: verdict.reason }),
    };
    await this.log.append(aggregateRef('operator', identity), [{ type: 'OperatorActionDecided', data }], { commandId: `operator-action:${randomUUID()}` });
    if (!verdict.granted) throw new AppError('OPERATOR.ACTION_NOT_GRANTED', verdict.reason);
    return { identity, role: verdict.role, policy_version: this.policy.version };
  }
}
