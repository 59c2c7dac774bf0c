import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

import grafanaPluginConfig from './.config/eslint.config.mjs';
import { checkMap, PURE, STAGE_IMPORTS, TYPES_ONLY } from './eslint.stages.mjs';

// The Grafana plugin's frontend: create-plugin's configuration (.config/eslint.config.mjs, as
// generated: @grafana/eslint-config with React and React Hooks rules, typed rules for src/) applies
// to these files only, so the backend's linting stays what it was.

// The house's map (eslint.stages.mjs; README.md "Layout"; ../shared/DESIGN.md has the flow): each
// stage imports only the stages its entry lists, and a pure stage only pure ones, so the flow stays
// one-way and a cycle cannot form. Every other stage is forbidden by name, with a message that says
// which rule the import breaks.
checkMap();
const STAGES = Object.keys(STAGE_IMPORTS);
const BACKEND_TESTS = ['backend/src/**/*.test.ts'];
// The backend package ships backend/src (and its image copies it): production code there never
// reaches a test helper, which all live under test/ (README "Development"), nor backend/test.
const TEST_HELPERS = {
  regex: '^(?:\\.\\./)+test/',
  message:
    'backend/src is shipped: production code never imports test code (test helpers live in test/support/, README "Development"); only a *.test.ts may.',
};
const IO_MODULES = [
  'fs',
  'fs/promises',
  'child_process',
  'net',
  'http',
  'https',
  'http2',
  'dgram',
  'worker_threads',
  'cluster',
  'timers',
  'timers/promises',
  'os',
  'process',
];
const IO_PACKAGES = ['express', 'pg', '@kubernetes/client-node', 'commander', 'pino', 'prom-client'];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The import specifiers (from anywhere under backend/src: ../x/, ../../x/, ...) that reach `target` from `stage`'s files. */
function reaching(stage, target, file = '') {
  const [group, sub] = target.split('/');
  // A sibling sub-stage: from backend/src/sources/cluster, ../trace/ is backend/src/sources/trace.
  const sibling = sub && stage.startsWith(`${group}/`) ? `|\\.\\./${escape(sub)}/` : '';
  return `^(?:(\\.\\./)+${escape(target)}/${sibling})${escape(file)}`;
}
const mayImport = (stage) =>
  STAGE_IMPORTS[stage].length > 0
    ? `may import only ${STAGE_IMPORTS[stage].join(', ')}`
    : 'is the leaf: it imports no stage';
function refusal(stage, target) {
  if (PURE.includes(stage) && !PURE.includes(target)) {
    return `backend/src/${stage} is pure and may not import backend/src/${target} (I/O): a pure stage imports only pure stages (eslint.stages.mjs PURE).`;
  }
  return `backend/src/${stage} may not import backend/src/${target}: ${stage} ${mayImport(stage)} (eslint.stages.mjs STAGE_IMPORTS, README "Layout").`;
}

function stageRules(stage) {
  const allowed = STAGE_IMPORTS[stage];
  const patterns = STAGES.filter((other) => other !== stage && !allowed.includes(other)).map((other) => ({
    regex: reaching(stage, other),
    message: refusal(stage, other),
  }));
  patterns.push(TEST_HELPERS);
  // A stage allowed only some files of another, as types (the simulator's truth: timeline/types.ts).
  for (const [other, file] of Object.entries(TYPES_ONLY[stage] ?? {})) {
    const only = `${other}/${file}`;
    patterns.push({
      regex: `${reaching(stage, other)}(?!${escape(file)}$)`,
      message: `backend/src/${stage} takes only the types of ${only} from ${other} (eslint.stages.mjs TYPES_ONLY).`,
    });
    patterns.push({
      regex: `${reaching(stage, other, file)}$`,
      message: `backend/src/${stage} takes only the types of ${only} from ${other}: use import type (eslint.stages.mjs TYPES_ONLY).`,
      allowTypeImports: true,
    });
  }
  const paths = [];
  if (PURE.includes(stage)) {
    for (const name of IO_MODULES) {
      paths.push({
        name: `node:${name}`,
        message: `backend/src/${stage} is pure: no I/O, clock or process (DESIGN.md).`,
      });
      paths.push({ name, message: `backend/src/${stage} is pure: no I/O, clock or process (DESIGN.md).` });
    }
    for (const name of IO_PACKAGES)
      paths.push({ name, message: `backend/src/${stage} is pure: no framework or client (DESIGN.md).` });
  }
  return {
    files: [`backend/src/${stage}/**/*.ts`],
    ignores: BACKEND_TESTS,
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths, patterns }] },
  };
}

const PURE_MESSAGE = 'is not available in a pure stage (DESIGN.md): take the time or the value as an argument.';
const pureRules = {
  files: PURE.map((stage) => `backend/src/${stage}/**/*.ts`),
  ignores: BACKEND_TESTS,
  rules: {
    'no-restricted-globals': [
      'error',
      ...[
        'process',
        'setTimeout',
        'setInterval',
        'setImmediate',
        'clearTimeout',
        'clearInterval',
        'clearImmediate',
        'queueMicrotask',
        'fetch',
        'require',
        'performance',
        'Buffer',
      ].map((name) => ({ name, message: `${name} ${PURE_MESSAGE}` })),
    ],
    'no-restricted-properties': [
      'error',
      { object: 'Date', property: 'now', message: `Date.now ${PURE_MESSAGE}` },
      { object: 'globalThis', message: `globalThis ${PURE_MESSAGE}` },
    ],
    'no-restricted-syntax': [
      'error',
      {
        selector: "NewExpression[callee.name='Date'][arguments.length=0]",
        message: `new Date() (the clock) ${PURE_MESSAGE}`,
      },
      { selector: "CallExpression[callee.name='Date']", message: `Date() (the clock) ${PURE_MESSAGE}` },
      { selector: 'ImportExpression', message: `a dynamic import ${PURE_MESSAGE}` },
    ],
  },
};

const FRONTEND_FILES = ['src/**/*.{js,jsx,ts,tsx}'];

export default tseslint.config(
  {
    ignores: ['dist/', 'node_modules/', 'coverage/', '**/results/', '.config/', 'test-results/'],
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
