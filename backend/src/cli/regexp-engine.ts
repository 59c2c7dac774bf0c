// Turns on V8's linear-time regular expression engine (the `l` flag) before anything compiles a
// pattern from a request (query/selector.ts): name patterns then cannot backtrack exponentially.
// Imported first by the command line's entry (main.ts); the backend's test tiers do the same in
// their setup (test/support/regexp-engine.cjs).
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--enable-experimental-regexp-engine');
