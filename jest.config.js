// One jest config for the whole monorepo; tiers are told apart by file suffix
// (.unit.spec.ts, .int.spec.ts, .e2e.spec.ts) and selected with --selectProjects.
const fs = require('node:fs');
const swcrc = JSON.parse(fs.readFileSync(__dirname + '/.swcrc', 'utf8'));
// NestJS 12 and a few of its dependencies ship ES modules only. Node 20.19 `require`s them natively,
// but jest has its own module system: compile those packages to CommonJS with the same swc setup.
const ESM_PACKAGES = ['@nestjs', 'file-type', 'strtok3', 'token-types', 'peek-readable', 'uint8array-extras', '@tokenizer', 'load-esm'];
const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['@swc/jest', { ...swcrc, swcrc: false }],
    '^.+\\.m?js$': ['@swc/jest', { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' }, swcrc: false }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_PACKAGES.join('|')})/)`],
  moduleNameMapper: { '^@runledger/(.*)$': '<rootDir>/libs/$1/src/index.ts' },
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/.data/'],
};
module.exports = {
  // Suites start real nats-servers and services while others run in parallel: hooks and tests get room on a busy
  // machine (no result depends on time; a hang is still caught).
  testTimeout: 60_000,
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{libs,services,scripts}/**/*.unit.spec.ts'] },
    { ...shared, displayName: 'int', testMatch: ['<rootDir>/{libs,services}/**/*.int.spec.ts'] },
    {
      ...shared, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e.spec.ts'],
      // Issue 26: every event a suite's stack wrote is checked against its schema when the stack stops; the run fails listing them.
      globalSetup: '<rootDir>/test/support/e2e.global-setup.js', globalTeardown: '<rootDir>/test/support/e2e.global-teardown.js',
    },
  ],
};
