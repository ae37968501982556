import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CallerGrants, parseCallerGrants } from '@runledger/governance';
import { settingText } from '@runledger/kernel';
import { parse } from 'yaml';
import { defaultPolicyDir } from './policy-catalog';

/** The shipped policy/callers.yaml (whatever POLICY_DIR says of the contract's files); CALLER_GRANTS_FILE overrides. */
export function callerGrantsFile(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(settingText('CALLER_GRANTS_FILE', env) ?? join(dirname(defaultPolicyDir({})), 'callers.yaml'));
}

/** The caller grants, or an error naming every problem: a service does not start on a bad file. */
export function loadCallerGrants(file = callerGrantsFile()): CallerGrants {
  const parsed = parseCallerGrants(parse(readFileSync(file, 'utf8')) as unknown);
  if (!parsed.ok) throw new Error(`${file} is not valid: ${parsed.problems.join('; ')}`);
  return parsed.grants;
}

/** The Nest injection token of the loaded caller grants (db-write's ingest, decision's run and session starts). */
export const CALLER_GRANTS = Symbol('CALLER_GRANTS');
