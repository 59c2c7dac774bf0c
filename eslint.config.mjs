import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

import grafanaPluginConfig from './.config/eslint.config.mjs';

// The Grafana plugin's frontend: create-plugin's configuration (.config/eslint.config.mjs, as
// generated: @grafana/eslint-config with React and React Hooks rules, typed rules for src/) applies
// to these files only, so the backend's linting stays what it was.
const FRONTEND_FILES = ['src/**/*.{js,jsx,ts,tsx}', 'tests/**/*.{js,ts}', 'playwright.config.ts'];

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'coverage/',
      '**/results/',
      '.config/',
      'test-results/',
      'playwright-report/',
      'blob-report/',
      'playwright/.cache/',
      'playwright/.auth/',
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
