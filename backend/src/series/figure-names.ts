// The figures of DESIGN.md, in the order tables show them. The one list: the series stage computes
// them (figures.ts), the query model (query/types.ts, shared with the plugin's frontend) names them.
// Plain constants, no imports, so the frontend bundle takes it as it is.

export const FIGURES = [
  'upSeconds',
  'downSeconds',
  'provisioningSeconds',
  'interruptionDowntimeSeconds',
  'suspendedSeconds',
  'queuedSeconds',
  'unknownSeconds',
  'interruptions',
  'recoveries',
  'mttrSeconds',
  'mtbiSeconds',
  'uptimeRatio',
  'timeToFirstUpSeconds',
  // Goodput (issue 13 §3): where the wall time went. up + queued + provisioning + interruption
  // downtime + suspended (not queued) + unknown = wall, exactly.
  'wallSeconds',
  'schedulingGoodput',
  'suspendedNotQueuedSeconds',
  'queuedFraction',
  'provisioningFraction',
  'interruptionDowntimeFraction',
  'suspendedNotQueuedFraction',
  'unknownFraction',
  'acceleratorSecondsUp',
  'acceleratorSecondsLost',
  'estimatedEffectiveTrainingRatio',
] as const;

/** Goodput figures that are shares of wall time (or ETTR): shown as percent. */
export const RATIO_FIGURES: readonly (typeof FIGURES)[number][] = [
  'schedulingGoodput',
  'queuedFraction',
  'provisioningFraction',
  'interruptionDowntimeFraction',
  'suspendedNotQueuedFraction',
  'unknownFraction',
  'estimatedEffectiveTrainingRatio',
];
