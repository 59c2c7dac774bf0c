// The Jest projects are the test tiers (README: "Development"); `npm run test:<tier>` runs one,
// `npm test` runs them all. A tier is decided by a test file's place, so a new test lands in one:
// - unit: the backend's pure stages (everything under backend/src not named below), and the static
//   checks of files (`*.static.test.ts`: no service, no process, e.g. the provisioning files and
//   test/support/imports.static.test.ts, every imported package declared), in seconds;
// - service: the HTTP API, the stores on disk, the CLI and service processes, replay, provisioning
//   against a live service (`*.live.test.ts`);
// - kube: a real kube-apiserver and etcd (built from pinned Go modules before the first test);
// - postgres: a real PostgreSQL (Debian's package, installed before the first test), some with a
//   kube-apiserver for the Lease;
// - frontend: the Grafana plugin (src/), with @grafana/create-plugin's configuration as generated in
//   .config/ (jsdom, SWC, Testing Library), extended here as create-plugin documents.
// The backend is ESM with explicit `.ts` imports for Node's type stripping; SWC turns it into
// CommonJS for Jest, which resolves the `.ts` paths as-is. The backend tiers run in an environment
// (test/support/environment.cjs) that kills any server a test file left running when it ends.

// create-plugin's root jest.config.js also forces TZ=UTC for snapshot tests; the frontend has no
// snapshots and no test here depends on the timezone, so it is left out to keep the backend's
// environment exactly as it was.

const frontend = require('./.config/jest.config');

const KUBE = ['<rootDir>/test/kube/', '<rootDir>/backend/src/leader/lease.test.ts'];
const POSTGRES = [
  '<rootDir>/test/postgres/',
  '<rootDir>/backend/src/store/postgres.test.ts',
  '<rootDir>/backend/src/runtime/follower.test.ts',
  '<rootDir>/backend/src/leader/replica.test.ts',
  '<rootDir>/backend/src/leader/failover.test.ts',
];
const SERVICE_DIRS = ['http', 'cli', 'store', 'runtime'].map((dir) => `<rootDir>/backend/src/${dir}/`);
/** Static checks of files (provisioning/, the compose file, the imports): named so, they run in the unit tier wherever they are. */
const STATIC = '.static.test.ts';

/** Packages that ship only ES modules, reached from the backend (client-node and its imports) and its tests. */
const ESM_ONLY = [
  '@kubernetes/client-node', 'openid-client', 'oauth4webapi', 'jose', 'jsonpath-plus', 'socks-proxy-agent', 'agent-base', 'rfc4648',
  // The OpenAPI validator's reference parser (test only).
  '@apidevtools/json-schema-ref-parser',
];

/** Jest takes ignore patterns as regular expressions of absolute paths. */
const literally = (paths) => paths.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

const backend = (displayName, testMatch, ignored, extra = {}, ignoredEndings = []) => ({
  displayName,
  testEnvironment: '<rootDir>/test/support/environment.cjs',
  setupFiles: ['<rootDir>/test/support/regexp-engine.cjs'],
  testMatch,
  testPathIgnorePatterns: ['/node_modules/', ...literally(ignored), ...literally(ignoredEndings).map((e) => `${e}$`)],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { target: 'es2023', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
    ],
    // The ESM-only packages the backend uses (@kubernetes/client-node and what it imports), turned
    // into CommonJS the same way: Jest's module system cannot load ES modules without a flag.
    '^.+\\.m?js$': ['@swc/jest', { jsc: { target: 'es2023', parser: { syntax: 'ecmascript' } }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  ...extra,
});

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 60_000,
  projects: [
    backend('unit', ['<rootDir>/backend/src/**/*.test.ts', ...['provisioning', 'support'].map((dir) => `<rootDir>/test/${dir}/**/*${STATIC}`)], [...SERVICE_DIRS, ...KUBE, ...POSTGRES]),
    backend(
      'service',
      [...SERVICE_DIRS, '<rootDir>/backend/test/', '<rootDir>/test/provisioning/', '<rootDir>/test/support/'].map((dir) => `${dir}**/*.test.ts`),
      POSTGRES,
      { globalSetup: '<rootDir>/test/support/setup-service.ts' },
      [STATIC]
    ),
    backend('kube', ['<rootDir>/test/kube/**/*.test.ts', '<rootDir>/backend/src/leader/lease.test.ts'], [], {
      globalSetup: '<rootDir>/test/support/setup-kube.ts',
    }),
    backend('postgres', POSTGRES.map((p) => (p.endsWith('/') ? `${p}**/*.test.ts` : p)), [], {
      globalSetup: '<rootDir>/test/support/setup-postgres.ts',
      globalTeardown: '<rootDir>/test/support/teardown-postgres.ts',
    }),
    {
      ...frontend,
      displayName: 'frontend',
      transform: {
        ...frontend.transform,
        // Some of @grafana/data's ESM-only dependencies now ship `.mjs` files (d3-color 3.1.1), which
        // the generated `(t|j)sx?` pattern does not reach: transform them the same way.
        '^.+\\.mjs$': frontend.transform['^.+\\.(t|j)sx?$'],
      },
    },
  ],
};


