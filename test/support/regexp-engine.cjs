// The service turns on V8's linear-time regular expression engine at start
// (backend/src/cli/regexp-engine.ts); the backend's test tiers run with it on too (setupFiles).
require('node:v8').setFlagsFromString('--enable-experimental-regexp-engine');
