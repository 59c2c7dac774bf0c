// The Upness version that writes a data dir or migrates a database: stored beside the format
// number, so that an older Upness that refuses the data can say which version wrote it. The same as
// package.json's "version" (version.service.test.ts checks it; a release bumps both).

export const UPNESS_VERSION = '0.1.0';
