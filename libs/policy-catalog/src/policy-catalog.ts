import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { aggregateRef, EventLog } from '@runledger/event-log';
import { loadPolicy, PolicyRegistry, PolicySet, PolicyVersions } from '@runledger/governance';
import { AppError, settingText, sha256Hex } from '@runledger/kernel';

export type PolicyFileName = 'lanes' | 'roles' | 'operators';

/** Where the versioned policy files live; POLICY_DIR overrides (operators roll out a new version there). */
export function defaultPolicyDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(settingText('POLICY_DIR', env) ?? join(__dirname, '..', '..', '..', 'policy', 'contract-v1'));
}

interface PolicyFilePublished {
  file: PolicyFileName;
  version: string;
  yaml: string;
}

/**
 * The policy versions a service can check against. The current files are validated at start (a bad policy
 * stops the service) and each file version is published into the log, so a run that pinned an older version
 * is still checked against exactly that version after the files change — on any instance, after any restart.
 */
export class PolicyCatalog {
  private readonly registry = new PolicyRegistry();
  private current!: PolicySet;

  constructor(private readonly log: EventLog, private readonly dir = defaultPolicyDir()) {}

  /** Loads and validates the files, registers and publishes them. Throws PolicyError on an invalid policy. */
  async start(): Promise<PolicySet> {
    const lanesYaml = readFileSync(join(this.dir, 'lanes.yaml'), 'utf8');
    const rolesYaml = readFileSync(join(this.dir, 'roles.yaml'), 'utf8');
    this.current = this.registry.add(loadPolicy({ lanesYaml, rolesYaml }));
    await publishPolicyFile(this.log, 'lanes', this.current.versions.lanes, lanesYaml);
    await publishPolicyFile(this.log, 'roles', this.current.versions.roles, rolesYaml);
    return this.current;
  }

  /** The versions a new run pins. */
  currentVersions(): PolicyVersions {
    return this.current.versions;
  }

  /** The policy pinned by a run: from memory, or rebuilt from the published files in the log. */
  async resolve(versions: PolicyVersions): Promise<PolicySet> {
    const held = this.registry.get(versions);
    if (held) return held;
    const [lanes, roles] = await Promise.all([this.readPublished('lanes', versions.lanes), this.readPublished('roles', versions.roles)]);
    if (!lanes || !roles) throw new AppError('POLICY.INVALID', 'The pinned policy version is not known.');
    return this.registry.add(loadPolicy({ lanesYaml: lanes, rolesYaml: roles }));
  }

  private readPublished(file: 'lanes' | 'roles', version: string): Promise<string | undefined> {
    return readPublishedPolicyFile(this.log, file, version);
  }
}

function policyRef(file: PolicyFileName, version: string) {
  // Versions contain dots; the subject token is a digest of the version name.
  return aggregateRef('policy', `${file}-${sha256Hex(version).slice(0, 24)}`);
}

/**
 * Publishes one policy file version to the log (once); a version published before with other content is refused
 * (POLICY.INVALID): versions are immutable, a change is a new version.
 */
export async function publishPolicyFile(log: EventLog, file: PolicyFileName, version: string, yaml: string): Promise<void> {
  const ref = policyRef(file, version);
  // Appended after whatever the subject holds (readAggregate): a message an identity had the server store there
  // first (a JetStream answer to a request's reply subject) must not stop every service from starting.
  const { events: existing, version: at } = await log.readAggregate(ref);
  if (existing.some((e) => (e.data as PolicyFilePublished).yaml === yaml)) return;
  if (existing.length > 0) {
    // The registry refuses the same version with other content; the log keeps the first one published.
    throw new AppError('POLICY.INVALID', `${file} version ${version} was published before with different content; bump the version.`);
  }
  await log.append(ref, [{ type: 'PolicyFilePublished', data: { file, version, yaml } satisfies PolicyFilePublished }], {
    commandId: `policy:${file}:${version}:${sha256Hex(yaml)}`,
    expectedVersion: at,
  }).catch(async (err) => {
    // Another service published the same file first: fine if the content matches.
    const again = await log.read(ref);
    if (!again.some((e) => (e.data as PolicyFilePublished).yaml === yaml)) throw err;
  });
}

/** The text of a published policy file version, if any. */
export async function readPublishedPolicyFile(log: EventLog, file: PolicyFileName, version: string): Promise<string | undefined> {
  const events = await log.read(policyRef(file, version));
  return (events[0]?.data as PolicyFilePublished | undefined)?.yaml;
}
