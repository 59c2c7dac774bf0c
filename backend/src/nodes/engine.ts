// The engine of a cluster source (a live watch or a recorded trace of one): the JobSet layer of
// TimelineEngine, and beside it the node layer, fed the same observations in the same order.
//
// The node layer sees a JobSet observation inside the engine's onUpdate, before any onUpdate given
// here (a store): the causes it attaches to the JobSet layer's new transitions are on them when
// they are persisted.

import { TimelineEngine, type TimelineUpdate } from '../timeline/engine.ts';
import type { MachineState } from '../timeline/machine.ts';
import type { Observation } from '../observation/types.ts';
import type { Timeline } from '../timeline/types.ts';
import { NodeLayer, type NodeLayerOptions } from './layer.ts';

/** TimelineEngine's options (all passed on to it), and the node layer's. */
export type ClusterEngineOptions = NonNullable<ConstructorParameters<typeof TimelineEngine>[0]> & NodeLayerOptions;

export class ClusterEngine extends TimelineEngine {
  readonly nodeLayer: NodeLayer;
  #current: Observation | null = null;

  constructor(options: ClusterEngineOptions = {}) {
    const { causeLookbackMs, causeLookaheadMs, onUpdate, ...engineOptions } = options;
    // The engine calls onUpdate from observe(), so only once this constructor has finished.
    const hook: { jobset: (update: TimelineUpdate) => void } = { jobset: () => {} };
    super({
      ...engineOptions,
      onUpdate: (update: TimelineUpdate, machine: MachineState) => {
        hook.jobset(update);
        onUpdate?.(update, machine);
      },
    });
    this.nodeLayer = new NodeLayer((uid) => this.timeline(uid), {
      ...(causeLookbackMs !== undefined ? { causeLookbackMs } : {}),
      ...(causeLookaheadMs !== undefined ? { causeLookaheadMs } : {}),
    });
    hook.jobset = (update) => {
      if (this.#current !== null) this.nodeLayer.observe(this.#current, update);
    };
  }

  override observe(observation: Observation): TimelineUpdate | null {
    this.#current = observation;
    try {
      const update = super.observe(observation);
      // JobSets reached the node layer through onUpdate; Pods and Nodes go to it here.
      if (update === null) this.nodeLayer.observe(observation, null);
      return update;
    } finally {
      this.#current = null;
    }
  }

  override forget(uids: Iterable<string>): void {
    const list = [...uids];
    super.forget(list);
    this.nodeLayer.forget(list);
  }

  nodeTimelines(): readonly Timeline[] {
    return this.nodeLayer.timelines();
  }

  /** The time up to which the node layer is vouched for: no later than the JobSet layer's horizon. */
  get nodeHorizon(): number | null {
    const horizon = this.horizon;
    const gap = this.nodeLayer.gapStart;
    if (gap === null) return horizon;
    return horizon === null ? gap : Math.min(horizon, gap);
  }
}
