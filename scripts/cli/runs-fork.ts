/** runledger runs fork: rerun a governed run from one of its checkpoints under the same or another policy version (rl.runs.fork). */
import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import type { RunForkRequest, RunForkResult } from '../../libs/contracts/src/generated';
import { SUBJECTS } from '../../libs/contracts/src/subjects';
import { printable } from './format';
import { ask, CliError, json, ParsedArgs, str } from './operator';
import { isTerminalStatus } from '../../libs/governance/src/lifecycle/run-lifecycle';


/** The request, decided before connecting (a usage error is said first). */
export function forkRequest(runId: string, p: ParsedArgs, usage: string): RunForkRequest {
  const from = str(p, 'from');
  if (!from) throw new CliError(`runs fork needs --from STEP_ID (a completed step of the run, as runs show lists its StepCompleted events)\n${usage}`, 2);
  const policy = str(p, 'policy');
  const [lanes, roles, extra] = policy?.split('/') ?? [];
  if (policy !== undefined && (!lanes || !roles || extra !== undefined)) throw new CliError(`--policy is LANES_VERSION/ROLES_VERSION, e.g. lanes-2026.11.2/roles-2026.11.2\n${usage}`, 2);
  return {
    run_id: runId, from_step: from, request_id: str(p, 'request-id') ?? randomUUID(), requested_by: process.env.USER ?? 'operator',
    ...(lanes && roles ? { policy_versions: { lanes, roles } } : {}),
  };
}

export async function fork(nc: NatsConnection, request: RunForkRequest, p: ParsedArgs, timeoutS: number): Promise<number> {
  const res = await ask<RunForkResult>(nc, SUBJECTS.runsFork, request);
  let { status, error } = res;
  if (p.flags.has('wait')) {
    const deadline = Date.now() + timeoutS * 1_000;
    while (!isTerminalStatus(status)) {
      if (Date.now() > deadline) throw new CliError(`fork ${res.run_id} has no outcome yet (status ${status}); follow it with runledger runs show ${res.run_id}`, 1);
      await new Promise((r) => setTimeout(r, 250));
      ({ status, error } = await ask<Pick<RunForkResult, 'status' | 'error'>>(nc, SUBJECTS.runsGet, { run_id: res.run_id }));
    }
  }
  if (p.flags.has('json')) return (json({ ...res, status, ...(error ? { error } : {}), request_id: request.request_id }), 0);
  const pins = `lanes ${res.policy_versions.lanes} / roles ${res.policy_versions.roles}`;
  process.stdout.write(`fork ${res.run_id} of run ${res.forked_from.run_id} from step ${res.forked_from.checkpoint} under ${pins}${res.outcome === 'existing' ? ' (this request_id had forked it before)' : ''}\n`);
  process.stdout.write(`request id ${request.request_id} (repeat with --request-id to get the same fork)\n`);
  process.stdout.write(`${printable(`status ${status}${error ? `  ${error.error_code}: ${error.message}` : ''}`)}\n`);
  return 0;
}
