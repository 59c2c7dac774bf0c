// The fleet simulator: synthetic JobSet watch observations with the exact timelines they imply.
export { DEFAULT_START, simulateFleet } from './fleet.ts';
export type { Fleet, FleetOptions, TruthCallback } from './fleet.ts';
export { DEMO, PROFILES, REALISTIC, resolveProfile } from './profile.ts';
export type { Profile, ProfileName } from './profile.ts';
export type { JobSetObject, JobSetSpec, JobSetStatus, Condition, ReplicatedJobStatus, ShapeKind } from './manifest.ts';
export { averageObjectBytes, objectJson, traceLine, writeTrace } from './trace-output.ts';
export { SIMULATED_USAGE_INTERVAL_MS, simulatedPods, simulatedUsage } from './usage.ts';
export type { SimulatedUsage } from './usage.ts';
