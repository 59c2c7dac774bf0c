// The node-pool layer: one timeline per node pool (a multi-host TPU slice is its pool), from the Node
// objects alone, with the same states and figures as a JobSet's. README "Node pools" states the rule
// with worked examples; in short:
//
//   provisioning  from the pool's first node until every node it has is Ready (and, for a slice, as
//                 many as its topology needs): then the nodes it has are its members.
//   up / down     up while every member is Ready and none is missing; down otherwise: a member that
//                 went NotReady, or one that vanished unannounced and has not been replaced yet.
//   expected size a slice's hosts (topology chips ÷ chips per host), or an annotation or option, less
//                 the hosts that left as planned until new ones join; else the members: a new node
//                 joins once Ready (a scale-up, a surge upgrade's new node, or the replacement of a
//                 lost one), a node leaves when it goes after it was cordoned or
//                 tainted for removal (a drain, a scale-down, Karpenter disruption, an upgrade's old
//                 node): counted out when it is deleted or stops being Ready, whichever comes first.
//                 A node lost unannounced stays expected until a new node replaces it; a new node that
//                 became Ready within the same second before the loss is its replacement already.
//   ended         when all its nodes have left, the last one as planned (a pool emptied by a loss is
//                 down until a node comes): `completed`. A node that joins later starts a new timeline.
//
// What it finds out is given as facts (`onFact`): each transition, and the nodes that caused an
// interruption. Which JobSets' pods ran on a pool's nodes is kept on the timeline (`jobsets`).
//
// Pure: observations in, transitions out; no clock.

import type { Observation, ObservationType } from '../../observation/types.ts';
import { lastAt, lastState, openTransitions, TERMINAL_STATES, transitionAt, transitionCount, transitionState, type Cause, type State, type Timeline } from '../../timeline/types.ts';
import type { TimelineListener } from '../../timeline/engine.ts';
import { joinCause, poolTimeline, type PoolFact } from '../../timeline/facts.ts';
import { byNamespaceNameUid, markSorted } from '../../timeline/order.ts';
import { isNode, isPod, nodeNotReady, viewNode, viewPod, type NodeView, type PodView, type ReadyStatus } from '../objects.ts';
import type { NodeObservation, PodObservation } from '../viewed.ts';
import { sliceHosts, viewPoolNode, type PoolNodeView } from './objects.ts';

export type { PoolFact } from '../../timeline/facts.ts';

export interface PoolLayerOptions {
  /** A label that names a node's pool where none of the known ones does (objects.ts POOL_LABELS). */
  poolLabel?: string | null;
  /** Expected sizes by pool name, where the cloud tells them (an annotation on the nodes does the same). */
  expectedNodes?: Readonly<Record<string, number>>;
  onFact?: (fact: PoolFact) => void;
}

/** A loss and a new node's Ready closer than this are a replacement: Kubernetes times are whole seconds. */
const SAME_SECOND_MS = 1000;

interface PoolNode {
  uid: string;
  ready: ReadyStatus;
  leaving: boolean;
  /** Counted in the pool's size (it was Ready since it joined, and has not left as planned). */
  member: boolean;
}

interface Pool {
  name: string;
  timeline: Timeline;
  nodes: Map<string, PoolNode>;
  /** Members that vanished unannounced and have not been replaced. */
  lost: number;
  /** A fixed-size pool's members that left as planned and have not been replaced: they lower its size. */
  planned: number;
  /** Whether the last node to leave left as planned: a pool emptied so has ended, one emptied by a loss is down. */
  lastLeftPlanned: boolean;
  everUp: boolean;
  /** A slice's hosts, or an annotation's or option's size; null: the members are the size. */
  fixed: number | null;
  /** When the last join raised the size (a lost member within the same second is replaced by it). */
  lastRaise: number | null;
  jobsets: Set<string>;
  /** Restored from a store: the nodes listed again are the members it had (their state was not kept). */
  adopting: boolean;
}

const poolUid = (name: string, createdAt: number): string => `nodepool:${name}:${createdAt}`;

export class PoolLayer {
  readonly #poolLabel: string | null;
  readonly #expected: Readonly<Record<string, number>>;
  readonly #onFact: (fact: PoolFact) => void;
  /** Pool name → its current (open) timeline's state. */
  readonly #pools = new Map<string, Pool>();
  /** Node name → its pool name. */
  readonly #nodePool = new Map<string, string>();
  /** Every pool timeline, the ended ones too, by uid. */
  readonly #timelines = new Map<string, Timeline>();
  #list: Timeline[] | null = null;
  /** Pool name → when its last timeline ended: a new one begins no earlier. */
  readonly #endedAt = new Map<string, number>();
  /** A gap in the Node watch (or a restart): no transition is decided until it ends. */
  #gap: { start: number } | null = null;
  /** Told of every change to the pool timelines (e.g. the pools' fleet index). */
  readonly #listeners: TimelineListener[] = [];

  constructor(options: PoolLayerOptions = {}) {
    this.#poolLabel = options.poolLabel ?? null;
    this.#expected = options.expectedNodes ?? {};
    this.#onFact = options.onFact ?? (() => {});
  }

  /**
   * Every pool timeline, sorted as the engine's list is (by name, then UID) and marked so: a query of
   * one pool bisects to it. The array is shared until one is added or forgotten (they grow in place).
   */
  timelines(): readonly Timeline[] {
    return (this.#list ??= markSorted([...this.#timelines.values()].sort(byNamespaceNameUid), this));
  }

  timeline(uid: string): Timeline | undefined {
    return this.#timelines.get(uid);
  }

  /** Drops these ended pool timelines (retention). */
  forget(uids: Iterable<string>): void {
    const gone: Timeline[] = [];
    for (const uid of uids) {
      const tl = this.#timelines.get(uid);
      if (tl === undefined || this.#pools.get(tl.name)?.timeline === tl) continue;
      this.#timelines.delete(uid);
      this.#list = null;
      gone.push(tl);
    }
    if (gone.length > 0) for (const l of this.#listeners) l.forgot(gone);
  }

  /** Tells `listener` of every change from now on, after telling it of every pool timeline kept so far. */
  subscribe(listener: TimelineListener): void {
    for (const tl of this.#timelines.values()) if (transitionCount(tl) > 0) listener.grew(tl, 0);
    this.#listeners.push(listener);
  }

  /** For tests: a pool's open timeline's expected size now (null: none open). */
  expectedOf(pool: string): number | null {
    const p = this.#pools.get(pool);
    if (p === undefined) return null;
    return p.fixed === null ? this.#members(p) + p.lost : p.fixed - p.planned;
  }

  /** When the current gap in the Node watch began; null while it is watched. */
  get gapStart(): number | null {
    return this.#gap?.start ?? null;
  }

  /**
   * Restores the pool timelines a store kept, before any observation. Which nodes they had was not
   * kept: the layer is in a gap from `observedUntil`, and the nodes listed again before endGap are
   * taken as the members of the open pools they belong to.
   */
  restore(timelines: Iterable<Timeline>, observedUntil: number | null): void {
    for (const timeline of timelines) {
      if (transitionCount(timeline) === 0) continue;
      this.#timelines.set(timeline.uid, timeline);
      this.#list = null;
      for (const l of this.#listeners) l.grew(timeline, 0);
      if (TERMINAL_STATES.has(lastState(timeline)!)) {
        this.#endedAt.set(timeline.name, Math.max(this.#endedAt.get(timeline.name) ?? -Infinity, lastAt(timeline)));
        continue;
      }
      let everUp = false;
      for (let i = 0; i < transitionCount(timeline); i++) everUp ||= transitionState(timeline, i) === 'up';
      this.#pools.set(timeline.name, {
        name: timeline.name,
        timeline,
        nodes: new Map(),
        lost: 0,
        planned: 0,
        lastLeftPlanned: false,
        everUp,
        fixed: this.#expected[timeline.name] ?? null,
        lastRaise: null,
        jobsets: new Set(timeline.jobsets ?? []),
        adopting: everUp,
      });
    }
    if (observedUntil !== null && this.#pools.size > 0) this.beginGap(observedUntil);
  }

  /** The Node watch broke at `at` (or the service stopped there). */
  beginGap(at: number): void {
    this.#gap ??= { start: at };
  }

  /**
   * The Nodes have been listed again at `at`. A pool whose state is the same as before the gap held
   * it; one whose state changed is `unknown` from the start of the gap until `at`.
   */
  endGap(at: number): void {
    const gap = this.#gap;
    if (gap === null) return;
    this.#gap = null;
    for (const pool of [...this.#pools.values()]) {
      pool.adopting = false;
      const prior = lastState(pool.timeline);
      const state = this.#derive(pool);
      if (prior === null || prior === state) continue;
      this.#enter(pool, 'unknown', gap.start, at);
      this.#enter(pool, state, at, at);
      if (TERMINAL_STATES.has(state)) this.#close(pool);
    }
  }

  /** Feeds one observation: Nodes move pools, Pods tell which JobSets ran on them; others are ignored. */
  observe(observation: Observation): void {
    const { receivedAt, type, object } = observation;
    if (isNode(object)) this.#observeNode(receivedAt, type, viewPoolNode(object, this.#poolLabel), () => viewNode(object));
    else if (isPod(object) && type !== 'DELETED') this.#observePod(viewPod(object));
  }

  /** Feeds one Pod or Node observation already viewed (../viewed.ts, with this layer's poolLabel): the same as observe(). */
  observeViewed(observation: PodObservation | NodeObservation): void {
    const { receivedAt, type } = observation;
    if (observation.route === 'Node') this.#observeNode(receivedAt, type, observation.poolNode, () => observation.node);
    else if (type !== 'DELETED') this.#observePod(observation.pod);
  }

  /** The label option its view of a Node depends on (viewClusterObservation needs it). */
  get poolLabel(): string | null {
    return this.#poolLabel;
  }

  #observePod(pod: PodView): void {
    if (pod.jobsetName === null || pod.nodeName === null) return;
    const pool = this.#pools.get(this.#nodePool.get(pod.nodeName) ?? '');
    if (pool === undefined) return;
    const jobset = `${pod.namespace}/${pod.jobsetName}`;
    if (pool.jobsets.has(jobset)) return;
    pool.jobsets.add(jobset);
    pool.timeline.jobsets = [...pool.jobsets].sort();
    this.#onFact({ kind: 'pool-jobset', uid: pool.timeline.uid, jobset });
  }

  #observeNode(receivedAt: number, type: ObservationType, view: PoolNodeView, nodeView: () => NodeView): void {
    const previousPool = this.#nodePool.get(view.name);
    // A node relabelled into another pool leaves the old one as planned.
    if (previousPool !== undefined && previousPool !== view.pool) {
      const old = this.#pools.get(previousPool);
      this.#nodePool.delete(view.name);
      if (old !== undefined) this.#remove(old, view.name, true, receivedAt, null);
    }
    if (view.pool === null) return;
    if (type === 'DELETED') {
      this.#nodePool.delete(view.name);
      const pool = this.#pools.get(view.pool);
      const node = pool?.nodes.get(view.name);
      if (pool === undefined || node === undefined) return;
      const planned = node.leaving || view.leaving;
      this.#remove(pool, view.name, planned, receivedAt, planned ? null : { kind: 'NodeDeleted', at: receivedAt, node: view.name });
      return;
    }
    let pool = this.#pools.get(view.pool);
    // A node on its way out does not start a timeline (the one it was in may have ended without it).
    if (pool === undefined && view.leaving) return;
    this.#nodePool.set(view.name, view.pool);
    pool ??= this.#open(view, receivedAt);
    this.#learn(pool, view);
    const before = pool.nodes.get(view.name);
    // The Ready condition times a change of readiness; anything else happens when it is seen.
    const at = before === undefined || before.ready !== view.ready ? (view.readySince ?? receivedAt) : receivedAt;
    const node: PoolNode = before ?? { uid: view.uid, ready: view.ready, leaving: view.leaving, member: false };
    const wasReady = before?.ready === 'True';
    node.uid = view.uid;
    node.ready = view.ready;
    node.leaving = view.leaving;
    pool.nodes.set(view.name, node);
    // Restored: a node listed again was there before (not leaving, it is a member).
    if (pool.adopting && !node.leaving) node.member = true;
    if (node.member && node.leaving && node.ready !== 'True') this.#leftAsPlanned(pool, node); // gone as planned
    if (!node.member && pool.everUp && node.ready === 'True' && !node.leaving) {
      node.member = true;
      if (pool.lost > 0) pool.lost--;
      else if (pool.planned > 0) pool.planned--;
      else if (pool.fixed === null) pool.lastRaise = Math.min(Math.max(at, this.#lastAt(pool)), Math.max(receivedAt, this.#lastAt(pool)));
    }
    const cause = node.member && wasReady && node.ready !== 'True' ? nodeNotReady(nodeView(), receivedAt)?.cause : undefined;
    this.#update(pool, at, receivedAt, cause ?? null);
  }

  /** A node left the pool at `receivedAt`: as planned, or unannounced (a member then stays expected). */
  #remove(pool: Pool, name: string, planned: boolean, receivedAt: number, cause: Cause | null): void {
    const node = pool.nodes.get(name);
    if (node === undefined) return;
    pool.nodes.delete(name);
    if (planned && node.member) this.#leftAsPlanned(pool, node);
    pool.lastLeftPlanned = planned;
    if (!planned) {
      // A new node Ready within the same second already replaced it: the size it raised falls back.
      if (pool.fixed === null && pool.lastRaise !== null && receivedAt - pool.lastRaise < SAME_SECOND_MS && node.member) pool.lastRaise = null;
      else if (node.member || !pool.everUp) pool.lost++;
    }
    this.#update(pool, receivedAt, receivedAt, node.member && !planned ? cause : null);
  }

  /** The pool's timeline has ended: nodes that come later start a new one. */
  #close(pool: Pool): void {
    this.#pools.delete(pool.name);
    this.#endedAt.set(pool.name, Math.max(this.#endedAt.get(pool.name) ?? -Infinity, lastAt(pool.timeline)));
  }

  /** A member leaves as planned: it no longer counts, and a fixed size is lowered until a new node joins. */
  #leftAsPlanned(pool: Pool, node: PoolNode): void {
    node.member = false;
    pool.lastLeftPlanned = true;
    if (pool.fixed !== null) pool.planned++;
  }

  #open(view: PoolNodeView, receivedAt: number): Pool {
    const name = view.pool!;
    const floor = this.#endedAt.get(name) ?? -Infinity;
    const createdAt = Math.max(Math.min(view.createdAt ?? receivedAt, receivedAt), floor);
    const timeline = poolTimeline(poolUid(name, createdAt), { name, createdAt, accelerator: null, topology: null });
    const pool: Pool = { name, timeline, nodes: new Map(), lost: 0, planned: 0, lastLeftPlanned: false, everUp: false, fixed: this.#expected[name] ?? null, lastRaise: null, jobsets: new Set(), adopting: false };
    this.#pools.set(name, pool);
    this.#timelines.set(timeline.uid, timeline);
    this.#list = null;
    return pool;
  }

  /** What the nodes' labels say of the pool's hardware and size. */
  #learn(pool: Pool, view: PoolNodeView): void {
    const tl = pool.timeline;
    const before = [tl.labels.accelerator, tl.labels.topology];
    if (view.accelerator !== null) tl.accelerator = view.accelerator;
    if (view.topology !== null) tl.topology = view.topology;
    if (tl.accelerator !== null) tl.labels.accelerator = tl.accelerator;
    if (tl.topology !== null) tl.labels.topology = tl.topology;
    if (transitionCount(tl) > 0 && (tl.labels.accelerator !== before[0] || tl.labels.topology !== before[1])) for (const l of this.#listeners) l.relabeled?.(tl);
    pool.fixed = this.#expected[pool.name] ?? view.expectedNodes ?? sliceHosts(view.topology, view.tpuChips) ?? pool.fixed;
  }

  #members(pool: Pool): number {
    let n = 0;
    for (const node of pool.nodes.values()) if (node.member) n++;
    return n;
  }

  #lastAt(pool: Pool): number {
    return transitionCount(pool.timeline) === 0 ? pool.timeline.createdAt : lastAt(pool.timeline);
  }

  #derive(pool: Pool): State {
    const present = [...pool.nodes.values()];
    // Every node left, or is on its way out and no longer counted, the last one as planned: the pool has ended.
    if ((pool.lost === 0 || pool.lastLeftPlanned) && present.every((n) => n.leaving && !n.member)) return 'completed';
    if (!pool.everUp) {
      const candidates = present.filter((n) => !n.leaving);
      const enough = candidates.length > 0 && candidates.length >= (pool.fixed ?? 1);
      if (!enough || !candidates.every((n) => n.ready === 'True')) return 'provisioning';
      // First up: the nodes it has are what it should have.
      for (const n of candidates) n.member = true;
      pool.lost = 0;
      pool.planned = 0;
      pool.everUp = true;
      return 'up';
    }
    const members = present.filter((n) => n.member);
    const complete = pool.fixed === null ? pool.lost === 0 : members.length >= pool.fixed - pool.planned;
    return complete && members.every((n) => n.ready === 'True') ? 'up' : 'down';
  }

  /** Appends a transition into `state` (times non-decreasing, never later than `receivedAt`), written as a fact. */
  #enter(pool: Pool, state: State, at: number, receivedAt: number): void {
    const tl = pool.timeline;
    // A pool's timeline is never packed (pools are few).
    const transitions = openTransitions(tl);
    const last = transitions.at(-1);
    if (last === undefined) {
      transitions.push({ at: tl.createdAt, state });
      this.#written(pool, 0);
    } else if (last.state !== state && !TERMINAL_STATES.has(last.state)) {
      const floor = last.at;
      transitions.push({ at: Math.min(Math.max(at, floor), Math.max(receivedAt, floor)), state });
      this.#written(pool, transitions.length - 1);
    }
  }

  #update(pool: Pool, at: number, receivedAt: number, cause: Cause | null): void {
    const tl = pool.timeline;
    // In a gap, the state is decided when it ends; a pool first seen in it is unknown until then.
    if (this.#gap !== null && (pool.adopting || transitionCount(tl) > 0)) return;
    this.#enter(pool, this.#gap !== null ? 'unknown' : this.#derive(pool), at, receivedAt);
    const seq = transitionCount(tl) - 1;
    // The node that caused it: given to the interruption, and to the down period it is part of.
    if (cause !== null && transitionState(tl, seq) === 'down' && joinCause(tl, seq, cause)) this.#onFact({ kind: 'pool-cause', uid: tl.uid, seq, cause });
    if (TERMINAL_STATES.has(transitionState(tl, seq))) this.#close(pool);
  }

  #written(pool: Pool, seq: number): void {
    const t = transitionAt(pool.timeline, seq);
    const tl = pool.timeline;
    for (const l of this.#listeners) l.grew(tl, seq);
    this.#onFact({
      kind: 'pool-transition',
      uid: tl.uid,
      seq,
      transition: { at: t.at, state: t.state },
      ...(seq === 0 ? { pool: { name: tl.name, createdAt: tl.createdAt, accelerator: tl.accelerator, topology: tl.topology } } : {}),
    });
  }
}
