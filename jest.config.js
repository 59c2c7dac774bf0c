// Jest runs the TypeScript sources through SWC. The backend is ESM with explicit `.ts` imports for
// Node's type stripping; SWC turns it into CommonJS for Jest, which resolves the `.ts` paths as-is.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/backend', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2023', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }],
  },
  testTimeout: 60_000,
};
