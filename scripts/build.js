#!/usr/bin/env node
/**
 * npm run build — compiles the services and libraries to JavaScript in dist/ (same layout), so `npm start`, the
 * image and the benchmark run plain JavaScript instead of compiling TypeScript in every process at start
 * (swc's runtime hook held ~120 MiB per service). Type checking stays with `tsc --noEmit` in `npm test`;
 * this is a transpile with the project's .swcrc, and `@runledger/<lib>` imports are rewritten to relative paths.
 * Incremental: a file is compiled again only when its source is newer than its output.
 */
const fs = require('node:fs');
const path = require('node:path');
const swc = require('@swc/core');

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const SOURCES = ['services', 'libs'];
const swcrc = JSON.parse(fs.readFileSync(path.join(ROOT, '.swcrc'), 'utf8'));
delete swcrc.$schema;

function* tsFiles(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules') continue;
      yield* tsFiles(full);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !/\.spec\.ts$/.test(entry.name)) {
      yield full;
    }
  }
}

const toPosix = (p) => p.split(path.sep).join('/');
const relativeFrom = (dir, target) => {
  const rel = toPosix(path.relative(dir, target));
  return rel.startsWith('.') ? rel : `./${rel}`;
};
const isSource = (p) => ['.ts', '/index.ts'].some((ext) => fs.existsSync(p + ext));

/**
 * Makes the compiled file behave as its source did from its new place: `@runledger/x` becomes the relative path
 * to libs/x/src/index (tsconfig's paths), a relative require of a non-TypeScript file (a JSON Schema) points back
 * into the source tree, and `__dirname` means the source folder (policy and profile folders are found from it).
 */
function relocate(code, file, out) {
  const srcDir = path.dirname(file);
  const outDir = path.dirname(out);
  let js = code.replace(/require\("@runledger\/([a-z0-9-]+)"\)/g, (_m, lib) => `require(${JSON.stringify(relativeFrom(srcDir, path.join(ROOT, 'libs', lib, 'src', 'index')))})`);
  js = js.replace(/require\("(\.{1,2}\/[^"]+)"\)/g, (m, spec) => {
    const target = path.resolve(srcDir, spec);
    return isSource(target) ? m : `require(${JSON.stringify(relativeFrom(outDir, target))})`;
  });
  if (/\b__dirname\b/.test(js)) {
    const header = `const __sourceDir = require("node:path").join(__dirname, ${JSON.stringify(toPosix(path.relative(outDir, srcDir)))});\n`;
    js = js.replace(/\b__dirname\b/g, '__sourceDir').replace(/^("use strict";\n)?/, (strict) => `${strict}${header}`);
  }
  return js;
}

function build() {
  let compiled = 0;
  let total = 0;
  for (const top of SOURCES) {
    for (const file of tsFiles(path.join(ROOT, top))) {
      total++;
      const out = path.join(DIST, path.relative(ROOT, file)).replace(/\.ts$/, '.js');
      if (fs.existsSync(out) && fs.statSync(out).mtimeMs >= fs.statSync(file).mtimeMs) continue;
      const { code } = swc.transformFileSync(file, { ...swcrc, swcrc: false, sourceMaps: false, filename: file });
      fs.mkdirSync(path.dirname(out), { recursive: true });
      // Write then rename: launchers in parallel (test workers, npm start) never read a half-written file.
      const tmp = `${out}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, relocate(code, file, out));
      fs.renameSync(tmp, out);
      compiled++;
    }
  }
  return { compiled, total };
}

if (require.main === module) {
  const { compiled, total } = build();
  process.stdout.write(`build: ${compiled} of ${total} files compiled to dist/\n`);
}

module.exports = { build, DIST };
