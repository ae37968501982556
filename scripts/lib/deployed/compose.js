'use strict';
/**
 * docker-compose.yml read the way `docker compose` reads it: YAML, then variable interpolation over every string
 * (`$$`, `$VAR`, `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}`, `${VAR?error}`), for the whole file
 * whichever services a command names, so a required variable that is unset fails every command.
 */
const { readFileSync } = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');
const { ROOT, imageFacts } = require('./manifests');

function interpolate(text, env, where) {
  return text.replace(/\$\$|\$\{([A-Za-z_]\w*)(?:(:?)([-?])((?:[^}])*))?\}|\$([A-Za-z_]\w*)/g, (m, name, colon, op, arg, bare) => {
    if (m === '$$') return '$';
    if (bare) return env[bare] ?? '';
    const value = env[name];
    const missing = value === undefined || (colon === ':' && value === '');
    if (op === '-') return missing ? interpolate(arg, env, where) : value;
    if (op === '?') { if (missing) throw new Error(`${where}: required variable ${name} is missing a value: ${arg}`); return value; }
    return value ?? '';
  });
}

function walk(value, env, where) {
  if (typeof value === 'string') return interpolate(value, env, where);
  if (Array.isArray(value)) return value.map((v, i) => walk(v, env, `${where}[${i}]`));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, env, `${where}.${k}`)]));
  return value;
}

/** The compose project as `docker compose config` would see it with this environment (anchors and merges resolved). */
function loadCompose(env, file = path.join(ROOT, 'docker-compose.yml')) {
  const doc = YAML.parse(readFileSync(file, 'utf8'), { merge: true });
  return walk(doc, env, path.basename(file));
}

/** A compose duration ("1m30s", "10s", "500ms") in milliseconds. */
function durationMs(text, fallback) {
  if (text === undefined) return fallback;
  let ms = 0;
  for (const [, n, unit] of String(text).matchAll(/(\d+(?:\.\d+)?)(ms|us|h|m|s)/g)) ms += Number(n) * { h: 3_600_000, m: 60_000, s: 1_000, ms: 1, us: 0.001 }[unit];
  return ms;
}

/**
 * A compose service as the pod and container startContainer runs (scripts/lib/deployed/sandbox.js): entrypoint →
 * command and command → args (each replaces the image's ENTRYPOINT/CMD as in Kubernetes), environment, read_only,
 * tmpfs (a fresh tmpfs), volumes (a named volume: `claim(name)`, a directory kept across restarts; a bind: the host
 * path, read-only with `:ro`), user, cap_drop/cap_add, security_opt no-new-privileges, stop_grace_period, and the image: deploy/Dockerfile's runtime
 * stage with the service's build args, or, for a public image, only what the service itself declares. `unset`: env
 * names left out (each one a deviation the caller declares).
 */
function composeContainer(project, name, { claim, unset = [] } = {}) {
  const s = project.services[name];
  if (!s) throw new Error(`docker-compose.yml has no service ${name}`);
  for (const key of ['entrypoint', 'command']) if (s[key] !== undefined && !Array.isArray(s[key])) throw new Error(`${name}: ${key} in shell form is not understood`);
  const volumes = [];
  const mounts = [];
  const claims = {};
  (s.tmpfs ?? []).forEach((t, i) => {
    volumes.push({ name: `tmpfs-${i}`, emptyDir: { medium: 'Memory' } });
    mounts.push({ name: `tmpfs-${i}`, mountPath: t.split(':')[0] });
  });
  (s.volumes ?? []).forEach((v, i) => {
    const [source, target, mode] = v.split(':');
    const readOnly = mode === 'ro';
    if (/^[./~]/.test(source)) {
      volumes.push({ name: `bind-${i}`, hostPath: { path: path.resolve(ROOT, source) } });
      mounts.push({ name: `bind-${i}`, mountPath: target, readOnly });
    } else {
      if (!Object.hasOwn(project.volumes ?? {}, source)) throw new Error(`${name}: volume ${source} is not declared under volumes`);
      claims[source] = claim(source);
      mounts.push({ name: source, mountPath: target, readOnly });
    }
  });
  // bwrap always sets no_new_privs: declared or not, the process runs with it (stricter than compose without it).
  for (const opt of s.security_opt ?? []) if (opt !== 'no-new-privileges:true') throw new Error(`${name}: security_opt ${opt} is not understood`);
  const built = s.build?.dockerfile;
  if (!built && !(s.entrypoint || s.command)) throw new Error(`${name}: image ${s.image} runs its own command, which is not known here`);
  const image = built
    ? { ...imageFacts(path.resolve(ROOT, s.build.context ?? '.', built), s.build.args ?? {}), root: path.resolve(ROOT, s.build.context ?? '.') }
    : { workdir: '/', env: {}, user: null, cmd: null, entrypoint: null, root: null };
  const [runAsUser, runAsGroup] = s.user ? String(s.user).split(':').map(Number) : [];
  const env = Object.entries(s.environment ?? {}).filter(([k]) => !unset.includes(k)).map(([k, v]) => ({ name: k, value: String(v ?? '') }));
  const container = {
    name, command: s.entrypoint, args: s.command, env, volumeMounts: mounts, workingDir: s.working_dir,
    securityContext: { readOnlyRootFilesystem: s.read_only === true, ...(s.user ? { runAsUser, runAsGroup: runAsGroup ?? runAsUser } : {}), capabilities: { drop: s.cap_drop ?? [], add: s.cap_add ?? [] } },
  };
  const spec = { volumes, containers: [container], terminationGracePeriodSeconds: durationMs(s.stop_grace_period, 10_000) / 1000 };
  return { pod: { name, namespace: 'compose', spec, claims }, container, image };
}

/**
 * Polls a service's healthcheck as Docker does: the test command run inside the container every `interval` (the first
 * one `interval` after the start), each killed after `timeout`; failures inside `start_period` do not count, `retries`
 * consecutive ones after it make the container unhealthy (here: a failure), as does its exit.
 */
async function untilHealthy(running, healthcheck) {
  const [form, ...command] = healthcheck.test;
  const argv = form === 'CMD-SHELL' ? ['/bin/sh', '-c', command.join(' ')] : command;
  if (form !== 'CMD' && form !== 'CMD-SHELL') throw new Error(`healthcheck ${form} is not understood`);
  const startedAt = Date.now();
  const startPeriod = durationMs(healthcheck.start_period, 0);
  let failures = 0;
  for (;;) {
    await new Promise((r) => setTimeout(r, durationMs(healthcheck.interval, 30_000)));
    if (running.child.exitCode !== null || running.child.signalCode !== null) throw new Error(`${running.name} exited before it was healthy:\n${running.output()}`);
    const { code, output } = await running.exec(argv, { timeoutMs: durationMs(healthcheck.timeout, 30_000) });
    if (code === 0) return;
    if (Date.now() - startedAt > startPeriod && ++failures >= (healthcheck.retries ?? 3)) throw new Error(`${running.name} unhealthy (${failures} failed checks, last: ${output.trim()}):\n${running.output()}`);
  }
}

module.exports = { loadCompose, interpolate, composeContainer, untilHealthy };
