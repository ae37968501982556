import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { registerProfiles, type AgentProfile } from '@runledger/agent-session';
import { aggregateRef, EventLog } from '@runledger/event-log';
import { AppError, settingText, sha256Hex } from '@runledger/kernel';
import { canonicalJson } from '@runledger/governance';
import type { ServiceRuntime } from '@runledger/messaging';
import { Logger } from '@nestjs/common';

/** Where agent profiles live; AGENT_PROFILES_DIR overrides (one `<id>.json` per agent). */
export function defaultProfileDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(settingText('AGENT_PROFILES_DIR', env) ?? join(__dirname, '..', '..', '..', '..', '..', 'agents'));
}

interface ProfilePublished {
  id: string;
  version: string;
  sha256: string;
  profile: AgentProfile;
}

export interface PinnedProfile {
  profile: AgentProfile;
  sha256: string;
}

/**
 * Agent profiles as versioned definitions, handled like policies: the files are validated at start (an invalid
 * profile, a duplicate id or a changed profile that kept its version is refused alone and reported in the service's
 * health, while the other agents serve: INV-AGT-001/002), each version is published into the log, and a
 * session pins id, version and content hash at start, so it runs on exactly that definition after the files
 * change — on any instance, after any restart.
 */
export class ProfileCatalog {
  private readonly current = new Map<string, PinnedProfile>();
  private readonly held = new Map<string, PinnedProfile>();

  private readonly logger = new Logger('ProfileCatalog');

  /** `health`: where refused profiles are reported (the service's health: rl.health.decision, /health/ready). */
  constructor(private readonly log: EventLog, private readonly dir = defaultProfileDir(), private readonly health?: Pick<ServiceRuntime['health'], 'report'>) {}

  async start(): Promise<void> {
    let files: string[] = [];
    try {
      files = readdirSync(this.dir).filter((f) => f.endsWith('.json')).sort();
    } catch {
      return; // no profiles folder: no session agents
    }
    const raws = files.map((f) => {
      try {
        return { source: f, raw: JSON.parse(readFileSync(join(this.dir, f), 'utf8')) as unknown };
      } catch (e) {
        return { source: f, raw: `not JSON: ${(e as Error).message}` };
      }
    });
    // Each profile is judged alone: an invalid one (or one changed under a published version) is refused and reported,
    // and the other agents serve.
    const { profiles, refused } = registerProfiles(raws);
    const problems = refused.map((r) => `${r.source} refused: ${r.errors.join('; ')}`);
    for (const profile of profiles) {
      const pinned = { profile, sha256: sha256Hex(canonicalJson(profile)) };
      try {
        await this.publish(pinned);
      } catch (err) {
        if (!(err instanceof AppError && err.code === 'REQUEST.INVALID')) throw err;
        problems.push(`${profile.id} refused: ${err.message}`);
        continue;
      }
      this.current.set(profile.id, pinned);
      this.held.set(key(profile.id, profile.version), pinned);
    }
    if (problems.length) this.logger.error({ msg: 'agent profiles refused; the other agents serve', dir: this.dir, problems });
    this.health?.report('agent profiles', problems);
  }

  /** The current profile of `id`, or a published `version` of it. */
  async resolve(id: string, version?: string): Promise<PinnedProfile | undefined> {
    const now = this.current.get(id);
    if (version === undefined || now?.profile.version === version) return now;
    return this.pinned(id, version);
  }

  /** Exactly the definition a run pinned (id, version, hash), from memory or from the log. */
  async pinned(id: string, version: string, sha256?: string): Promise<PinnedProfile | undefined> {
    const held = this.held.get(key(id, version));
    if (held && (sha256 === undefined || held.sha256 === sha256)) return held;
    const events = await this.log.read(this.ref(id, version));
    const found = events.map((e) => e.data as ProfilePublished).find((p) => sha256 === undefined || p.sha256 === sha256);
    return found ? { profile: found.profile, sha256: found.sha256 } : undefined;
  }

  private ref(id: string, version: string) {
    return aggregateRef('profile', `${id}-${sha256Hex(version).slice(0, 24)}`);
  }

  private async publish(pinned: PinnedProfile): Promise<void> {
    const { id, version } = pinned.profile;
    const ref = this.ref(id, version);
    // After whatever the subject holds (see publishPolicyFile): a foreign message there must not stop the start.
    const { events: existing, version: at } = await this.log.readAggregate(ref);
    if (existing.some((e) => (e.data as ProfilePublished).sha256 === pinned.sha256)) return;
    if (existing.length > 0) throw new AppError('REQUEST.INVALID', `agent ${id} version ${version} was published before with different content; bump the version.`);
    const data: ProfilePublished = { id, version, sha256: pinned.sha256, profile: pinned.profile };
    await this.log.append(ref, [{ type: 'AgentProfilePublished', data }], { commandId: `profile:${id}:${version}:${pinned.sha256}`, expectedVersion: at }).catch(async (err) => {
      const again = await this.log.read(ref);
      if (!again.some((e) => (e.data as ProfilePublished).sha256 === pinned.sha256)) throw err;
    });
  }
}

const key = (id: string, version: string) => `${id}@${version}`;
