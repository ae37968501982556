// Validates rendered Kubernetes objects against the Kubernetes JSON schemas (kubernetes-models: the OpenAPI schemas
// of the Kubernetes API, compiled; @kubernetes-models/keda: KEDA's CRDs). An object of a kind no package knows is
// invalid: nothing goes unchecked. Usage: node scripts/lib/deployed/validate.mjs <overlay>… ; prints one JSON line
// per overlay ({ overlay, objects, problems: [{ kind, name, message }] }) and exits 1 when any object is invalid.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { renderOverlay } = require('./manifests.js');

async function modelOf(apiVersion, kind) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const where = group.endsWith('keda.sh') ? `@kubernetes-models/keda/${group}/${version}` : `kubernetes-models/${group ? `${group}/` : ''}${version}`;
  const mod = await import(where).catch(() => null);
  return mod?.[kind] ?? null;
}

export async function validateObjects(objects) {
  const problems = [];
  for (const o of objects) {
    const Model = await modelOf(o.apiVersion, o.kind);
    const name = o.metadata?.name;
    if (!Model) { problems.push({ kind: o.kind, name, message: `no schema for ${o.apiVersion} ${o.kind}` }); continue; }
    // kustomize wraps a Secret's base64 at 76 columns; the API server's decoder (Go's base64) skips the line breaks,
    // the schema's "byte" format does not: validate the value the server reads.
    const given = o.kind === 'Secret' && o.data ? { ...o, data: Object.fromEntries(Object.entries(o.data).map(([k, v]) => [k, String(v).replace(/[\r\n]/g, '')])) } : o;
    try { new Model(given).validate(); } catch (err) { problems.push({ kind: o.kind, name, message: String(err.message ?? err) }); }
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let failed = false;
  for (const overlay of process.argv.slice(2)) {
    const objects = renderOverlay(overlay);
    const problems = await validateObjects(objects);
    failed ||= problems.length > 0;
    console.log(JSON.stringify({ overlay, objects: objects.map((o) => `${o.kind}/${o.metadata.name}`), problems }));
  }
  process.exit(failed ? 1 : 0);
}
