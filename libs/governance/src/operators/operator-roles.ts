/**
 * Operators' roles (policy/operators.yaml, issue 25): which operator actions each role may take, and the role of each
 * operator identity (the NATS identity an operator subject's request comes from). Pure: the loader parses the file's
 * text; these functions check shapes and decide. A version is immutable (the loader refuses a known version with
 * other content); an identity or action the file does not name is refused.
 */

/** Every action an operator takes on the stack; `runs cancel --filter` is one `cancel` per run; `resolve`: a resolver sweep now (rl.runs.resolve). */
export const OPERATOR_ACTIONS = ['cancel', 'fork', 'resolve', 'deadletter_retry', 'approve', 'reject', 'answer'] as const;
export type OperatorAction = (typeof OPERATOR_ACTIONS)[number];

export interface OperatorRoles {
  version: string;
  /** role name → the actions it grants */
  roles: Record<string, OperatorAction[]>;
  /** operator identity → role name */
  identities: Record<string, string>;
}

export type OperatorVerdict =
  | { granted: true; role: string }
  | { granted: false; role: string | null; reason: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The policy from the parsed file, or every problem found (a bad file stops the service at start). */
export function parseOperatorRoles(doc: unknown): { ok: true; policy: OperatorRoles } | { ok: false; problems: string[] } {
  if (!isRecord(doc)) return { ok: false, problems: ['the file is not a mapping'] };
  const problems: string[] = [];
  if (typeof doc.version !== 'string' || !doc.version) problems.push('version is missing');
  const roles: Record<string, OperatorAction[]> = {};
  for (const [name, raw] of Object.entries(isRecord(doc.roles) ? doc.roles : {})) {
    const actions = isRecord(raw) ? raw.actions : undefined;
    if (!Array.isArray(actions)) {
      problems.push(`role ${name}: needs actions (a list, empty for read-only)`);
      continue;
    }
    const unknown = actions.filter((a) => !(OPERATOR_ACTIONS as readonly unknown[]).includes(a));
    if (unknown.length) problems.push(`role ${name}: unknown action(s) ${unknown.join(', ')} (known: ${OPERATOR_ACTIONS.join(', ')})`);
    roles[name] = actions.filter((a): a is OperatorAction => (OPERATOR_ACTIONS as readonly unknown[]).includes(a));
  }
  if (!Object.keys(roles).length) problems.push('roles is missing or empty');
  const identities: Record<string, string> = {};
  for (const [identity, role] of Object.entries(isRecord(doc.identities) ? doc.identities : {})) {
    if (typeof role !== 'string' || !roles[role]) problems.push(`identity ${identity}: role ${String(role)} is not defined`);
    else identities[identity] = role;
  }
  return problems.length ? { ok: false, problems } : { ok: true, policy: { version: doc.version as string, roles, identities } };
}

/** May `identity` take `action`? Unknown identities and actions their role does not list are refused. */
export function decideOperatorAction(policy: OperatorRoles, identity: string | undefined, action: OperatorAction): OperatorVerdict {
  const role = identity ? policy.identities[identity] : undefined;
  if (!role) return { granted: false, role: null, reason: `Identity ${identity ?? '(unknown: the reply inbox names none)'} has no role in operators policy ${policy.version}.` };
  if (!policy.roles[role]!.includes(action)) return { granted: false, role, reason: `Role ${role} (operators policy ${policy.version}) may not ${action.replace('_', ' ')}.` };
  return { granted: true, role };
}
