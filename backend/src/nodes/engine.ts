// The engine of a cluster source (a live watch or a recorded trace of one): the JobSet layer of
// TimelineEngine, and beside it the node layer, fed the same observations in the same order.
//
// The node layer sees a JobSet observation inside the engine's onUpdate, before any onUpdate given
// here (a store): the causes it attaches to the JobSet layer's new transitions are on them when
// they are persisted. It gets the JobSet layer's update (the JobSet's view), never the object.

import { TimelineEngine, type JobSetUpdate } from '../timeline/engine.ts';
import type { MachineState } from '../timeline/machine.ts';
import type { Observation } from '../observation/types.ts';
import type { Timeline } from '../timeline/types.ts';
import { NodeLayer, type NodeLayerOptions } from './layer.ts';

/** TimelineEngine's options (all passed on to it), and the node layer's. */
export type ClusterEngineOptions = NonNullable<ConstructorParameters<typeof TimelineEngine>[0]> & NodeLayerOptions;

export class ClusterEngine extends TimelineEngine {
  readonly nodeLayer: NodeLayer;

  constructor(options: ClusterEngineOptions = {}) {
    const { causeLookbackMs, causeLookaheadMs, onUpdate, ...engineOptions } = options;
    // The engine calls onUpdate from observe(), so only once this constructor has finished.
    const hook: { jobset: (update: JobSetUpdate) => void } = { jobset: () => {} };
    super({
      ...engineOptions,
      onUpdate: (update: JobSetUpdate, machine: MachineState) => {
        hook.jobset(update);
        onUpdate?.(update, machine);
      },
    });
    this.nodeLayer = new NodeLayer((uid) => this.timeline(uid), {
      ...(causeLookbackMs !== undefined ? { causeLookbackMs } : {}),
      ...(causeLookaheadMs !== undefined ? { causeLookaheadMs } : {}),
    });
    hook.jobset = (update) => this.nodeLayer.observeJobSet(update);
  }

  override observe(observation: Observation): JobSetUpdate | null {
    const update = super.observe(observation);
    // JobSets reached the node layer through onUpdate; Pods and Nodes go to it here.
    if (update === null) this.nodeLayer.observe(observation);
    return update;
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
