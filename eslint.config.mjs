// Runledger lint: typescript-eslint (type-unaware, for speed) plus the architecture's boundary rules.
//
// Boundaries enforced here:
//   1. Pure domain code (replayed from the log) imports no I/O, framework or infra library and reads no
//      clock, randomness or timer: time and ids arrive as data.
//   2. libs/ never reaches into services/; a service never reaches into another service's files.
//   3. Transport handlers (controllers) hold no storage or business logic: no document-store, and no
//      event-log beyond `import type` (a log consumer may name the StoredEvent it receives).
//
// ESLint flat config replaces (does not merge) a rule's options when several config objects match a file,
// so each boundary area below gets ONE config object carrying the union of every restriction that applies.
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The repository root (this file's folder), whatever directory eslint runs from. */
const ROOT = path.dirname(fileURLToPath(import.meta.url));

const TS_FILES = ['libs/**/*.ts', 'services/**/*.ts', 'test/**/*.ts', 'scripts/**/*.ts'];

// ---------------------------------------------------------------------------------------------------------
// 1. Domain purity
// ---------------------------------------------------------------------------------------------------------

const DOMAIN_FILES = [
  'libs/kernel/src/**/*.ts',
  'libs/task-assistant/src/**/*.ts',
  'libs/governance/src/**/*.ts',
  'libs/agent-runtime/src/**/*.ts',
  'libs/runs/src/domain/**/*.ts',
  'libs/agent-session/src/domain/**/*.ts',
  'libs/agent-session/src/app/**/*.ts',
  'services/*/src/**/domain/**/*.ts',
  'services/decision/src/conversation/conversation.ts',
];
// Tests and their helpers may use fakes, timers and Node freely.
const DOMAIN_EXEMPT = ['**/*.spec.ts', '**/*.unit-support.ts', '**/spec-helpers.ts'];

const WHY_DOMAIN = 'domain code is replayed; time and ids arrive as data';
const WHY_DOMAIN_IMPORT = `${WHY_DOMAIN}: pure domain code does no I/O and depends on no framework or infrastructure; inject a port instead`;

const nodeBuiltins = [...new Set(builtinModules.filter((m) => !m.startsWith('_')).map((m) => m.replace(/^node:/, '')))];

/** `@typescript-eslint/no-restricted-imports` entries for pure domain code. */
const domainImportPaths = [
  ...nodeBuiltins.map((name) => ({ name, message: `Node built-in '${name}': ${WHY_DOMAIN_IMPORT}.` })),
  { name: 'mongodb', message: `mongodb: ${WHY_DOMAIN_IMPORT}.` },
  { name: 'openai', message: `openai: ${WHY_DOMAIN_IMPORT}.` },
  { name: '@runledger/messaging', message: `@runledger/messaging is infrastructure: ${WHY_DOMAIN_IMPORT}.` },
  {
    name: '@runledger/event-log',
    allowTypeImports: true,
    message: `@runledger/event-log is infrastructure; only \`import type\` (e.g. RecordedEvent) is allowed in domain code: ${WHY_DOMAIN}.`,
  },
  { name: '@runledger/telemetry', message: `@runledger/telemetry is infrastructure: ${WHY_DOMAIN_IMPORT}.` },
  { name: '@runledger/document-store', message: `@runledger/document-store is infrastructure: ${WHY_DOMAIN_IMPORT}.` },
  { name: '@runledger/policy-catalog', message: `@runledger/policy-catalog reads files and the log: ${WHY_DOMAIN_IMPORT}.` },
  { name: '@runledger/testing', message: `@runledger/testing is test infrastructure: ${WHY_DOMAIN_IMPORT}.` },
];
const domainImportPatterns = [
  { group: ['node:*'], message: `Node built-ins: ${WHY_DOMAIN_IMPORT}.` },
  { group: ['@nestjs/*'], message: `NestJS: ${WHY_DOMAIN_IMPORT}.` },
  { group: ['@nats-io/*'], message: `NATS: ${WHY_DOMAIN_IMPORT}.` },
  { group: ['@opentelemetry/*'], message: `OpenTelemetry: ${WHY_DOMAIN_IMPORT}.` },
  { group: ['mongodb/*', 'openai/*'], message: `mongodb/openai: ${WHY_DOMAIN_IMPORT}.` },
  // Deep imports into infra libs, however they are spelled.
  { regex: '^@runledger/(messaging|telemetry|document-store|policy-catalog|testing)/', message: `Infrastructure library: ${WHY_DOMAIN_IMPORT}.` },
];

// Date.now, Math.random and timers are caught as properties/globals below (also when merely referenced).
const domainSyntax = [
  { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: `new Date() reads the clock: ${WHY_DOMAIN}. Take \`now\` from the command/event or an injected Clock.` },
  { selector: "CallExpression[callee.name='Date']", message: `Date() reads the clock: ${WHY_DOMAIN}.` },
  { selector: "CallExpression[callee.name='randomUUID'], CallExpression[callee.property.name='randomUUID']", message: `randomUUID() (crypto.randomUUID or any alias) is not replayable: ${WHY_DOMAIN}. Ids are minted at the edge and passed in.` },
  { selector: "ImportExpression", message: `Dynamic import() in domain code: ${WHY_DOMAIN_IMPORT}.` },
  { selector: "CallExpression[callee.name='require']", message: `require() in domain code: ${WHY_DOMAIN_IMPORT}.` },
];

const domainGlobals = [
  { name: 'setTimeout', message: `Timers make behaviour depend on wall-clock time: ${WHY_DOMAIN}.` },
  { name: 'setInterval', message: `Timers make behaviour depend on wall-clock time: ${WHY_DOMAIN}.` },
  { name: 'setImmediate', message: `Timers make behaviour depend on scheduling: ${WHY_DOMAIN}.` },
  { name: 'performance', message: `performance reads a clock: ${WHY_DOMAIN}.` },
];

const domainProperties = [
  { object: 'Date', property: 'now', message: `Date.now reads the clock: ${WHY_DOMAIN}.` },
  { object: 'Math', property: 'random', message: `Math.random is not replayable: ${WHY_DOMAIN}.` },
  { object: 'crypto', property: 'getRandomValues', message: `crypto.getRandomValues is not replayable: ${WHY_DOMAIN}.` },
  { object: 'globalThis', property: 'setTimeout', message: `Timers: ${WHY_DOMAIN}.` },
  { object: 'globalThis', property: 'setInterval', message: `Timers: ${WHY_DOMAIN}.` },
  { object: 'globalThis', property: 'crypto', message: `Web Crypto randomness is not replayable: ${WHY_DOMAIN}.` },
];

// ---------------------------------------------------------------------------------------------------------
// 2. Package boundaries: libs -> services, service -> other service
// ---------------------------------------------------------------------------------------------------------

// `baseUrl: "."` in tsconfig.base.json would let `services/x/...` resolve without a relative path.
const noRootServicesImport = [{ regex: '^/?services/', message: 'Import services only through their contracts (@runledger/contracts), never by path.' }];

// ---------------------------------------------------------------------------------------------------------
// 3. Transport handlers
// ---------------------------------------------------------------------------------------------------------

const TRANSPORT_FILES = ['services/*/src/transport/**/*.ts', '**/*.controller.ts'];
const WHY_TRANSPORT = 'transport handlers decode, validate and delegate to an application service; storage and business logic live there';
const transportImportPaths = [
  { name: '@runledger/document-store', message: `No storage in a transport handler: ${WHY_TRANSPORT}.` },
  {
    name: '@runledger/event-log',
    // A log consumer's handler may name the envelope type it receives; it may not touch the log itself.
    allowTypeImports: true,
    message: `No event-log access in a transport handler (\`import type { StoredEvent }\` is fine): ${WHY_TRANSPORT}.`,
  },
];
const transportImportPatterns = [{ regex: '^@runledger/(document-store|event-log)/', message: `No storage or event-log access in a transport handler: ${WHY_TRANSPORT}.` }];

/** Builds one `@typescript-eslint/no-restricted-imports` setting from groups of paths and patterns. */
function restrictedImports(...groups) {
  return [
    'error',
    {
      paths: groups.flatMap((g) => g.paths ?? []),
      patterns: groups.flatMap((g) => g.patterns ?? []),
    },
  ];
}

const DOMAIN = { paths: domainImportPaths, patterns: domainImportPatterns };
const NO_SERVICES_BY_PATH = { patterns: noRootServicesImport };
const TRANSPORT = { paths: transportImportPaths, patterns: transportImportPatterns };

/**
 * Relative imports are resolved against the importing file, so `../../x` is judged by where it lands:
 * a file under libs/ may not land in services/, and services/A may not land in services/B.
 */
const noCrossBoundaryImports = {
  meta: {
    type: 'problem',
    docs: { description: 'libs must not import services; a service must not import another service\'s files' },
    schema: [],
    messages: {
      libToService: "libs/ must not import from services/ ('{{source}}' resolves to {{target}}): libraries are shared by services, not the reverse.",
      crossService: "Service '{{from}}' must not import files of service '{{to}}' ('{{source}}'): services share contracts (@runledger/contracts, subjects over NATS), not code paths.",
    },
  },
  create(context) {
    const root = ROOT;
    const file = path.relative(root, context.filename).split(path.sep).join('/');
    const fromService = /^services\/([^/]+)\//.exec(file)?.[1];
    const fromLib = file.startsWith('libs/');
    if (!fromService && !fromLib) return {};

    function check(node, source) {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path.relative(root, path.resolve(path.dirname(context.filename), source)).split(path.sep).join('/');
      const toService = /^services\/([^/]+)(\/|$)/.exec(target)?.[1];
      if (!toService) return;
      if (fromLib) context.report({ node, messageId: 'libToService', data: { source, target } });
      else if (toService !== fromService) context.report({ node, messageId: 'crossService', data: { source, from: fromService, to: toService } });
    }

    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, node.source.value),
      TSImportEqualsDeclaration: (node) =>
        node.moduleReference.type === 'TSExternalModuleReference' && check(node.moduleReference.expression, node.moduleReference.expression.value),
      "CallExpression[callee.name='require'][arguments.0.type='Literal']": (node) => check(node.arguments[0], node.arguments[0].value),
      "CallExpression[callee.object.name='jest'][callee.property.name=/^(mock|requireActual|doMock)$/][arguments.0.type='Literal']": (node) =>
        check(node.arguments[0], node.arguments[0].value),
    };
  },
};

const runledgerPlugin = { meta: { name: 'runledger' }, rules: { 'no-cross-boundary-imports': noCrossBoundaryImports } };

export default defineConfig([
  globalIgnores([
    '**/node_modules/',
    '**/dist/',
    '**/.data/',
    '**/coverage/',
    '**/.nx/',
    '**/*.generated.ts',
    'libs/contracts/src/generated/**',
    '**/*.js',
    '**/*.cjs',
    '**/*.mjs',
    '!eslint.config.mjs',
  ]),

  // This file: plain JS for Node.
  {
    files: ['eslint.config.mjs'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node, sourceType: 'module' },
  },

  // TypeScript everywhere else.
  {
    files: TS_FILES,
    extends: [js.configs.recommended, tseslint.configs.recommended],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.node, ...globals.jest } },
    linterOptions: { reportUnusedDisableDirectives: 'warn' },
    plugins: { runledger: runledgerPlugin },
    rules: {
      '@typescript-eslint/no-explicit-any': 'warn',
      'no-unused-vars': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrors: 'all',
          caughtErrorsIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // Style findings of @eslint/js recommended that need a human eye (regex edits are not mechanical).
      'no-useless-escape': 'warn',
      'no-regex-spaces': 'warn',
      // Input sanitisers strip control characters on purpose; mark those with an eslint-disable comment.
      'no-control-regex': 'warn',
      'runledger/no-cross-boundary-imports': 'error',
      '@typescript-eslint/no-restricted-imports': restrictedImports(NO_SERVICES_BY_PATH),
    },
  },

  // Scripts and config files may be CommonJS.
  {
    files: ['scripts/**/*.ts', '**/*.config.ts', '**/jest.config.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },

  // 3. Transport handlers: no storage, no event log.
  {
    files: TRANSPORT_FILES,
    ignores: DOMAIN_EXEMPT,
    rules: { '@typescript-eslint/no-restricted-imports': restrictedImports(NO_SERVICES_BY_PATH, TRANSPORT) },
  },

  // 1. Pure domain code.
  {
    files: DOMAIN_FILES,
    ignores: DOMAIN_EXEMPT,
    rules: {
      '@typescript-eslint/no-restricted-imports': restrictedImports(NO_SERVICES_BY_PATH, DOMAIN),
      'no-restricted-syntax': ['error', ...domainSyntax],
      'no-restricted-globals': ['error', ...domainGlobals],
      'no-restricted-properties': ['error', ...domainProperties],
    },
  },
]);
