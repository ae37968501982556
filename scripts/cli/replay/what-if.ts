/**
 * `runledger replay --policy DIR [--since ISO] [--until ISO]`: every AuthzDecided recorded in the time range,
 * decided again under the lanes.yaml and roles.yaml in DIR, and the decisions that would change, grouped by change,
 * agent, lane, action and rule (one line per kind, with its count and an example run; --json lists every one). A file
 * that keeps a version the log holds with other content is warned about: it is not the policy runs pinned to it got.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { loadPolicy, PolicyError, PolicySet, RecordedAuthz, redecide } from '@runledger/governance';
import { table, time } from '../format';
import { CliError, fileProblem, inputPath, json, ParsedArgs, timeRange } from '../operator';
import { scanLog } from '../progress';

interface Change {
  change: 'allow→deny' | 'deny→allow';
  run_id: string;
  root_run_id: string | null;
  agent_name: string;
  lane: string;
  action: string;
  code?: string;
  reason?: string;
  recorded_at: string;
  reconstructed: boolean;
}

/** Changes that differ only in their run: one line each for a person (by change, agent, lane, action and rule). */
interface ChangeGroup {
  change: Change['change'];
  agent_name: string;
  lane: string;
  action: string;
  code: string | null;
  runs: number;
  reconstructed: number;
  first_recorded_at: string;
  last_recorded_at: string;
  example_run_id: string;
}

export function groupChanges(changes: readonly Change[]): ChangeGroup[] {
  const groups = new Map<string, ChangeGroup>();
  for (const c of changes) {
    const key = JSON.stringify([c.change, c.agent_name, c.lane, c.action, c.code ?? null]);
    const g = groups.get(key);
    if (!g) {
      groups.set(key, { change: c.change, agent_name: c.agent_name, lane: c.lane, action: c.action, code: c.code ?? null, runs: 1, reconstructed: c.reconstructed ? 1 : 0, first_recorded_at: c.recorded_at, last_recorded_at: c.recorded_at, example_run_id: c.run_id });
      continue;
    }
    g.runs++;
    if (c.reconstructed) g.reconstructed++;
    if (c.recorded_at < g.first_recorded_at) g.first_recorded_at = c.recorded_at;
    if (c.recorded_at > g.last_recorded_at) g.last_recorded_at = c.recorded_at;
  }
  return [...groups.values()].sort((a, b) => b.runs - a.runs || a.change.localeCompare(b.change) || a.agent_name.localeCompare(b.agent_name));
}

interface PolicyFiles {
  lanes: string;
  roles: string;
}

/** A what-if, decided before connecting: the policy read and validated from its folder, and the time range. */
export interface WhatIfRequest {
  dir: string;
  policy: PolicySet;
  files: PolicyFiles;
  since?: string;
  until?: string;
  json: boolean;
}

/** `--policy DIR [--since ISO] [--until ISO]`: a folder that does not hold a valid policy, or a time that is none, is a usage error (exit 2). */
export function whatIfRequest(p: ParsedArgs, usage: string): WhatIfRequest {
  const dir = inputPath(p, 'policy', usage, 'folder')!;
  const { since, until } = timeRange(p, usage);
  try {
    const files = { lanes: readFileSync(join(dir, 'lanes.yaml'), 'utf8'), roles: readFileSync(join(dir, 'roles.yaml'), 'utf8') };
    return { dir, policy: loadPolicy({ lanesYaml: files.lanes, rolesYaml: files.roles }), files, since, until, json: p.flags.has('json') };
  } catch (err) {
    if (err instanceof PolicyError) throw new CliError(`the policy in ${dir} is not valid:\n  ${err.problems.join('\n  ')}\n${usage}`, 2);
    throw new CliError(`--policy ${dir}: cannot read its lanes.yaml and roles.yaml (${fileProblem(err)})\n${usage}`, 2);
  }
}

export async function whatIf(nc: NatsConnection, request: WhatIfRequest): Promise<number> {
  const { dir, policy, files } = request;
  // A version names one content: a changed file that kept a published version is not what runs pinned to it got.
  const published = new Map<string, string>();
  await scanLog(nc, 'rl.log.policy.*', 'policies ', (e) => {
    const d = e.data as { file?: string; version?: string; yaml?: string };
    if (e.type === 'PolicyFilePublished' && d.file && d.version && typeof d.yaml === 'string' && !published.has(`${d.file}@${d.version}`)) published.set(`${d.file}@${d.version}`, d.yaml);
  });
  const warnings = (['lanes', 'roles'] as const).flatMap((file) => {
    const version = policy.versions[file];
    const before = published.get(`${file}@${version}`);
    return before !== undefined && before !== files[file]
      ? [`${file}.yaml in ${dir} keeps version ${version}, which the log holds with other content: runs pinned to ${version} were decided under the published file, not this one; give the changed policy a new version`]
      : [];
  });
  for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
  const since = request.since === undefined ? null : Date.parse(request.since);
  const until = request.until === undefined ? null : Date.parse(request.until);
  const runs = new Map<string, RecordedAuthz['run'] & { root_run_id: string | null }>();
  const changes: Change[] = [];
  const counts = { redecided: 0, unchanged: 0, skipped: {} as Record<string, number> };
  await scanLog(nc, 'rl.log.run.>', 'what-if  ', (e) => {
    const d = e.data as Record<string, unknown>;
    if (e.type === 'RunCreated') {
      runs.set(e.metadata.stream_id, { ...(d as unknown as RecordedAuthz['run']), root_run_id: (d.root_run_id as string) ?? null });
      return;
    }
    if (e.type !== 'AuthzDecided') return;
    const at = Date.parse(e.metadata.recorded_at);
    if ((since !== null && at < since) || (until !== null && at >= until)) return;
    const run = runs.get(e.metadata.stream_id);
    if (!run) return;
    const r = redecide(policy, { run_id: e.metadata.stream_id, run, ...(d as Omit<RecordedAuthz, 'run_id' | 'run'>) });
    if (r.outcome === 'skipped') {
      counts.skipped[r.why] = (counts.skipped[r.why] ?? 0) + 1;
      return;
    }
    counts.redecided++;
    if (r.outcome === 'same') {
      counts.unchanged++;
      return;
    }
    changes.push({
      change: r.from === 'allow' ? 'allow→deny' : 'deny→allow', run_id: e.metadata.stream_id, root_run_id: run.root_run_id, agent_name: run.agent_name,
      lane: String(d.lane ?? run.lane ?? ''), action: String(d.action ?? ''), ...(r.code ? { code: r.code, reason: r.reason } : {}),
      recorded_at: e.metadata.recorded_at, reconstructed: r.reconstructed,
    });
  });
  const summary = {
    policy: policy.versions, since: request.since ?? null, until: request.until ?? null, redecided: counts.redecided, unchanged: counts.unchanged,
    allow_to_deny: changes.filter((c) => c.change === 'allow→deny').length, deny_to_allow: changes.filter((c) => c.change === 'deny→allow').length, skipped: counts.skipped,
  };
  const groups = groupChanges(changes);
  if (request.json) return (json({ ...summary, warnings, groups, changes }), 0);
  process.stdout.write(`what-if under ${policy.versions.lanes} / ${policy.versions.roles}: re-decided ${summary.redecided} recorded authorization(s)${summary.since || summary.until ? ` recorded from ${summary.since ?? 'the start'} until ${summary.until ?? 'now'}` : ''}\n`);
  process.stdout.write(`  ${summary.allow_to_deny} allow→deny, ${summary.deny_to_allow} deny→allow, ${summary.unchanged} unchanged`);
  const skipped = Object.entries(counts.skipped).map(([why, n]) => `${n} ${why}`).join(', ');
  process.stdout.write(skipped ? `; not re-decided: ${skipped}\n` : '\n');
  if (changes.length) {
    process.stdout.write(table(['CHANGE', 'AGENT', 'LANE', 'ACTION', 'WHY', 'RUNS', 'FIRST (UTC)', 'LAST (UTC)', 'EXAMPLE RUN'], groups.map((g) => [
      g.change, g.agent_name, g.lane, g.action, `${g.code ?? ''}${g.reconstructed ? ` (${g.reconstructed} with inputs rebuilt from the run)` : ''}`,
      String(g.runs), time(g.first_recorded_at), time(g.last_recorded_at), g.example_run_id,
    ])));
    process.stdout.write(`${groups.length} kind(s) of change over ${changes.length} decision(s); --json lists every one\n`);
  } else process.stdout.write('no decision would change\n');
  return 0;
}
