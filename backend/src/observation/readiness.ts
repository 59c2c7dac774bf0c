// Whether what is served may be trusted now, and if not why: said by a source (a watch before its
// first sync, a trace still replaying), a store that cannot write, a follower that cannot read. The
// one readiness type of the service: /readyz and upness_ready report it as it is.

export type Readiness = { ready: true } | { ready: false; reason: string };
