'use strict';
/**
 * The deployment as shipped, read the way the cluster reads it: a kustomize overlay rendered by `kubectl kustomize`
 * (kustomize v5, built into kubectl) and the image's runtime facts (WORKDIR, ENV, USER, CMD) read from
 * deploy/Dockerfile's last stage, so a container can be started exactly as its manifest and image declare it.
 */
const { execFileSync } = require('node:child_process');
const { readFileSync } = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** Every object of an overlay (or base), rendered by kubectl's kustomize. */
function renderOverlay(dir) {
  const out = execFileSync('kubectl', ['kustomize', path.resolve(ROOT, dir)], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return YAML.parseAllDocuments(out).map((d) => d.toJS()).filter(Boolean);
}

/** The object of a kind whose name is `name` or, for generated ConfigMaps and Secrets, `name-<hash>`. */
function objectNamed(objects, kind, name) {
  const found = objects.filter((o) => o.kind === kind && (o.metadata.name === name || o.metadata.name.replace(/-[a-z0-9]{10}$/, '') === name));
  if (found.length !== 1) throw new Error(`${found.length} ${kind} named ${name} in the rendered manifests`);
  return found[0];
}

/** A Secret's or ConfigMap's entries as Buffers (Secrets hold base64 `data`, ConfigMaps text `data`). */
function entriesOf(obj) {
  const out = {};
  for (const [k, v] of Object.entries(obj.data ?? {})) out[k] = obj.kind === 'Secret' ? Buffer.from(v, 'base64') : Buffer.from(String(v));
  for (const [k, v] of Object.entries(obj.stringData ?? {})) out[k] = Buffer.from(String(v));
  for (const [k, v] of Object.entries(obj.binaryData ?? {})) out[k] = Buffer.from(v, 'base64');
  return out;
}

/**
 * The runtime stage of deploy/Dockerfile: WORKDIR, ENV (build args as given, else at their defaults), USER and CMD. Only the
 * instructions the stage uses are understood; anything else that would change how a container starts is refused.
 */
function imageFacts(dockerfile = path.join(ROOT, 'deploy', 'Dockerfile'), buildArgs = {}) {
  const text = readFileSync(dockerfile, 'utf8').replace(/\\\n/g, ' ');
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const stages = [];
  for (const line of lines) {
    if (/^FROM\s/i.test(line)) stages.push([]);
    else if (stages.length) stages[stages.length - 1].push(line);
  }
  const stage = stages[stages.length - 1];
  const args = {};
  const facts = { workdir: '/', env: {}, user: null, cmd: null, entrypoint: null };
  const expand = (v) => v.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a, b) => facts.env[a ?? b] ?? args[a ?? b] ?? '');
  for (const line of stage) {
    const [, op, rest] = line.match(/^(\w+)\s+(.*)$/);
    switch (op.toUpperCase()) {
      case 'ARG': { const [k, v = ''] = rest.split('='); args[k.trim()] = buildArgs[k.trim()] ?? v.replace(/^"|"$/g, ''); break; }
      case 'ENV': for (const [, k, v] of rest.matchAll(/(\w+)=("[^"]*"|\S*)/g)) facts.env[k] = expand(v.replace(/^"|"$/g, '')); break;
      case 'WORKDIR': facts.workdir = path.posix.resolve(facts.workdir, rest); break;
      case 'USER': facts.user = rest; break;
      case 'CMD': facts.cmd = JSON.parse(rest); break;
      case 'ENTRYPOINT': facts.entrypoint = JSON.parse(rest); break;
      case 'COPY': case 'RUN': case 'EXPOSE': case 'HEALTHCHECK': case 'LABEL': break;
      default: throw new Error(`deploy/Dockerfile: ${op} in the runtime stage is not understood`);
    }
  }
  return facts;
}

module.exports = { ROOT, renderOverlay, objectNamed, entriesOf, imageFacts };
