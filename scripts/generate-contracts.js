#!/usr/bin/env node
/**
 * proto-contracts/ is the single source of every message and event contract.
 *   node scripts/generate-contracts.js          regenerate libs/contracts/src/generated/*.generated.ts
 *   node scripts/generate-contracts.js --check  fail (exit 1) when the generated files drift from the schemas,
 *                                               when a schema does not compile, or when asyncapi.yaml is not a
 *                                               valid AsyncAPI 3 document or names a schema that does not exist,
 *                                               or when asyncapi.yaml and deploy/nats/permissions.yaml disagree
 *                                               on the subjects (each channel needs its permissions line).
 */
const fs = require('node:fs');
const path = require('node:path');
const { compile } = require('json-schema-to-typescript');
const Ajv = require('ajv').default;
const addFormats = require('ajv-formats').default;
const YAML = require('yaml');
const { loadTable, checkAgainstAsyncApi } = require('./lib/permissions');
const { checkK8s } = require('./render-k8s-nats');

const root = path.resolve(__dirname, '..');
const schemaRoot = path.join(root, 'proto-contracts', 'schemas');
const outDir = path.join(root, 'libs', 'contracts', 'src', 'generated');
const check = process.argv.includes('--check');

function schemaFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? schemaFiles(path.join(dir, d.name)) : d.name.endsWith('.schema.json') ? [path.join(dir, d.name)] : []);
}

function banner(area) {
  return `/* eslint-disable */\n// Generated from proto-contracts/schemas/${area}/ by scripts/generate-contracts.js. Do not edit by hand.\n\n`;
}

async function generateArea(area, files) {
  const parts = [];
  const seen = new Set();
  for (const file of files.sort()) {
    const schema = JSON.parse(fs.readFileSync(file, 'utf8'));
    let ts = await compile(schema, schema.title, {
      cwd: path.dirname(file),
      bannerComment: '',
      additionalProperties: false,
      style: { singleQuote: true, printWidth: 120 },
      declareExternallyReferenced: true,
      unknownAny: true,
    });
    // A type referenced by several schemas is emitted once per area.
    ts = ts.split(/\n(?=export )/).filter((block) => {
      const name = /export (?:interface|type) (\w+)/.exec(block)?.[1];
      if (!name || seen.has(name)) return !name;
      seen.add(name);
      return true;
    }).join('\n');
    parts.push(ts.trim());
  }
  return banner(area) + parts.join('\n\n') + '\n';
}

/**
 * Every schema as a JSON module import, for the one validator (libs/contract-schemas): the
 * services load the contracts from this list (bundled, no file read at run time) instead of each picking its files.
 */
const registryFile = path.join(root, 'libs', 'contract-schemas', 'src', 'schemas.generated.ts');

function schemaRegistry(files) {
  const sorted = [...files].sort();
  const imports = sorted.map((f, i) => `import s${i} from '${toPosixPath(path.relative(path.dirname(registryFile), f))}';`);
  const entries = sorted.map((f, i) => `  { path: '${toPosixPath(path.relative(path.join(root, 'proto-contracts'), f))}', schema: s${i} },`);
  return `${banner('*')}${imports.join('\n')}\n\n/** Every contract schema with its path under proto-contracts/ (the key of a schema that has no $id). */\nexport const CONTRACT_SCHEMAS: ReadonlyArray<{ readonly path: string; readonly schema: object }> = [\n${entries.join('\n')}\n];\n`;
}

const toPosixPath = (p) => p.split(path.sep).join('/');

function compileAllSchemas(files) {
  // The options of libs/contract-schemas' validator that decide whether a schema compiles (a discriminator's rules).
  const ajv = new Ajv({ strict: false, allErrors: true, discriminator: true });
  addFormats(ajv);
  // Checked by libs/contract-schemas (isHttpUrl); known here so that schemas naming it compile without a warning.
  ajv.addFormat('http-url', true);
  const problems = [];
  // Schemas without an $id are keyed by their path, so sibling files can still $ref each other.
  const keyOf = (f) => JSON.parse(fs.readFileSync(f, 'utf8')).$id ?? path.relative(schemaRoot, f);
  for (const f of files) {
    const schema = JSON.parse(fs.readFileSync(f, 'utf8'));
    try {
      ajv.addSchema(schema, schema.$id ? undefined : keyOf(f));
    } catch (err) {
      problems.push(`${path.relative(root, f)}: ${err.message}`);
    }
  }
  for (const f of files) {
    try {
      if (!ajv.getSchema(keyOf(f))) throw new Error('does not compile');
    } catch (err) {
      problems.push(`${path.relative(root, f)}: ${err.message}`);
    }
  }
  return problems;
}

function checkAsyncApi() {
  const file = path.join(root, 'proto-contracts', 'asyncapi.yaml');
  const doc = YAML.parse(fs.readFileSync(file, 'utf8'));
  const spec = require('@asyncapi/specs/schemas/3.0.0-without-$id.json');
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
  addFormats(ajv);
  const validate = ajv.compile(spec);
  const problems = [];
  if (!validate(doc)) problems.push(...validate.errors.slice(0, 10).map((e) => `asyncapi.yaml ${e.instancePath}: ${e.message}`));
  // Every external $ref must point at a schema file that exists.
  const refs = JSON.stringify(doc).match(/"\$ref":"(\.\/schemas\/[^"#]+)/g) ?? [];
  for (const r of refs) {
    const rel = r.slice(8);
    if (!fs.existsSync(path.join(root, 'proto-contracts', rel))) problems.push(`asyncapi.yaml references missing ${rel}`);
  }
  // Every subject has an entry in the permissions table, and the table names no subject asyncapi lacks.
  problems.push(...checkAgainstAsyncApi(loadTable(), doc));
  // k8s renders the same table (users and permissions of its nats.conf files).
  problems.push(...checkK8s());
  return problems;
}

async function main() {
  const all = schemaFiles(schemaRoot);
  const byArea = new Map();
  for (const f of all) {
    const area = path.relative(schemaRoot, f).split(path.sep)[0];
    if (!byArea.has(area)) byArea.set(area, []);
    byArea.get(area).push(f);
  }
  const problems = [...compileAllSchemas(all), ...checkAsyncApi()];
  fs.mkdirSync(outDir, { recursive: true });
  const expected = new Map();
  for (const [area, files] of byArea) expected.set(`${area}.generated.ts`, await generateArea(area, files));
  // A type defined by several areas (a shared $ref) is exported once; two different definitions
  // under one name would be a contract conflict.
  const owner = new Map();
  const lines = [];
  for (const file of [...expected.keys()].sort()) {
    const blocks = expected.get(file).split(/\n(?=export )/);
    const names = [];
    for (const block of blocks) {
      const name = /export (?:interface|type) (\w+)/.exec(block)?.[1];
      if (!name) continue;
      // Compare declarations only: doc comments of the next block ride along after the split.
      const body = block.replace(/\/\*\*[\s\S]*?\*\//g, '').replace(/\s+/g, ' ').trim();
      if (owner.has(name)) {
        if (owner.get(name).body !== body) problems.push(`type ${name} is defined differently in ${owner.get(name).file} and ${file}`);
        continue;
      }
      owner.set(name, { file, body });
      names.push(name);
    }
    if (names.length) lines.push(`export type {\n  ${names.join(',\n  ')},\n} from './${file.replace(/\.ts$/, '')}';`);
  }
  const index = lines.join('\n') + '\n';
  expected.set('index.ts', banner('*') + index);
  for (const [name, content] of expected) {
    const target = path.join(outDir, name);
    const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : null;
    if (check) {
      if (current !== content) problems.push(`libs/contracts/src/generated/${name} is out of date: run npm run contracts:generate`);
    } else if (current !== content) {
      fs.writeFileSync(target, content);
    }
  }
  const registry = schemaRegistry(all);
  const currentRegistry = fs.existsSync(registryFile) ? fs.readFileSync(registryFile, 'utf8') : null;
  if (check && currentRegistry !== registry) problems.push('libs/contract-schemas/src/schemas.generated.ts is out of date: run npm run contracts:generate');
  else if (!check && currentRegistry !== registry) fs.writeFileSync(registryFile, registry);
  for (const existing of fs.readdirSync(outDir)) {
    if (!expected.has(existing)) {
      if (check) problems.push(`libs/contracts/src/generated/${existing} has no schema source`);
      else fs.unlinkSync(path.join(outDir, existing));
    }
  }
  if (problems.length) {
    console.error('contract check failed:\n- ' + problems.join('\n- '));
    process.exit(1);
  }
  console.log(check ? `contracts: ${all.length} schemas, asyncapi.yaml valid, permissions table covers it, generated types up to date` : `contracts: generated ${expected.size - 1} files from ${all.length} schemas`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
