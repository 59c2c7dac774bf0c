// The knobs of the simulated fleet. What each one means in a JobSet's life is described in the
// comment block at the top of jobset-run.ts and in README.md. Times are milliseconds.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export interface Profile {
  /** First JobSet of each slot is created uniformly within this long after the start. */
  initialSpread: number;
  /** Kueue admission wait of JobSets created suspended: log-normal median / sigma. */
  queueWaitMedian: number;
  queueWaitSigma: number;
  /** Time for all Jobs of a JobSet to become ready (log-normal), after creation, a restart or a resume. */
  provisionMedian: number;
  provisionSigma: number;
  /** Probability that a provisioning attempt crashes (a Job fails) before the JobSet is up. */
  provisionCrashProbability: number;
  /** Each JobSet draws its own mean time between interruptions: log-normal median / sigma. */
  mtbiMedian: number;
  mtbiSigma: number;
  /** Of the interruptions: share that is a fast restart (restarts rises, ready never drops). */
  fastRestartShare: number;
  /** Of the interruptions: share that fails the JobSet outright (a non-retriable error). */
  fatalShare: number;
  /** Probability that a restart counts towards failurePolicy.maxRestarts (else: maintenance). */
  countsTowardsMaxProbability: number;
  /** Probability that status.restarts rises in the same observation as the ready drop. */
  restartInDropObservationProbability: number;
  /** Work a JobSet must do before it completes: up time, log-normal median / sigma. */
  workMedian: number;
  workSigma: number;
  /** Mean up time between Kueue preemptions (only JobSets with a queue-name label). */
  preemptionMean: number;
  /** How long a preempted JobSet stays suspended: log-normal median / sigma. */
  preemptedMedian: number;
  preemptedSigma: number;
  /** Mean active (not suspended) time before a user deletes a JobSet that has not ended. */
  deleteActiveMean: number;
  /** Mean queued time before a user deletes a JobSet that is still suspended. */
  deleteSuspendedMean: number;
  /** Mean time between no-op updates (an annotation changes; status does not). */
  noopUpdateMean: number;
  /** Replicated jobs finish one after another over this long (log-normal median) at completion. */
  finishSpreadMedian: number;
  /** After a JobSet ends: probability the slot re-creates it under the same name. */
  sameNameAfterEndProbability: number;
  /** After a running JobSet is deleted: probability it is re-created under the same name. */
  sameNameAfterDeleteProbability: number;
  /** When not re-created under its name, probability that a finished JobSet is deleted at all. */
  deleteFinishedProbability: number;
  /** Delay from the end of a finished JobSet to its deletion: log-normal median / sigma. */
  deleteFinishedMedian: number;
  deleteFinishedSigma: number;
  /** Idle time of a slot between one JobSet's end and the next creation: log-normal median. */
  slotGapMedian: number;
  slotGapSigma: number;
}

export const REALISTIC: Readonly<Profile> = Object.freeze({
  initialSpread: 2 * HOUR,
  queueWaitMedian: 6 * MINUTE,
  queueWaitSigma: 1.2,
  provisionMedian: 3 * MINUTE,
  provisionSigma: 0.7,
  provisionCrashProbability: 0.06,
  mtbiMedian: 8 * HOUR,
  mtbiSigma: 0.8,
  fastRestartShare: 0.2,
  fatalShare: 0.05,
  countsTowardsMaxProbability: 0.8,
  restartInDropObservationProbability: 0.3,
  workMedian: 6 * HOUR,
  workSigma: 1,
  preemptionMean: 36 * HOUR,
  preemptedMedian: 25 * MINUTE,
  preemptedSigma: 1,
  deleteActiveMean: 5 * DAY,
  deleteSuspendedMean: 2 * DAY,
  noopUpdateMean: 2 * HOUR,
  finishSpreadMedian: 40 * SECOND,
  sameNameAfterEndProbability: 0.3,
  sameNameAfterDeleteProbability: 0.5,
  deleteFinishedProbability: 0.75,
  deleteFinishedMedian: 45 * MINUTE,
  deleteFinishedSigma: 1.2,
  slotGapMedian: 8 * MINUTE,
  slotGapSigma: 1,
});

/** Everything about ten times faster, so a live demo shows every kind of event within an hour. */
export const DEMO: Readonly<Profile> = Object.freeze({
  ...REALISTIC,
  initialSpread: 10 * MINUTE,
  queueWaitMedian: 90 * SECOND,
  provisionMedian: 45 * SECOND,
  mtbiMedian: 45 * MINUTE,
  workMedian: 90 * MINUTE,
  preemptionMean: 4 * HOUR,
  preemptedMedian: 4 * MINUTE,
  deleteActiveMean: 12 * HOUR,
  deleteSuspendedMean: 6 * HOUR,
  noopUpdateMean: 20 * MINUTE,
  finishSpreadMedian: 15 * SECOND,
  deleteFinishedMedian: 10 * MINUTE,
  slotGapMedian: 2 * MINUTE,
});

/**
 * Large training runs: each JobSet works for weeks, is interrupted every day or two (mostly by
 * maintenance) and recovers, and is seldom deleted early. A slot then makes about 4 JobSet UIDs a
 * month (failed first attempts included), where the realistic mix of short and long jobs makes ~90.
 */
export const LONG_RUNNING: Readonly<Profile> = Object.freeze({
  ...REALISTIC,
  workMedian: 21 * DAY,
  workSigma: 0.4,
  // Interrupted every day or two, mostly by maintenance (which does not count towards maxRestarts).
  mtbiMedian: 36 * HOUR,
  countsTowardsMaxProbability: 0.05,
  fatalShare: 0.01,
  deleteActiveMean: 90 * DAY,
  deleteSuspendedMean: 30 * DAY,
});

export const PROFILES = { realistic: REALISTIC, demo: DEMO, 'long-running': LONG_RUNNING } as const;
export type ProfileName = keyof typeof PROFILES;

/** A profile by name, or overrides of the realistic one. */
export function resolveProfile(profile: ProfileName | Partial<Profile> | undefined): Profile {
  if (profile === undefined) return { ...REALISTIC };
  if (typeof profile === 'string') {
    const named = PROFILES[profile];
    if (named === undefined) throw new RangeError(`unknown simulator profile ${JSON.stringify(profile)}`);
    return { ...named };
  }
  const merged: Profile = { ...REALISTIC, ...profile };
  for (const [key, value] of Object.entries(merged)) {
    if (!(key in REALISTIC)) throw new RangeError(`simulator profile: unknown setting ${key}`);
    if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
      throw new RangeError(`simulator profile: ${key} must be a non-negative number`);
    }
    if ((key.endsWith('Probability') || key.endsWith('Share')) && value > 1) {
      throw new RangeError(`simulator profile: ${key} is a probability, at most 1`);
    }
    // A zero mean would make an event fire again at once, forever; Infinity is how to turn one off.
    if ((key.endsWith('Mean') || key.endsWith('Median')) && value === 0) {
      throw new RangeError(`simulator profile: ${key} must be positive (Infinity turns it off)`);
    }
  }
  if (merged.fatalShare + merged.fastRestartShare > 1) {
    throw new RangeError('simulator profile: fatalShare + fastRestartShare must be at most 1');
  }
  return merged;
}

export const TIME = { SECOND, MINUTE, HOUR, DAY } as const;
