// What broke a JobSet, in a few categories (issue 13 §4): from the causes observed around an
// interruption (timeline/types.ts Cause), the most specific one wins. Beside objects.ts, which
// makes those causes from Pods and Nodes: what their reasons mean is the node layer's knowledge.

import type { Cause } from '../timeline/types.ts';

/** In the order of precedence, and the order a "what broke us" bar chart shows them. */
export const CAUSE_CATEGORIES = ['node', 'pod OOM', 'pod evicted/preempted', 'failure policy', 'unknown'] as const;
export type CauseCategory = (typeof CAUSE_CATEGORIES)[number];

const EVICTED = /^(Evicted|Preempt|PreemptionByScheduler|DeletionByTaintManager|DisruptionTarget|TerminationByKubelet)/;

function categoryOf(c: Cause): CauseCategory {
  if (c.kind === 'NodeNotReady' || c.kind === 'NodeDeleted') return 'node';
  if (c.kind === 'PodFailed' && c.reason === 'OOMKilled') return 'pod OOM';
  if (c.kind === 'PodDisruption' || (c.kind === 'PodFailed' && c.reason !== undefined && EVICTED.test(c.reason))) return 'pod evicted/preempted';
  if (c.kind === 'JobSetRestart' || c.kind === 'JobSetFailed') return 'failure policy';
  return 'unknown';
}

/**
 * The category of an interruption: a node that went away explains the pods that failed on it, a
 * pod's own failure explains the restart the failure policy made of it; nothing observed: unknown.
 */
export function interruptionCategory(causes: readonly Cause[] | undefined): CauseCategory {
  let best = CAUSE_CATEGORIES.length - 1;
  for (const c of causes ?? []) best = Math.min(best, CAUSE_CATEGORIES.indexOf(categoryOf(c)));
  return CAUSE_CATEGORIES[best]!;
}
