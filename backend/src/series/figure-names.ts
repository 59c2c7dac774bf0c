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
] as const;
