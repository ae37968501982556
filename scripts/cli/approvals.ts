/**
 * runledger approvals — campaign items waiting for a person, and the decision on one.
 *
 *   approvals list [--json]                                         items awaiting approval or an answer (from the log)
 *   approvals answer CAMPAIGN_ID ITEM_ID --approve|--reject [--reason TEXT] | --answer TEXT
 *                    [--approver ID] [--role ROLE] [--json]          decide (agents.campaign.answer)
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { SUBJECTS } from '../../libs/contracts/src/subjects';
import type { StoredEvent } from '@runledger/event-log';
import { CONNECTION_USAGE } from './connection';
import { LogFold } from './log-fold';
import { table, time } from './format';
import { ask, CliError, unknownCommand, json, parseArgs, runCommand, str, uuidArg, withConnection } from './operator';

export const USAGE = `usage: runledger approvals list [--json]
       runledger approvals answer CAMPAIGN_ID ITEM_ID (--approve | --reject) [--reason TEXT] [--approver ID] [--role ROLE] [--json]
       runledger approvals answer CAMPAIGN_ID ITEM_ID --answer TEXT [--approver ID] [--role ROLE] [--json]
       ${CONNECTION_USAGE}
  list     campaign items waiting for a person (generate_message, persist_artifact: approve or reject;
           request_user_input: answer), read from the log (rl.log.campaign.*)
  answer   decide one item as --approver (default $USER) with --role (default CAMPAIGN_OPERATOR), which the
           decision service checks against the campaign's pinned roles policy; --reason is recorded with the decision
exit codes: 0 done, 1 refused by the stack (its error code is printed), 2 usage or input the stack finds invalid
            (REQUEST.INVALID), 3 the stack cannot be reached or this identity
            may not ask (refused: …)`;

export interface PendingApproval {
  campaign_id: string;
  item_id: string;
  kind: string;
  cycle: number | null;
  proposal: unknown;
  requested_at: string;
  expires_at: string;
}

export interface Approver {
  id: string;
  role: string;
}

export type Decision = 'approved' | 'rejected' | 'answered';

/** Campaign items waiting for a person (ApprovalRequested, not yet decided or expired), folded from rl.log.campaign.*. Pure. */
export function evolvePendingApprovals(pending: Map<string, PendingApproval>, event: StoredEvent): Map<string, PendingApproval> {
  const d = (event.data ?? {}) as Record<string, unknown>;
  const key = `${event.metadata.stream_id}:${String(d.item_id)}`;
  if (event.type === 'ApprovalRequested') {
    pending.set(key, {
      campaign_id: event.metadata.stream_id, item_id: String(d.item_id), kind: String(d.kind ?? ''), cycle: typeof d.cycle === 'number' ? d.cycle : null,
      proposal: d.proposal ?? null, requested_at: event.metadata.recorded_at, expires_at: String(d.expires_at ?? ''),
    });
  } else if (event.type === 'ApprovalDecided' || event.type === 'ApprovalExpired') pending.delete(key);
  return pending;
}

/** Pending items read from the log as the operator, each read going on from where the last stopped (see LogFold). */
export class PendingApprovals {
  private readonly fold: LogFold<Map<string, PendingApproval>>;

  constructor(nc: NatsConnection) {
    this.fold = new LogFold(nc, 'rl.log.campaign.*', evolvePendingApprovals, new Map());
  }

  async read(): Promise<PendingApproval[]> {
    return [...(await this.fold.read()).values()].sort((a, b) => a.requested_at.localeCompare(b.requested_at));
  }
}

/** agents.campaign.answer as `approver`: the reply is the campaign's view after the decision. */
export function answerItem(nc: NatsConnection, approver: Approver, a: { campaign_id: string; item_id: string; decision: Decision; answer?: string }): Promise<unknown> {
  return ask(nc, SUBJECTS.campaignAnswer, { ...a, approver }, 120_000);
}

/** The approver from --approver / --role (defaults: $USER, CAMPAIGN_OPERATOR); a malformed role is a usage error. */
export function approverFrom(id: string | undefined, role: string | undefined, usage: string): Approver {
  const r = role ?? 'CAMPAIGN_OPERATOR';
  if (!/^[A-Z][A-Z0-9_]{1,63}$/.test(r)) throw new CliError(`--role must be a role name such as CAMPAIGN_OPERATOR\n${usage}`, 2);
  return { id: (id ?? process.env.USER ?? 'operator').slice(0, 256), role: r };
}

export function main(args: string[]): Promise<number> {
  return runCommand(async () => {
    const [sub, ...rest] = args;
    if (sub === 'list') {
      const p = parseArgs(rest, { valued: [], switches: ['json'] }, USAGE);
      return withConnection(p.conn, async (nc) => {
        const pending = await new PendingApprovals(nc).read();
        if (p.flags.has('json')) return (json({ pending }), 0);
        if (!pending.length) return (process.stdout.write('no items waiting\n'), 0);
        process.stdout.write(table(['CAMPAIGN', 'ITEM', 'KIND', 'CYCLE', 'REQUESTED (UTC)', 'EXPIRES (UTC)'], pending.map((a) => [a.campaign_id, a.item_id, a.kind, String(a.cycle ?? '-'), time(a.requested_at), time(a.expires_at)])));
        return 0;
      });
    }
    if (sub === 'answer') {
      const p = parseArgs(rest, { valued: ['reason', 'answer', 'approver', 'role'], switches: ['approve', 'reject', 'json'] }, USAGE);
      if (p.positional.length !== 2) throw new CliError(`approvals answer takes CAMPAIGN_ID ITEM_ID (see approvals list)\n${USAGE}`, 2);
      const chosen = (['approve', 'reject'] as const).filter((f) => p.flags.has(f));
      const text = str(p, 'answer');
      if (chosen.length + (text ? 1 : 0) !== 1) throw new CliError(`say one of --approve, --reject or --answer TEXT\n${USAGE}`, 2);
      const decision: Decision = text ? 'answered' : chosen[0] === 'approve' ? 'approved' : 'rejected';
      const note = text ?? str(p, 'reason');
      const approver = approverFrom(str(p, 'approver'), str(p, 'role'), USAGE);
      const [campaign_id, item_id] = p.positional;
      uuidArg(campaign_id, 'CAMPAIGN_ID', USAGE);
      uuidArg(item_id, 'ITEM_ID', USAGE);
      return withConnection(p.conn, async (nc) => {
        const view = await answerItem(nc, approver, { campaign_id, item_id, decision, ...(note ? { answer: note } : {}) });
        if (p.flags.has('json')) return (json(view), 0);
        process.stdout.write(`${decision} item ${item_id} of campaign ${campaign_id} as ${approver.id}\n`);
        return 0;
      });
    }
    throw unknownCommand(sub, USAGE);
  });
}
