/**
 * Lets the CLI `require` its TypeScript (scripts/cli, libs) as the build and jest compile it: swc with the repository's
 * .swcrc, in memory, `@runledger/<lib>` resolved to libs/<lib>/src/index.ts (tsconfig.base.json's one path mapping).
 * Not @swc-node/register: it loads the TypeScript compiler (~180 ms) on every CLI start only to read tsconfig.json
 * (the container image's bootstrap step keeps it: deploy/Dockerfile). Requiring this file registers the hook (`node -r`).
 */
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const LIB = /^@runledger\/([a-z0-9-]+)$/;

(function register() {
  if (Module._extensions['.ts']) return;
  const { transformSync } = require('@swc/core');
  const options = { ...JSON.parse(fs.readFileSync(path.join(ROOT, '.swcrc'), 'utf8')), swcrc: false, sourceMaps: false };
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function resolveLib(request, ...rest) {
    const lib = LIB.exec(request);
    return lib ? path.join(ROOT, 'libs', lib[1], 'src', 'index.ts') : resolve.call(this, request, ...rest);
  };
  Module._extensions['.ts'] = (module, filename) => {
    module._compile(transformSync(fs.readFileSync(filename, 'utf8'), { ...options, filename }).code, filename);
  };
})();
