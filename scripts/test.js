#!/usr/bin/env node
/**
 * npm test: every check and every test, the same on a laptop and in CI.
 *   1. nats-server present (installed from Debian's package when missing and we are root; else says how)
 *   2. contracts: schemas compile, asyncapi.yaml is valid AsyncAPI 3, generated types match the schemas
 *   3. type-check and lint (with the domain-purity boundary rules)
 *   4. jest: unit and integration tests in parallel, then the e2e suites two at a time (each on a stack of its own
 *      or on the run's shared one: a nats-server and the seven services). Two, not one: a suite keeps about one of
 *      our two cores busy (it waits on its services, timers and retries much of the time); measured, two at a time
 *      took 717 s against 1,218 s one at a time, nothing decides by wall-clock time, and each suite's stack is its own.
 * Ends with one summary line "tests: N passed, N failed" and exits non-zero on any failure.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ensureNatsServerBinary, ensureChromium, ensureDeploymentTools } = require('./lib/stack');

const ROOT = path.resolve(__dirname, '..');
const only = process.argv.slice(2);
const bin = (pkg, file) => path.join(ROOT, 'node_modules', pkg, file); // optional jest path filters, e.g. `npm test -- test/crash`

function step(name, cmd, args, opts = {}) {
  const started = Date.now();
  process.stdout.write(`\n== ${name}\n`);
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, FORCE_COLOR: '0' }, ...opts });
  const ok = r.status === 0;
  process.stdout.write(`== ${name}: ${ok ? 'ok' : 'FAILED'} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  return ok;
}

function jest(projects, extra, outFile) {
  return step(`jest ${projects.join('+')}`, process.execPath, [
    bin('jest', 'bin/jest.js'), ...projects.flatMap((p) => ['--selectProjects', p]), '--json', `--outputFile=${outFile}`, '--passWithNoTests', ...extra, ...only,
  ]);
}

function counts(file) {
  try {
    const r = JSON.parse(fs.readFileSync(file, 'utf8'));
    return { passed: r.numPassedTests, failed: r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0), skipped: r.numPendingTests };
  } catch {
    return { passed: 0, failed: 1, skipped: 0 };
  }
}

function main() {
  let ok = true;
  try {
    process.stdout.write(`nats-server: ${ensureNatsServerBinary()}\n`);
    process.stdout.write(`chromium: ${ensureChromium()}\n`);
    const tools = ensureDeploymentTools();
    process.stdout.write(`kubectl: ${tools.kubectl}, bubblewrap: ${tools.bwrap}\n`);
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
  if (!only.length) {
    ok = step('contracts', process.execPath, ['scripts/generate-contracts.js', '--check']) && ok;
    ok = step('typecheck', process.execPath, [bin('typescript', 'bin/tsc'), '-p', 'tsconfig.json', '--noEmit']) && ok;
    if (fs.existsSync(path.join(ROOT, 'eslint.config.mjs'))) ok = step('lint', process.execPath, [bin('eslint', 'bin/eslint.js'), '.']) && ok;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'runledger-jest-'));
  const fast = path.join(tmp, 'fast.json');
  const e2e = path.join(tmp, 'e2e.json');
  ok = jest(['unit', 'int'], ['--maxWorkers=2'], fast) && ok;
  ok = jest(['e2e'], ['--maxWorkers=2'], e2e) && ok;
  const total = [counts(fast), counts(e2e)].reduce((a, b) => ({ passed: a.passed + b.passed, failed: a.failed + b.failed, skipped: a.skipped + b.skipped }));
  if (!ok && total.failed === 0) total.failed = 1; // a failed check (contracts, types, lint) counts as a failure
  process.stdout.write(`\ntests: ${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}\n`);
  process.exit(ok && total.failed === 0 ? 0 : 1);
}

main();
