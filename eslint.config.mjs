import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

import grafanaPluginConfig from './.config/eslint.config.mjs';

// The Grafana plugin's frontend: create-plugin's configuration (.config/eslint.config.mjs, as
// generated: @grafana/eslint-config with React and React Hooks rules, typed rules for src/) applies
// to these files only, so the backend's linting stays what it was.
// The house's map (README.md "Layout"; ../shared/DESIGN.md has the flow): the backend's stages in
// the order data flows through them. A stage imports only the stages before it, never one after it,
// so the flow stays one-way and a cycle cannot form.
const STAGES = [
  'observation', // leaf: what every source delivers
  'sources', // cluster (Kubernetes watch), trace (files), simulator
  'timeline', // object → view, per-UID state machine → transitions
  'nodes', // node layer and causes, from views
  'store', // memory, embedded log, PostgreSQL
  'series', // interval algebra
  'query', // a request's model: selection, windows, limits
  'service', // sources and stores at run time: followers, retention
  'leader', // Lease election, replicas
  'frames', // Grafana data frames
  'http', // the API
  'cli', // the composition root
];
// Pure stages: values in, values out; no clock, timers, process, file system or network.
const PURE = ['observation', 'timeline', 'nodes', 'series', 'query', 'frames'];
const BACKEND_TESTS = ['backend/src/**/*.test.ts', 'backend/src/**/testing/**'];
const IO_MODULES = ['fs', 'fs/promises', 'child_process', 'net', 'http', 'https', 'http2', 'dgram', 'worker_threads', 'cluster', 'timers', 'timers/promises', 'os', 'process'];
const IO_PACKAGES = ['express', 'pg', '@kubernetes/client-node', 'commander', 'pino', 'prom-client'];

/** Forbids imports (from anywhere under backend/src: ../x/, ../../x/, ...) of `stages`. */
const forbid = (stages, message, allowTypeImports = false) => ({ regex: `^(\\.\\./)+(${stages.join('|')})/`, message, allowTypeImports });
const laterThan = (stage, later) => `backend/src/${stage} comes before ${later.join(', ')} in the flow (eslint.config.mjs STAGES): it may import only the stages above it.`;

function stageRules(stage, index) {
  const later = STAGES.slice(index + 1);
  const patterns = later.length > 0 ? [forbid(later, laterThan(stage, later))] : [];
  const paths = [];
  if (PURE.includes(stage)) {
    for (const name of IO_MODULES) {
      paths.push({ name: `node:${name}`, message: `backend/src/${stage} is pure: no I/O, clock or process (DESIGN.md).` });
      paths.push({ name, message: `backend/src/${stage} is pure: no I/O, clock or process (DESIGN.md).` });
    }
    for (const name of IO_PACKAGES) paths.push({ name, message: `backend/src/${stage} is pure: no framework or client (DESIGN.md).` });
  }
  return {
    files: [`backend/src/${stage}/**/*.ts`],
    ignores: BACKEND_TESTS,
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths, patterns }] },
  };
}

// The simulator is a source and also the oracle: its truth is the timelines it generated, written in
// the timeline's own types (type imports only; never its code).
const simulatorTruth = {
  files: ['backend/src/sources/simulator/**/*.ts'],
  ignores: BACKEND_TESTS,
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          forbid(STAGES.slice(2).filter((s) => s !== 'timeline'), laterThan('sources', STAGES.slice(2))),
          { regex: '^(\\.\\./)+timeline/(?!types\\.ts$)', message: 'the simulator takes only the types of its truth from timeline/types.ts.' },
          { regex: '^(\\.\\./)+timeline/types\\.ts$', message: 'the simulator takes only the types of its truth from timeline/types.ts (import type).', allowTypeImports: true },
        ],
      },
    ],
  },
};

const PURE_MESSAGE = 'is not available in a pure stage (DESIGN.md): take the time or the value as an argument.';
const pureRules = {
  files: PURE.map((stage) => `backend/src/${stage}/**/*.ts`),
  ignores: BACKEND_TESTS,
  rules: {
    'no-restricted-globals': [
      'error',
      ...['process', 'setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate', 'queueMicrotask', 'fetch', 'require', 'performance', 'Buffer'].map(
        (name) => ({ name, message: `${name} ${PURE_MESSAGE}` }),
      ),
    ],
    'no-restricted-properties': [
      'error',
      { object: 'Date', property: 'now', message: `Date.now ${PURE_MESSAGE}` },
      { object: 'globalThis', message: `globalThis ${PURE_MESSAGE}` },
    ],
    'no-restricted-syntax': [
      'error',
      { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: `new Date() (the clock) ${PURE_MESSAGE}` },
      { selector: "CallExpression[callee.name='Date']", message: `Date() (the clock) ${PURE_MESSAGE}` },
      { selector: 'ImportExpression', message: `a dynamic import ${PURE_MESSAGE}` },
    ],
  },
};

const FRONTEND_FILES = ['src/**/*.{js,jsx,ts,tsx}'];

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'coverage/',
      '**/results/',
      '.config/',
      'test-results/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  ...STAGES.map(stageRules),
  simulatorTruth,
  pureRules,
  ...grafanaPluginConfig.map((config) => ({ ...config, files: config.files ?? FRONTEND_FILES })),
  {
    files: FRONTEND_FILES,
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // create-plugin's root Jest setup, run in jsdom.
    files: ['jest-setup.js'],
    languageOptions: { globals: { ...globals.browser, ...globals.jest } },
  }
);
