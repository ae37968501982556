#!/usr/bin/env node
/**
 * Builds the publishable @runledger/client: ESM (dist/esm), CommonJS (dist/cjs) and declarations (dist/types).
 * The message types come from the monorepo's generated contracts (libs/contracts/src/generated, generated from
 * proto-contracts/): they are copied into a staging copy of the sources, so the package ships them and depends on
 * nothing of the monorepo. `npm pack` runs this (prepack).
 */
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const pkgDir = path.resolve(__dirname, '..');
const root = path.resolve(pkgDir, '..', '..');
const stage = path.join(pkgDir, '.stage');
const dist = path.join(pkgDir, 'dist');
const generated = path.join(root, 'libs', 'contracts', 'src', 'generated');
const CONTRACTS_IMPORT = "'../../contracts/src/generated/index.js'";

fs.rmSync(stage, { recursive: true, force: true });
fs.rmSync(dist, { recursive: true, force: true });
fs.mkdirSync(path.join(stage, 'src', 'generated'), { recursive: true });
for (const f of fs.readdirSync(path.join(pkgDir, 'src'))) {
  if (!f.endsWith('.ts') || f.endsWith('.spec.ts')) continue;
  let text = fs.readFileSync(path.join(pkgDir, 'src', f), 'utf8');
  if (f === 'contracts.ts') {
    if (!text.includes(CONTRACTS_IMPORT)) throw new Error(`src/contracts.ts no longer imports ${CONTRACTS_IMPORT}`);
    text = text.replace(CONTRACTS_IMPORT, "'./generated/index.js'");
  }
  fs.writeFileSync(path.join(stage, 'src', f), text);
}
for (const f of fs.readdirSync(generated)) {
  if (!f.endsWith('.ts')) continue;
  // The generated index re-exports `from './x.generated'`; ESM needs the file extension.
  const text = fs.readFileSync(path.join(generated, f), 'utf8').replace(/from '(\.\/[^']+)'/g, "from '$1.js'");
  fs.writeFileSync(path.join(stage, 'src', 'generated', f), text);
}

const common = { target: 'ES2022', strict: true, skipLibCheck: true, types: ['node'], rootDir: 'src', esModuleInterop: true, removeComments: false };
const configs = {
  'tsconfig.esm.json': { ...common, module: 'ES2022', moduleResolution: 'bundler', outDir: path.join(dist, 'esm'), declaration: true, declarationDir: path.join(dist, 'types') },
  'tsconfig.cjs.json': { ...common, module: 'Node16', moduleResolution: 'Node16', outDir: path.join(dist, 'cjs') },
};
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
for (const [file, compilerOptions] of Object.entries(configs)) {
  fs.writeFileSync(path.join(stage, file), JSON.stringify({ compilerOptions, include: ['src/**/*.ts'] }, null, 2));
  execFileSync(process.execPath, [tsc, '-p', path.join(stage, file)], { stdio: 'inherit' });
}
fs.writeFileSync(path.join(dist, 'esm', 'package.json'), JSON.stringify({ type: 'module' }) + '\n');
fs.writeFileSync(path.join(dist, 'cjs', 'package.json'), JSON.stringify({ type: 'commonjs' }) + '\n');
fs.rmSync(stage, { recursive: true, force: true });
console.log(`@runledger/client built into ${path.relative(root, dist)} (esm, cjs, types)`);
