'use strict';
/**
 * docker-compose.yml read the way `docker compose` reads it: YAML, then variable interpolation over every string
 * (`$$`, `$VAR`, `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}`, `${VAR?error}`), for the whole file
 * whichever services a command names, so a required variable that is unset fails every command.
 */
const { readFileSync } = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');
const { ROOT } = require('./manifests');

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

module.exports = { loadCompose, interpolate };
