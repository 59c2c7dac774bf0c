// The Jest projects are the test tiers (README: "Development"); `npm run test:<tier>` runs one,
// `npm test` runs them all. A test file's tier shows in its name or its folder, never in a list of
// files here (test/support/tiers.service.test.ts checks both: each file in exactly one tier, and no
// file named in this config):
// - unit: a plain `*.test.ts` under backend/src (the pure stages, in-process), and the static checks
//   of files anywhere (`*.static.test.ts`: no service, no process, e.g. the provisioning files and
//   test/support/imports.static.test.ts, every imported package declared), in seconds;
// - service (`*.service.test.ts`, and `*.live.test.ts`: the provisioning against a live service): the
//   HTTP API, the stores on disk, the CLI and service processes, replay, the repository's own checks
//   that run processes;
// - kube (`*.kube.test.ts`, and everything in test/kube/): a real kube-apiserver and etcd (built
//   from pinned Go modules before the first test);
// - postgres (`*.postgres.test.ts`, and everything in test/postgres/): a real PostgreSQL (Debian's
//   package, installed before the first test), some with a kube-apiserver for the Lease;
// - frontend: the Grafana plugin (src/), with @grafana/create-plugin's configuration as generated in
//   .config/ (jsdom, SWC, Testing Library), extended here as create-plugin documents.
// The backend is ESM with explicit `.ts` imports for Node's type stripping; SWC turns it into
// CommonJS for Jest, which resolves the `.ts` paths as-is. The backend tiers run in an environment
// (test/support/environment.cjs) that kills any server a test file left running when it ends.

// create-plugin's root jest.config.js also forces TZ=UTC for snapshot tests; the frontend has no
// snapshots and no test here depends on the timezone, so it is left out to keep the backend's
// environment exactly as it was.

const frontend = require('./.config/jest.config');

/** The backend's test files: the backend and the repository's own tests (src/ is the frontend's). */
const BACKEND_ROOTS = ['<rootDir>/backend/', '<rootDir>/test/'];
/** A name that says the tier, wherever the file is. */
const named = (...endings) => BACKEND_ROOTS.flatMap((root) => endings.map((ending) => `${root}**/*${ending}`));
/** A folder that is a tier: everything in it. */
const folder = (dir) => `<rootDir>/${dir}/**/*.test.ts`;
const ENDINGS = {
  service: ['.service.test.ts', '.live.test.ts'],
  kube: ['.kube.test.ts'],
  postgres: ['.postgres.test.ts'],
};
const TIER_FOLDERS = { kube: 'test/kube', postgres: 'test/postgres' };

/** Packages that ship only ES modules, reached from the backend (client-node and its imports) and its tests. */
const ESM_ONLY = [
  '@kubernetes/client-node',
  'openid-client',
  'oauth4webapi',
  'jose',
  'jsonpath-plus',
  'socks-proxy-agent',
  'agent-base',
  'rfc4648',
  // The OpenAPI validator's reference parser (test only).
  '@apidevtools/json-schema-ref-parser',
];

/** Jest takes ignore patterns as regular expressions of absolute paths. */
const literally = (paths) => paths.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

/** Ignore what another tier claims: its folders (prefixes) and its names (endings). */
const backend = (displayName, testMatch, { folders = [], endings = [] }, extra = {}) => ({
  displayName,
  testEnvironment: '<rootDir>/test/support/environment.cjs',
  setupFiles: ['<rootDir>/test/support/regexp-engine.cjs'],
  testMatch,
  testPathIgnorePatterns: [
    '/node_modules/',
    ...literally(folders.map((dir) => `<rootDir>/${dir}/`)),
    ...literally(endings).map((e) => `${e}$`),
  ],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { target: 'es2023', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
    ],
    // The ESM-only packages the backend uses (@kubernetes/client-node and what it imports), turned
    // into CommonJS the same way: Jest's module system cannot load ES modules without a flag.
    '^.+\\.m?js$': [
      '@swc/jest',
      { jsc: { target: 'es2023', parser: { syntax: 'ecmascript' } }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  ...extra,
});

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 60_000,
  projects: [
    backend('unit', ['<rootDir>/backend/src/**/*.test.ts', ...named('.static.test.ts')], {
      folders: Object.values(TIER_FOLDERS),
      endings: [...ENDINGS.service, ...ENDINGS.kube, ...ENDINGS.postgres],
    }),
    backend(
      'service',
      named(...ENDINGS.service),
      { folders: Object.values(TIER_FOLDERS) },
      { globalSetup: '<rootDir>/test/support/setup-service.ts' }
    ),
    backend(
      'kube',
      [folder(TIER_FOLDERS.kube), ...named(...ENDINGS.kube)],
      { folders: [TIER_FOLDERS.postgres] },
      {
        globalSetup: '<rootDir>/test/support/setup-kube.ts',
      }
    ),
    backend(
      'postgres',
      [folder(TIER_FOLDERS.postgres), ...named(...ENDINGS.postgres)],
      { folders: [TIER_FOLDERS.kube] },
      {
        globalSetup: '<rootDir>/test/support/setup-postgres.ts',
        globalTeardown: '<rootDir>/test/support/teardown-postgres.ts',
      }
    ),
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
