/**
 * Many recorded runs in little time: each is the opening and outcome a worker records (RunCreated, AuthzDecided,
 * RunStarted, RunCompleted or RunFailed), appended through RunRepository like any writer, so operator
 * commands can be tried against thousands of runs without carrying thousands of requests.
 */
import { createHash, randomUUID } from 'node:crypto';
import { RunRepository } from '@runledger/runs';
import type { TestStack } from './stack';

export interface SeedOptions {
  agent: string;
  count: number;
  /** Indexes of the runs that fail (TOOL.FAILED). */
  failing?: number[];
  /** Indexes of the runs left open: started, no outcome (as if their worker were still carrying them). */
  open?: number[];
  case_id?: string;
  user_id?: string;
}

export async function seedRuns(stack: TestStack, o: SeedOptions): Promise<string[]> {
  const repo = new RunRepository(stack.log);
  const versions = { lanes: 'seed', roles: 'seed' };
  const ids = Array.from({ length: o.count }, () => randomUUID());
  const one = async (run_id: string, i: number) => {
    const outcome = o.failing?.includes(i)
      ? { type: 'RunFailed', data: { error: { error_code: 'TOOL.FAILED', message: `seeded failure ${i}`, retryable: false } } }
      : { type: 'RunCompleted', data: { output_artifacts: [], result: { i } } };
    await repo.append({ run_id, root_run_id: run_id, ...(o.case_id ? { case_id: o.case_id } : {}) }, [
      { type: 'RunCreated', data: { run_id, run_kind: 'agent', agent_name: o.agent, root_run_id: run_id, ...(o.case_id ? { case_id: o.case_id } : {}), ...(o.user_id ? { user_id: o.user_id } : {}), contract_version: 'v1', policy_versions: versions, input_artifacts: [], parameters: { i }, request_hash_sha256: createHash('sha256').update(run_id).digest('hex') } },
      { type: 'AuthzDecided', data: { decision: 'allow', action: 'agent.run.start', policy_versions: versions } },
      { type: 'RunStarted', data: {} },
      ...(o.open?.includes(i) ? [] : [outcome]),
    ], { expectedVersion: 0, commandId: `seed:${run_id}` });
  };
  for (let i = 0; i < ids.length; i += 25) await Promise.all(ids.slice(i, i + 25).map((id, j) => one(id, i + j)));
  return ids;
}
