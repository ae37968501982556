import { PolicyError } from './load-policy';
import type { PolicySet, PolicyVersions } from './types';

/**
 * Every policy version pair the service has loaded, in memory. A run pins `{lanes, roles}` at start
 * (§1) and keeps being checked against exactly that pair after newer versions arrive.
 *
 * Versions are immutable: adding a pair again with the same content is a no-op; adding it with
 * different content (a policy file edited without a version bump) throws {@link PolicyError}.
 */
export class PolicyRegistry {
  private readonly sets = new Map<string, PolicySet>();
  // Per file version, so lanes-X paired with two roles versions must still be one content.
  private readonly digests = { lanes: new Map<string, string>(), roles: new Map<string, string>() };

  /** Registers a policy set; returns it (or the identical one already held). */
  add(policy: PolicySet): PolicySet {
    const changed = (['lanes', 'roles'] as const)
      .filter((file) => (this.digests[file].get(policy.versions[file]) ?? policy.digests[file]) !== policy.digests[file])
      .map((file) => `${file} version ${policy.versions[file]} is already registered with different content`);
    if (changed.length > 0) throw new PolicyError(changed);
    const key = keyOf(policy.versions);
    const held = this.sets.get(key);
    if (held) return held;
    this.sets.set(key, policy);
    this.digests.lanes.set(policy.versions.lanes, policy.digests.lanes);
    this.digests.roles.set(policy.versions.roles, policy.digests.roles);
    return policy;
  }

  /** The policy set pinned by these versions, or undefined if it was never registered. */
  get(versions: PolicyVersions): PolicySet | undefined {
    return this.sets.get(keyOf(versions));
  }

  /** The version pairs held, in the order they were added. */
  versions(): PolicyVersions[] {
    return [...this.sets.values()].map((p) => p.versions);
  }
}

// Versions cannot contain a newline (schema pattern), so it separates the pair unambiguously.
function keyOf(versions: PolicyVersions): string {
  return `${versions.lanes}\n${versions.roles}`;
}
