// The engine of a cluster source (a live watch or a recorded trace of one): the JobSet layer of
// TimelineEngine, and beside it the node layer, fed the same observations in the same order.
//
// The node layer sees a JobSet observation inside the engine's onUpdate, after any onUpdate given
// here (a store): the store writes the JobSet layer's new transitions first, then the facts the node
// layer finds about them (onFact: causes, node-layer transitions), so every fact follows what it
// refers to. It gets the JobSet layer's update (the JobSet's view), never the object.

import { TimelineEngine, type JobSetUpdate } from '../timeline/engine.ts';
import type { MachineState } from '../timeline/machine.ts';
import type { Observation } from '../observation/types.ts';
import type { Timeline } from '../timeline/types.ts';
import type { Fact } from '../timeline/facts.ts';
import { NodeLayer, type NodeLayerOptions } from './layer.ts';
import { PoolLayer, type PoolLayerOptions } from './pools/layer.ts';
import type { ClusterViewedObservation } from './viewed.ts';

/** TimelineEngine's options (all passed on to it), the node layer's, and the pool layer's (`pools`). */
export type ClusterEngineOptions = Omit<NonNullable<ConstructorParameters<typeof TimelineEngine>[0]>, 'onFact'> &
  Omit<NodeLayerOptions, 'onFact'> & {
    /** Every fact the engine finds (Kueue's reasons, the node layer's, the pool layer's), in order (a store appends them to its log). */
    onFact?: (fact: Fact) => void;
    pools?: Omit<PoolLayerOptions, 'onFact'>;
  };

export class ClusterEngine extends TimelineEngine {
  readonly nodeLayer: NodeLayer;
  /** The node pools' timelines, fed the same Nodes and Pods (nodes/pools). */
  readonly poolLayer: PoolLayer;

  constructor(options: ClusterEngineOptions = {}) {
    const { causeLookbackMs, causeLookaheadMs, onFact, onUpdate, pools, ...engineOptions } = options;
    // The engine calls onUpdate from observe(), so only once this constructor has finished.
    const hook: { jobset: (update: JobSetUpdate) => void } = { jobset: () => {} };
    super({
      ...engineOptions,
      // A Kueue Workload's reason for a suspension is the JobSet layer's fact; the node layer's are its own.
      ...(onFact !== undefined ? { onFact } : {}),
      onUpdate: (update: JobSetUpdate, machine: MachineState) => {
        onUpdate?.(update, machine);
        hook.jobset(update);
      },
    });
    this.nodeLayer = new NodeLayer((uid) => this.timeline(uid), {
      ...(causeLookbackMs !== undefined ? { causeLookbackMs } : {}),
      ...(causeLookaheadMs !== undefined ? { causeLookaheadMs } : {}),
      ...(onFact !== undefined ? { onFact } : {}),
    });
    hook.jobset = (update) => this.nodeLayer.observeJobSet(update);
    this.poolLayer = new PoolLayer({ ...pools, ...(onFact !== undefined ? { onFact } : {}) });
  }

  override observe(observation: Observation): JobSetUpdate | null {
    const update = super.observe(observation);
    // JobSets reached the node layer through onUpdate; Pods and Nodes go to it here.
    if (update === null) {
      this.nodeLayer.observe(observation);
      this.poolLayer.observe(observation);
    }
    return update;
  }

  /** Feeds one observation already viewed (viewed.ts, with this engine's poolLabel): the same as observe() of the observation it came from. */
  override observeViewed(observation: ClusterViewedObservation): JobSetUpdate | null {
    const update = super.observeViewed(observation);
    // As observe(): JobSets reached the node layer through onUpdate; every other kind goes to it here.
    if (observation.route !== 'JobSet') {
      this.nodeLayer.observeViewed(observation);
      if (observation.route === 'Pod' || observation.route === 'Node') this.poolLayer.observeViewed(observation);
    }
    return update;
  }

  /** Restores the node layers a store kept, after restore() of the JobSet layer (see NodeLayer.restore; `derived`: those kept as derived from their JobSet layer). */
  restoreNodeLayer(timelines: Iterable<Timeline>, observedUntil: number | null, pools: Iterable<Timeline> = [], derived: Iterable<string> = []): void {
    this.nodeLayer.restore(timelines, observedUntil, derived);
    this.poolLayer.restore(pools, observedUntil);
  }

  /** A gap in the Pod or Node watch begins (both layers from Nodes wait for it to end). */
  beginNodeGap(at: number): void {
    this.nodeLayer.beginGap(at);
    this.poolLayer.beginGap(at);
  }

  /** The Pods and Nodes have been listed again. */
  endNodeGap(at: number): void {
    this.nodeLayer.endGap(at);
    this.poolLayer.endGap(at);
  }

  override forget(uids: Iterable<string>): void {
    const list = [...uids];
    // The node layer first: a derived node layer finds its JobSet's name in the JobSet layer.
    this.nodeLayer.forget(list);
    super.forget(list);
  }

  nodeTimelines(): readonly Timeline[] {
    return this.nodeLayer.timelines(this.timelines());
  }

  /** The node layers of the JobSets named `name`, in any namespace (sorted, as nodeTimelines()). */
  nodeTimelinesNamed(name: string): readonly Timeline[] {
    return this.nodeLayer.named(this.timelines(), name);
  }

  poolTimelines(): readonly Timeline[] {
    return this.poolLayer.timelines();
  }

  /** The time up to which the node layer is vouched for: no later than the JobSet layer's horizon. */
  get nodeHorizon(): number | null {
    const horizon = this.horizon;
    const gap = this.nodeLayer.gapStart;
    if (gap === null) return horizon;
    return horizon === null ? gap : Math.min(horizon, gap);
  }
}
