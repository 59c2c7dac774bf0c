// Two Jest projects, one `jest --ci` run:
// - backend: the service. Jest runs the TypeScript sources through SWC. The backend is ESM with
//   explicit `.ts` imports for Node's type stripping; SWC turns it into CommonJS for Jest, which
//   resolves the `.ts` paths as-is.
// - frontend: the Grafana plugin (src/), with @grafana/create-plugin's configuration as generated
//   in .config/ (jsdom, SWC, Testing Library), extended here as create-plugin documents.

// create-plugin's root jest.config.js also forces TZ=UTC for snapshot tests; the frontend has no
// snapshots and no test here depends on the timezone, so it is left out to keep the backend's
// environment exactly as it was.

const frontend = require('./.config/jest.config');

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 60_000,
  projects: [
    {
      displayName: 'backend',
      testEnvironment: 'node',
      roots: ['<rootDir>/backend', '<rootDir>/test'],
      testMatch: ['**/*.test.ts'],
      transform: {
        '^.+\\.ts$': [
          '@swc/jest',
          { jsc: { target: 'es2023', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
        ],
      },
    },
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
