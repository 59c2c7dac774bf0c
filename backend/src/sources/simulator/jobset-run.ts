// The life of one simulated JobSet (one UID), as a generator of watch observations in time order,
// and the exact timeline those observations imply (the truth the timeline engine must rebuild).
//
// Lifecycle and distributions (defaults of the "realistic" profile, profile.ts; "demo" is ~10x faster):
//
//   slot     N slots run side by side. Each slot belongs to one namespace (team-a and research submit
//            through Kueue, team-b and ml-platform do not) and one project (llama3-70b, gemma2-9b…).
//            The first JobSet of a slot is created uniformly within 2 h of the start. When a JobSet
//            ends, the slot creates the next one after a gap (log-normal, median 8 min): 30% of the
//            time (50% after a deletion while running) under the SAME name — the old object is deleted
//            first (median 3 min after it ended) and the new one, with a new UID, follows a median
//            30 s later; otherwise under a new name, and the finished JobSet is deleted later (75%,
//            log-normal median 45 min) or left in place.
//   shape    45% TPU multislice ("slice" × 2–8 Jobs of 2–8 hosts, v5p or v5e), 35% GPU ("workers"
//            × 1–4 Jobs of 1–2 H100/A100 nodes), 20% driver + workers (CPU driver, 2–6 TPU or GPU
//            worker Jobs; succeeds with the driver). maxRestarts 3 / 5 / 10 (30 / 40 / 30%).
//   queued   Kueue JobSets are created suspended (Suspended=True at creation) and admitted (resumed)
//            after a log-normal wait, median 6 min (5 s – 12 h); users delete a queued JobSet with
//            mean 2 days of waiting.
//   provision  After creation, a restart or a resume, every Job becomes ready at its own time within a
//            provisioning time (log-normal, median 3 min, 15 s – 45 min): one MODIFIED observation per
//            Job, the last one makes the JobSet up. 6% of attempts crash before up (a Job fails, then
//            status.restarts rises a few seconds later and provisioning starts over).
//   up       Each JobSet draws its MTBI (log-normal, median 8 h); up periods are exponential with that
//            mean. Competing with the next interruption: completion (when accumulated up time reaches
//            the JobSet's work, log-normal median 6 h, 10 min – 10 days), Kueue preemption (mean 36 h
//            of up time, Kueue JobSets only), deletion by a user (mean 5 days of active time), and
//            no-op updates (a checkpoint annotation changes, mean every 2 h).
//   interruption  5% fatal (Failed at once, or after an observed drop); otherwise, if the restart would
//            count (80%; the rest are maintenance, which JobSet ignores for maxRestarts) and no restart
//            is left, Failed after an observed drop; else 20% fast restarts (status.restarts rises with
//            ready counts full: a zero-length down); else 1 (80%) or 2–3 Jobs stop being ready (down),
//            status.restarts rises in the same observation (30%) or 1–30 s later with all ready counts
//            at 0, and the JobSet provisions again until it recovers.
//   preemption  Suspended (spec.suspend and Suspended=True) for a log-normal median 25 min, then resumed
//            (Suspended=False, ResumeJobs) and provisioned again.
//   Both suspensions carry what the JobSet controller writes into the Suspended condition (reason
//   SuspendedJobs, "jobset is suspended"); the truth's suspended transitions carry the same, except
//   with option `workloads`: each Kueue JobSet has its Workload (workload.ts), admitted and preempted
//   a moment before the JobSet is resumed or suspended, and a preemption's truth is the Workload's
//   reason (Preempted, and Kueue's message), which replaces the controller's generic one.
//   completion  Jobs finish one after another over a log-normal median 40 s (the driver last): each moves
//            from ready to succeeded, so the JobSet stays up until the Completed condition.
//   failure  The Failed condition, then the controller tears the Jobs down (an observation the timeline
//            must ignore: it has ended).
//
//   nodes    (option `nodes`; README.md "Nodes, pools and pods") pools made at first admission, pods
//            per attempt bound as their Job becomes ready, 30% of the interruptions of a JobSet whose
//            nodes are up caused by a node (NotReady, or deleted and replaced), planned changes (a
//            surge upgrade of a spare node, the scale-down of idle pools) that cost no uptime.
//
// Time rules (they are what makes the truth exact): the ADDED observation arrives at creation; every
// transition taken from an object timestamp (creation, Suspended / Completed / Failed condition,
// deletionTimestamp) is on a whole second, at least 1 s after the JobSet's previous transition and
// after its previous observation, and its observation arrives 0–1.5 s later with nothing in between;
// transitions that come from ready counts happen at the observation's receivedAt.

import type { KubeObject, Observation, ObservationType } from '../../observation/types.ts';
import type { Cause, State, Suspension, OpenTimeline } from '../../timeline/types.ts';
import { NodeLayerTruth, PoolTruth, Pools, nodeObject, notReadyCause, podObject, type Place, type SimNode } from './cluster.ts';
import { SimWorkload } from './workload.ts';
import type {
  Condition,
  JobSetMetadata,
  JobSetObject,
  JobSetStatus,
  Manifest,
  NamespaceSetup,
  ReplicatedJobStatus,
} from './manifest.ts';
import { NAMESPACES, PROJECTS, newManifest, pickTask } from './manifest.ts';
import type { Profile } from './profile.ts';
import { TIME } from './profile.ts';
import { isoMillis, kubeTime } from './kube-time.ts';
import { Rng } from './rng.ts';

const { SECOND, MINUTE, HOUR, DAY } = TIME;

/** Thrown from deep inside a life when its next observation would fall after the period. */
const PERIOD_END = new Error('simulated period ended');

/** Of the interruptions of a JobSet whose nodes are up (option `nodes`): share caused by a node. */
const NODE_CAUSED_SHARE = 0.3;
/** A node cause is given to the interruption it caused: none of the JobSet's may come just before it. */
const NODE_CAUSE_QUIET = 3 * MINUTE;
/** Mean up time between surge upgrades of a JobSet's spare node (option `nodes`). */
const SURGE_UPGRADE_MEAN = 2 * DAY;

const isInterruption = (s: State): boolean => s === 'down' || s === 'failed';

/** What a phase of a life leads to. */
type Outcome = 'provision' | 'up' | 'ended';

function suspendedCondition(at: number): Condition {
  return Object.freeze({
    type: 'Suspended',
    status: 'True',
    lastTransitionTime: kubeTime(at),
    reason: 'SuspendedJobs',
    message: 'jobset is suspended',
  });
}

/** The truth of why a suspension happened: what the Suspended condition set with it says. */
function why(condition: Condition): Suspension {
  return { reason: condition.reason, message: condition.message };
}

function resumedCondition(at: number): Condition {
  return Object.freeze({
    type: 'Suspended',
    status: 'False',
    lastTransitionTime: kubeTime(at),
    reason: 'ResumeJobs',
    message: 'jobset is resumed',
  });
}

function withCondition(conditions: readonly Condition[], c: Condition): readonly Condition[] {
  // One condition per type, as the controller keeps them; arrays are shared between snapshots, so copy.
  const out = conditions.filter((x) => x.type !== c.type);
  out.push(c);
  return Object.freeze(out);
}

/** A bijection of the slot index onto 4 base-36 characters, so names of different slots never clash. */
function slotTag(index: number): string {
  const space = 36 ** 4;
  return ((index * 7919 + 104729) % space).toString(36).padStart(4, '0');
}

/** One name slot of the fleet: creates JobSets one after another. */
export class Slot {
  readonly index: number;
  readonly seed: number;
  readonly profile: Readonly<Profile>;
  /** Observations at or after this time are not emitted. */
  readonly end: number;
  readonly namespace: NamespaceSetup;
  readonly project: string;
  readonly tag: string;
  /** Pods and Nodes too (the node layer), or the JobSets alone. */
  readonly nodes: boolean;
  /** Kueue's Workloads of the Kueue JobSets too. */
  readonly workloads: boolean;
  private runs = 0;
  private readonly onSpawn: (run: JobSetRun) => void;

  constructor(index: number, seed: number, profile: Readonly<Profile>, end: number, onSpawn: (run: JobSetRun) => void, nodes = false, workloads = false) {
    this.index = index;
    this.nodes = nodes;
    this.workloads = workloads;
    this.seed = seed;
    this.profile = profile;
    this.end = end;
    this.onSpawn = onSpawn;
    const rng = new Rng(seed, 1, index);
    this.namespace = rng.weighted(NAMESPACES, NAMESPACES.map((n) => n.weight));
    this.project = rng.pick(PROJECTS);
    this.tag = slotTag(index);
  }

  /** Schedules a JobSet created at `createdAt` (rounded up to a whole second); `manifest` to reuse a name. */
  spawn(createdAt: number, manifest: Manifest | null): void {
    const at = Math.ceil(createdAt / SECOND) * SECOND;
    if (at >= this.end) return;
    const seq = this.runs++;
    this.onSpawn(new JobSetRun(this, seq, at, manifest));
  }
}

export class JobSetRun {
  readonly slot: Slot;
  /** Order of creation within the slot. */
  readonly seq: number;
  /** Tie-break between JobSets with observations at the same time: by slot, then by creation. */
  readonly order: number;
  readonly manifest: Manifest;
  /** The truth: grows as observations are emitted, and only then. */
  readonly timeline: OpenTimeline;

  private readonly rng: Rng;
  private readonly p: Readonly<Profile>;
  private readonly end: number;
  private readonly uid: string;
  private readonly createdAt: number;
  private readonly creationTimestamp: string;
  private readonly mtbi: number;
  private workLeft: number;

  // The object as the API server would return it next.
  private generation = 1;
  private suspended = false;
  private conditions: readonly Condition[] = Object.freeze([]);
  private restarts = 0;
  private countTowardsMax = 0;
  private terminalState: 'Completed' | 'Failed' | undefined;
  private readonly ready: number[];
  private readonly succeeded: number[];
  private readonly failed: number[];
  private readonly active: number[];
  private readonly suspendedJobs: number[];
  private annotations: Readonly<Record<string, string>> | undefined;
  // JSON text of conditions and annotations, kept in step with them (they change rarely).
  private conditionsJson = '[]';
  private annotationsJson: string | undefined;
  private readonly metadataHead: string;
  private deletionTimestamp: string | undefined;
  private checkpointStep = 0;

  // The cluster under it (option `nodes`): its own random stream, so the JobSet-only stream is
  // unchanged; its pools, made at first admission; the node layer's truth; a Pod or Node pending.
  /** The truth of the node layer (option `nodes`), else null. */
  readonly nodeTimeline: OpenTimeline | null;
  private readonly nodeTruth: NodeLayerTruth | null;
  private readonly nrng: Rng | null;
  private pools: Pools | null = null;
  private aux: KubeObject | null = null;
  /** The node cause of the interruption under way, for the JobSet layer's next interruption. */
  private pendingCause: Cause | null = null;
  private lastInterruptionAt = -Infinity;
  private broken: { place: Place; node: SimNode; deleted: boolean } | null = null;
  /** A node of a GPU or CPU pool that no place uses: what a surge upgrade replaces. */
  private spare: SimNode | null = null;
  /** The truth of its node pools' timelines (option `nodes`), in the order they were made. */
  readonly poolTimelines: OpenTimeline[] = [];
  private readonly poolTruths = new Map<string, PoolTruth>();

  // Kueue's Workload (option `workloads`, Kueue JobSets only), with its own random stream.
  private readonly wrng: Rng | null;
  private readonly workload: SimWorkload | null;

  private readonly steps: Generator<void, void, undefined>;
  private nextType: ObservationType = 'ADDED';
  private lastObservationAt = -Infinity;
  private lastTransitionAt = -Infinity;
  private ended = false;

  constructor(slot: Slot, seq: number, createdAt: number, manifest: Manifest | null) {
    this.slot = slot;
    this.seq = seq;
    this.order = slot.index * 2 ** 22 + seq;
    this.p = slot.profile;
    this.end = slot.end;
    this.rng = new Rng(slot.seed, 2, slot.index, seq);
    if (manifest === null) {
      const task = pickTask(this.rng);
      const name = `${slot.project}-${task}-${slot.tag}-${seq.toString(36)}`;
      manifest = newManifest(this.rng, name, slot.project, task, slot.namespace);
    }
    this.manifest = manifest;
    this.uid = this.rng.uuid([slot.index, seq]);
    this.createdAt = createdAt;
    this.creationTimestamp = kubeTime(createdAt);
    this.metadataHead = `{"name":${JSON.stringify(manifest.name)},"namespace":${JSON.stringify(manifest.namespace)},"uid":"${this.uid}","resourceVersion":`;
    this.mtbi = this.rng.lognormal(this.p.mtbiMedian, this.p.mtbiSigma, 5 * MINUTE, 30 * DAY);
    this.workLeft = this.rng.lognormal(this.p.workMedian, this.p.workSigma, 10 * MINUTE, 10 * DAY);
    const n = manifest.replicas.length;
    this.ready = new Array<number>(n).fill(0);
    this.succeeded = new Array<number>(n).fill(0);
    this.failed = new Array<number>(n).fill(0);
    this.active = new Array<number>(n).fill(0);
    this.suspendedJobs = new Array<number>(n).fill(0);
    this.timeline = {
      uid: this.uid,
      namespace: manifest.namespace,
      name: manifest.name,
      labels: { ...manifest.labels },
      accelerator: manifest.accelerator,
      topology: manifest.topology,
      accelerators: manifest.accelerators,
      pods: manifest.pods,
      checkpointIntervalMs: manifest.checkpointInterval?.ms ?? null,
      createdAt,
      transitions: [],
    };
    this.nodeTruth = slot.nodes ? new NodeLayerTruth(this.timeline) : null;
    this.nodeTimeline = this.nodeTruth?.timeline ?? null;
    this.nrng = slot.nodes ? new Rng(slot.seed, 4, slot.index, seq) : null;
    this.wrng = slot.workloads && manifest.queued ? new Rng(slot.seed, 5, slot.index, seq) : null;
    this.workload = this.wrng === null ? null : new SimWorkload(this.wrng, manifest, this.uid, createdAt);
    const declared = this.declared();
    if (Object.keys(declared).length > 0) {
      this.annotations = Object.freeze(declared);
      this.annotationsJson = JSON.stringify(declared);
    }
    this.steps = this.live();
  }

  /** The annotations the user wrote in the manifest (the checkpoint interval, when it declares one). */
  private declared(): Record<string, string> {
    const interval = this.manifest.checkpointInterval;
    return interval === null ? {} : { 'upness.dev/checkpoint-interval': interval.text };
  }

  /** Receive time of the pending observation (valid after `advance()` returned true). */
  get nextAt(): number {
    return this.lastObservationAt;
  }

  /**
   * Runs the life up to its next observation. False when there is none: deleted, or the next one
   * would be at or after the end of the period.
   */
  advance(): boolean {
    try {
      return this.steps.next().done !== true;
    } catch (e) {
      if (e === PERIOD_END) return false;
      throw e;
    }
  }

  /**
   * The pending observation. Built only when the fleet takes it, from the state the life paused in,
   * so that observations queued in the merge do not hold objects.
   */
  observation(): Observation {
    return { receivedAt: this.lastObservationAt, type: this.nextType, object: this.aux ?? this.snapshot() };
  }

  /**
   * The pending observation as a trace line: the same text as traceLine(observation()) once the
   * fleet has stamped `resourceVersion`, built from cached pieces without making the object.
   */
  traceLine(resourceVersion: string): string {
    if (this.aux !== null) {
      this.aux.metadata.resourceVersion = resourceVersion;
      return `{"time":"${isoMillis(this.lastObservationAt)}","type":"${this.nextType}","object":${JSON.stringify(this.aux)}}`;
    }
    const m = this.manifest;
    let metadata =
      `${this.metadataHead}"${resourceVersion}","generation":${this.generation},` +
      `"creationTimestamp":"${this.creationTimestamp}","labels":${m.labelsJson}`;
    if (this.annotationsJson !== undefined) metadata += `,"annotations":${this.annotationsJson}`;
    if (this.deletionTimestamp !== undefined) {
      metadata += `,"deletionTimestamp":"${this.deletionTimestamp}","deletionGracePeriodSeconds":0`;
    }
    let jobs = '';
    for (let i = 0; i < m.replicas.length; i++) {
      jobs +=
        `${i === 0 ? '' : ','}{"name":${m.replicatedJobNamesJson[i]!},"ready":${this.ready[i]!},` +
        `"succeeded":${this.succeeded[i]!},"failed":${this.failed[i]!},"active":${this.active[i]!},` +
        `"suspended":${this.suspendedJobs[i]!}}`;
    }
    let status =
      `{"conditions":${this.conditionsJson},"restarts":${this.restarts},` +
      `"restartsCountTowardsMax":${this.countTowardsMax},"replicatedJobsStatus":[${jobs}]`;
    if (this.terminalState !== undefined) status += `,"terminalState":"${this.terminalState}"`;
    return (
      `{"time":"${isoMillis(this.lastObservationAt)}","type":"${this.nextType}",` +
      `"object":{"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":${metadata}},` +
      `"spec":${this.suspended ? m.specSuspendedJson : m.specRunningJson},"status":${status}}}}`
    );
  }

  private *live(): Generator<void, void, undefined> {
    const c = this.createdAt;
    let next: Outcome;
    if (this.manifest.queued) {
      // Kueue's webhook suspends the JobSet at creation; it waits for admission.
      this.suspended = true;
      const condition = suspendedCondition(c);
      this.setCondition(condition);
      this.setAll(this.suspendedJobs, this.manifest.replicas);
      this.emit('ADDED', c);
      this.record(c, 'suspended', why(condition));
      yield;
      if (this.workload !== null) {
        // Kueue's JobSet integration creates its Workload, pending in the queue.
        this.workload.pending(c);
        this.emitObject('ADDED', c, this.workload.object());
        yield;
      }
      next = yield* this.waitSuspended(this.rng.lognormal(this.p.queueWaitMedian, this.p.queueWaitSigma, 5 * SECOND, 12 * HOUR));
    } else {
      this.emit('ADDED', c);
      this.record(c, 'provisioning');
      yield;
      // The controller creates the child Jobs a moment later: active counts appear, the state does not change.
      this.setAll(this.active, this.manifest.replicas);
      this.emit('MODIFIED', c + this.rng.int(200, 3000));
      yield;
      next = 'provision';
    }
    while (next !== 'ended') next = next === 'provision' ? yield* this.provision() : yield* this.runUp();
  }

  /** Jobs become ready one by one; the last one makes the JobSet up. Deletion, preemption or a crash may cut in. */
  private *provision(): Generator<void, Outcome, undefined> {
    const { p, rng } = this;
    if (this.nodeTruth !== null) yield* this.createPods();
    const start = this.lastObservationAt;
    const duration = rng.lognormal(p.provisionMedian, p.provisionSigma, 15 * SECOND, 45 * MINUTE);
    const tDelete = rng.exp(p.deleteActiveMean);
    const tPreempt = this.manifest.queued ? rng.exp(p.preemptionMean) : Infinity;
    const tCrash = rng.chance(p.provisionCrashProbability) ? rng.float() * duration : Infinity;
    const tEvent = Math.min(tDelete, tPreempt, tCrash);
    const order = this.jobOrder();
    const offsets = this.spreadOver(order.length, duration);
    for (let k = 0; k < order.length; k++) {
      if (offsets[k]! >= tEvent) break;
      // Its pods are bound to their nodes as the Job becomes ready.
      if (this.nodeTruth !== null) yield* this.bindPods(order[k]!, this.ready[order[k]!]!, start + offsets[k]!);
      this.ready[order[k]!]!++;
      const t = this.after(start + offsets[k]!);
      this.emit('MODIFIED', t);
      if (k === order.length - 1) this.record(t, 'up');
      yield;
    }
    if (tEvent >= duration) return 'up';
    const t = start + tEvent;
    if (tEvent === tDelete) return yield* this.deleteWhileActive(t);
    if (tEvent === tPreempt) return yield* this.preempt(t);
    return yield* this.crash(t);
  }

  /** Up until the next event: completion, interruption, preemption, deletion; no-op updates in between. */
  private *runUp(): Generator<void, Outcome, undefined> {
    const { p, rng } = this;
    for (;;) {
      const now = this.lastObservationAt;
      const tDone = this.workLeft;
      const tFail = rng.exp(this.mtbi);
      const tPreempt = this.manifest.queued ? rng.exp(p.preemptionMean) : Infinity;
      const tDelete = rng.exp(p.deleteActiveMean);
      const tNoop = rng.exp(p.noopUpdateMean);
      const tUpgrade = this.spare === null ? Infinity : this.nrng!.exp(SURGE_UPGRADE_MEAN);
      const dt = Math.min(tDone, tFail, tPreempt, tDelete, tNoop, tUpgrade);
      const t = this.after(now + dt);
      this.workLeft = Math.max(0, this.workLeft - (t - now));
      if (dt === tDone) return yield* this.complete(t);
      if (dt === tUpgrade) {
        // Planned: the JobSet stays up, and the time it takes is up time.
        yield* this.surgeUpgrade(t);
        this.workLeft = Math.max(0, this.workLeft - (this.lastObservationAt - t));
        continue;
      }
      if (dt === tNoop) {
        // A checkpointing sidecar records its progress: resourceVersion moves, the state does not.
        this.checkpointStep += 500 * rng.int(1, 20);
        this.annotations = Object.freeze({ ...this.declared(), 'ml.example.com/last-checkpoint-step': String(this.checkpointStep) });
        this.annotationsJson = JSON.stringify(this.annotations);
        this.emit('MODIFIED', t);
        yield;
        continue;
      }
      if (dt === tDelete) return yield* this.deleteWhileActive(t);
      if (dt === tPreempt) return yield* this.preempt(t);
      const outcome = yield* this.interrupt(t);
      if (outcome !== 'up') return outcome;
    }
  }

  /** An interruption of an up JobSet at `t`. */
  private *interrupt(at: number): Generator<void, Outcome, undefined> {
    const { p, rng } = this;
    let t = at;
    // A node breaks first (option `nodes`); the JobSet's interruption follows within seconds.
    const byNode = this.nrng !== null && t - this.lastInterruptionAt > NODE_CAUSE_QUIET && this.nodesUp() && this.nrng.chance(NODE_CAUSED_SHARE);
    if (byNode) t = yield* this.breakNode(t);
    const counts = rng.chance(p.countsTowardsMaxProbability);
    const r = rng.float();
    if (r < p.fatalShare) {
      // A non-retriable error: the failure policy fails the JobSet, with or without a drop seen first.
      this.dropJobs(1);
      if (rng.chance(0.5)) return yield* this.fail(t, 'FailedJobs');
      this.emit('MODIFIED', t);
      this.record(t, 'down');
      yield;
      return yield* this.fail(this.lastObservationAt + rng.int(SECOND, 10 * SECOND), 'FailedJobs');
    }
    if (counts && this.countTowardsMax >= this.manifest.maxRestarts) {
      // No restart left: the drop is seen, then the controller fails the JobSet.
      this.dropJobs(1);
      this.emit('MODIFIED', t);
      this.record(t, 'down');
      yield;
      return yield* this.fail(this.lastObservationAt + rng.int(SECOND, 10 * SECOND), 'ReachedMaxRestarts');
    }
    if (!byNode && r < p.fatalShare + p.fastRestartShare) {
      // Restarted faster than the watch: restarts rises while every Job is still ready.
      this.restarts++;
      if (counts) this.countTowardsMax++;
      this.emit('MODIFIED', t);
      this.record(t, 'down');
      this.record(t, 'up');
      yield;
      if (this.nodeTruth !== null) yield* this.recreatePodsBound();
      return 'up';
    }
    this.dropJobs(rng.chance(0.2) ? rng.int(2, 3) : 1);
    if (rng.chance(p.restartInDropObservationProbability)) {
      this.resetForRestart(counts);
      this.emit('MODIFIED', t);
      this.record(t, 'down');
      yield;
    } else {
      this.emit('MODIFIED', t);
      this.record(t, 'down');
      yield;
      this.resetForRestart(counts);
      this.emit('MODIFIED', this.after(this.lastObservationAt + rng.int(SECOND, 30 * SECOND)));
      yield;
    }
    if (this.nodeTruth !== null) yield* this.deletePods();
    if (byNode) yield* this.repairNode();
    return 'provision';
  }

  /** A Job fails while the JobSet provisions: restart (no transition) or, with no restart left, fail. */
  private *crash(t: number): Generator<void, Outcome, undefined> {
    const { rng } = this;
    const counts = rng.chance(this.p.countsTowardsMaxProbability);
    const rj = this.pickWeighted(this.active);
    this.failed[rj]!++;
    this.active[rj]!--;
    this.ready[rj] = Math.min(this.ready[rj]!, this.active[rj]!);
    if (counts && this.countTowardsMax >= this.manifest.maxRestarts) return yield* this.fail(t, 'ReachedMaxRestarts');
    this.emit('MODIFIED', this.after(t));
    yield;
    this.resetForRestart(counts);
    this.emit('MODIFIED', this.after(this.lastObservationAt + rng.int(SECOND, 20 * SECOND)));
    yield;
    if (this.nodeTruth !== null) yield* this.deletePods();
    return 'provision';
  }

  /** Kueue preempts the JobSet: suspended at a whole second, Jobs stopped, then resumed later. */
  private *preempt(t: number): Generator<void, Outcome, undefined> {
    const T = this.wholeSecondAfter(t);
    // Kueue evicts the Workload first, then suspends the JobSet: the Workload's reason is the truth.
    let reason: Suspension | null = null;
    if (this.workload !== null) {
      reason = this.workload.preempted(this.wrng!, T);
      this.emitObject('MODIFIED', T, this.workload.object());
      yield;
    }
    this.suspended = true;
    this.generation++;
    const condition = suspendedCondition(T);
    this.setCondition(condition);
    this.setAll(this.ready, null);
    this.setAll(this.active, null);
    this.setAll(this.failed, null);
    this.setAll(this.suspendedJobs, this.manifest.replicas);
    this.emit('MODIFIED', T + this.latency());
    this.record(T, 'suspended', reason ?? why(condition));
    yield;
    if (this.nodeTruth !== null) yield* this.deletePods();
    return yield* this.waitSuspended(this.rng.lognormal(this.p.preemptedMedian, this.p.preemptedSigma, 30 * SECOND, 12 * HOUR));
  }

  /** Suspended for `wait` (unless deleted first), then resumed: provisioning again. */
  private *waitSuspended(wait: number): Generator<void, Outcome, undefined> {
    const now = this.lastObservationAt;
    const tDelete = this.rng.exp(this.p.deleteSuspendedMean);
    if (tDelete < wait) return yield* this.deleteWhileActive(now + tDelete);
    const T = this.wholeSecondAfter(now + wait);
    if (this.workload !== null) {
      // Kueue admits the Workload (clearing its eviction), then resumes the JobSet.
      this.workload.admitted(T);
      this.emitObject('MODIFIED', T, this.workload.object());
      yield;
    }
    this.suspended = false;
    this.generation++;
    this.setCondition(resumedCondition(T));
    this.setAll(this.suspendedJobs, null);
    this.setAll(this.active, this.manifest.replicas);
    this.emit('MODIFIED', T + this.latency());
    this.record(T, 'provisioning');
    yield;
    return 'provision';
  }

  /** Jobs finish one after another (ready → succeeded, so still up), then the Completed condition. */
  private *complete(t: number): Generator<void, Outcome, undefined> {
    const { rng } = this;
    const order = this.jobOrder();
    const last = this.manifest.finishesLast;
    if (last >= 0) {
      // The driver finishes after its workers.
      const others = order.filter((rj) => rj !== last);
      order.length = 0;
      order.push(...others, last);
    }
    const spread = rng.lognormal(this.p.finishSpreadMedian, 0.8, 2 * SECOND, 15 * MINUTE);
    const offsets = this.spreadOver(order.length, spread);
    for (let k = 0; k < order.length; k++) {
      const rj = order[k]!;
      if (this.nodeTruth !== null) yield* this.finishPods(rj, this.succeeded[rj]!, t + offsets[k]!);
      this.ready[rj]!--;
      this.active[rj]!--;
      this.succeeded[rj]!++;
      this.emit('MODIFIED', this.after(t + offsets[k]!));
      yield;
    }
    const T = this.wholeSecondAfter(this.lastObservationAt + rng.int(0, 5 * SECOND));
    this.setCondition(
      Object.freeze({
        type: 'Completed',
        status: 'True',
        lastTransitionTime: kubeTime(T),
        reason: 'AllJobsCompleted',
        message: 'jobset completed successfully',
      }),
    );
    this.terminalState = 'Completed';
    this.emit('MODIFIED', T + this.latency());
    this.record(T, 'completed');
    yield;
    yield* this.afterEnd(T);
    return 'ended';
  }

  /** The Failed condition at the first whole second after `t`, then the Jobs are torn down. */
  private *fail(t: number, reason: 'FailedJobs' | 'ReachedMaxRestarts'): Generator<void, Outcome, undefined> {
    const T = this.wholeSecondAfter(t);
    this.setCondition(
      Object.freeze({
        type: 'Failed',
        status: 'True',
        lastTransitionTime: kubeTime(T),
        reason,
        message:
          reason === 'ReachedMaxRestarts'
            ? 'jobset failed due to reaching max number of restarts'
            : 'jobset failed due to one or more job failures',
      }),
    );
    this.terminalState = 'Failed';
    this.emit('MODIFIED', T + this.latency());
    this.record(T, 'failed');
    yield;
    // After the end the controller deletes the remaining Jobs; the timeline has closed and must ignore it.
    this.setAll(this.ready, null);
    this.setAll(this.active, null);
    this.emit('MODIFIED', this.after(this.lastObservationAt + this.rng.int(SECOND, 15 * SECOND)));
    yield;
    if (this.nodeTruth !== null) yield* this.deletePods();
    yield* this.afterEnd(T);
    return 'ended';
  }

  /** A user deletes a JobSet that has not ended; the slot then creates the next one. */
  private *deleteWhileActive(t: number): Generator<void, Outcome, undefined> {
    const T = yield* this.deleteAt(t);
    const reuse = this.rng.chance(this.p.sameNameAfterDeleteProbability);
    const gap = reuse ? this.rng.lognormal(30 * SECOND, 1, 5 * SECOND, 30 * MINUTE) : this.slotGap();
    this.slot.spawn(Math.max(T + gap, this.lastObservationAt + 1), reuse ? this.manifest : null);
    if (this.nodeTruth !== null) yield* this.scaleDown();
    return 'ended';
  }

  /** After completion or failure at T: the next JobSet of the slot, and maybe the deletion of this one. */
  private *afterEnd(T: number): Generator<void, void, undefined> {
    const { p, rng } = this;
    // Its pools are idle now: the autoscaler removes them.
    if (this.nodeTruth !== null) yield* this.scaleDown();
    if (rng.chance(p.sameNameAfterEndProbability)) {
      // Resubmitted under the same name: the old object must go first.
      const deletedAt = yield* this.deleteAt(T + rng.lognormal(3 * MINUTE, 1, 10 * SECOND, 2 * HOUR));
      this.slot.spawn(Math.max(deletedAt + rng.lognormal(30 * SECOND, 1, 5 * SECOND, 30 * MINUTE), this.lastObservationAt + 1), this.manifest);
      return;
    }
    this.slot.spawn(Math.max(T + this.slotGap(), this.lastObservationAt + 1), null);
    if (rng.chance(p.deleteFinishedProbability)) {
      yield* this.deleteAt(T + rng.lognormal(p.deleteFinishedMedian, p.deleteFinishedSigma, MINUTE, 3 * DAY));
    }
  }

  /** The DELETED observation; a `deleted` transition unless the timeline already ended. Returns its time. */
  private *deleteAt(t: number): Generator<void, number, undefined> {
    const T = this.wholeSecondAfter(t);
    this.deletionTimestamp = kubeTime(T);
    this.emit('DELETED', T + this.rng.int(0, 999));
    if (!this.ended) this.record(T, 'deleted');
    yield;
    // The garbage collector deletes its Workload.
    if (this.workload !== null) {
      this.emitObject('DELETED', this.after(this.lastObservationAt), this.workload.object());
      yield;
    }
    // The garbage collector deletes its Jobs' pods after it.
    if (this.nodeTruth !== null) yield* this.deletePods();
    return T;
  }

  // ---- the cluster under it (option `nodes`) ----

  /** A Pod or Node observation at `t`. */
  private emitObject(type: ObservationType, t: number, object: KubeObject): void {
    this.emit(type, t);
    this.aux = object;
  }

  /** Every place mapped to a node that exists and is Ready: the node layer's "up", as the simulator knows it. */
  private nodesUp(): boolean {
    const pools = this.pools;
    if (pools === null) return false;
    for (const place of pools.places) {
      if (place.mapped === null || pools.nodes.get(place.mapped)?.ready !== 'True') return false;
    }
    return true;
  }

  /** The places or their nodes changed as of `at`: the node layer's truth follows. */
  private nodesMoved(at: number): void {
    this.nodesChanged(this.nodeTruth!.update(at, this.lastObservationAt, this.nodesUp()));
  }

  /** A node-layer transition the truth just took, if any: an interruption marks the time. */
  private nodesChanged(added: { at: number; state: State } | null): void {
    if (added !== null && isInterruption(added.state)) this.lastInterruptionAt = added.at;
  }

  /**
   * At first admission its pools' nodes join (Ready, and a spare node in a GPU or CPU pool); at
   * every attempt the controller's Jobs create one pending pod per place.
   */
  private *createPods(): Generator<void, void, undefined> {
    const nrng = this.nrng!;
    let pools = this.pools;
    if (pools === null) {
      pools = this.pools = new Pools(nrng, this.manifest, `${this.slot.tag}${this.seq.toString(36)}`);
      for (const place of pools.places) {
        const node = pools.newNode(place.rj, place.job, this.after(this.lastObservationAt), 'True');
        place.host = node.name;
        this.emitObject('ADDED', node.createdAt, nodeObject(node));
        this.nodeJoined(node, pools.isTpu(place.rj) ? pools.places.filter((pl) => pl.rj === place.rj && pl.job === place.job).length : null);
        yield;
      }
      const spareOf = pools.places.find((pl) => !pools!.isTpu(pl.rj));
      if (spareOf !== undefined) {
        this.spare = pools.newNode(spareOf.rj, spareOf.job, this.after(this.lastObservationAt), 'True');
        this.emitObject('ADDED', this.spare.createdAt, nodeObject(this.spare));
        this.nodeJoined(this.spare, null);
        yield;
      }
    }
    const jobUids = new Map<string, string>();
    for (const place of pools.places) {
      if (place.pod !== null) continue;
      const at = this.after(this.lastObservationAt);
      const key = `${place.rj}/${place.job}`;
      let jobUid = jobUids.get(key);
      if (jobUid === undefined) jobUids.set(key, (jobUid = nrng.uuid()));
      const jobName = `${this.manifest.name}-${this.manifest.replicatedJobNames[place.rj]!}-${place.job}`;
      place.pod = {
        name: `${jobName}-${place.index}-${nrng.u32().toString(36).slice(0, 5)}`,
        uid: nrng.uuid(),
        jobName,
        jobUid,
        attempt: this.restarts,
        createdAt: at,
        nodeName: null,
        scheduledAt: null,
        phase: 'Pending',
      };
      this.emitObject('ADDED', at, podObject(this.manifest, this.uid, place, place.pod));
      yield;
    }
  }

  /** The pods of Job `job` of replicated job `rj` are bound to their nodes and run, from `t` on. */
  private *bindPods(rj: number, job: number, t: number): Generator<void, void, undefined> {
    for (const place of this.pools!.places) {
      const pod = place.pod;
      if (place.rj !== rj || place.job !== job || pod === null) continue;
      const at = this.after(t);
      pod.nodeName = place.host;
      pod.scheduledAt = Math.floor(at / SECOND) * SECOND;
      pod.phase = 'Running';
      this.emitObject('MODIFIED', at, podObject(this.manifest, this.uid, place, pod));
      this.ranOn(place.host);
      if (place.mapped !== place.host) {
        place.mapped = place.host;
        this.nodesMoved(pod.scheduledAt);
      }
      yield;
    }
  }

  /** The pods of a Job that completes succeed. */
  private *finishPods(rj: number, job: number, t: number): Generator<void, void, undefined> {
    for (const place of this.pools?.places ?? []) {
      const pod = place.pod;
      if (place.rj !== rj || place.job !== job || pod === null) continue;
      pod.phase = 'Succeeded';
      this.emitObject('MODIFIED', this.after(t), podObject(this.manifest, this.uid, place, pod));
      yield;
    }
  }

  /** Every pod is deleted (a restart, a suspension, a teardown); places keep their nodes. */
  private *deletePods(): Generator<void, void, undefined> {
    for (const place of this.pools?.places ?? []) {
      const pod = place.pod;
      if (pod === null) continue;
      const at = this.after(this.lastObservationAt);
      this.emitObject('DELETED', at, podObject(this.manifest, this.uid, place, pod, at));
      place.pod = null;
      yield;
    }
  }

  /** A restart faster than the watch: new pods, on the same nodes, already running. */
  private *recreatePodsBound(): Generator<void, void, undefined> {
    const pools = this.pools;
    if (pools === null) return;
    const old = pools.places.map((place) => place.pod);
    yield* this.deletePods();
    const at = this.after(this.lastObservationAt);
    for (const [i, place] of pools.places.entries()) {
      const before = old[i];
      if (before === null || before === undefined) continue;
      const t = this.after(at);
      place.pod = { ...before, uid: this.nrng!.uuid(), attempt: this.restarts, createdAt: t, nodeName: place.host, scheduledAt: Math.floor(t / SECOND) * SECOND, phase: 'Running' };
      place.pod.name = `${before.jobName}-${place.index}-${this.nrng!.u32().toString(36).slice(0, 5)}`;
      this.emitObject('ADDED', t, podObject(this.manifest, this.uid, place, place.pod));
      this.ranOn(place.host);
      if (place.mapped !== place.host) {
        place.mapped = place.host;
        this.nodesMoved(place.pod.scheduledAt!);
      }
      yield;
    }
  }

  /**
   * A node of the JobSet breaks at `t`: it stops posting status (Ready=Unknown) or is deleted (a
   * VM lost). Its cause is given to the next interruption of each layer. Returns when the JobSet's
   * own interruption is seen: a few seconds later, within the node layer's cause window.
   */
  private *breakNode(t: number): Generator<void, number, undefined> {
    const nrng = this.nrng!;
    const pools = this.pools!;
    const place = nrng.pick(pools.places);
    const node = pools.nodes.get(place.host)!;
    let cause: Cause;
    if (nrng.chance(0.5)) {
      const T = this.wholeSecondAfter(t);
      node.ready = 'Unknown';
      node.readySince = T;
      this.emitObject('MODIFIED', T + nrng.int(0, 1500), nodeObject(node));
      cause = notReadyCause(node);
      this.broken = { place, node, deleted: false };
      this.poolMoved(node.pool, T, cause);
    } else {
      const at = this.after(t);
      pools.nodes.delete(node.name);
      this.emitObject('DELETED', at, nodeObject(node));
      cause = { kind: 'NodeDeleted', at, node: node.name };
      this.broken = { place, node, deleted: true };
      this.poolTruths.get(node.pool)!.lost++;
      this.poolTruths.get(node.pool)!.lastLeftPlanned = false;
      this.poolMoved(node.pool, at, cause);
    }
    this.pendingCause = cause;
    this.nodeTruth!.pendingCause = cause;
    this.nodesMoved(cause.at);
    yield;
    return this.lastObservationAt + nrng.int(2 * SECOND, 20 * SECOND);
  }

  /** The broken node comes back Ready, or a replacement (a new name) joins and becomes Ready. */
  private *repairNode(): Generator<void, void, undefined> {
    const nrng = this.nrng!;
    const broken = this.broken;
    this.broken = null;
    this.pendingCause = null;
    this.nodeTruth!.pendingCause = null;
    if (broken === null) return;
    const pools = this.pools!;
    if (!broken.deleted) {
      const T = this.wholeSecondAfter(this.lastObservationAt + nrng.int(20 * SECOND, 3 * MINUTE));
      broken.node.ready = 'True';
      broken.node.readySince = T;
      this.emitObject('MODIFIED', T + nrng.int(0, 1500), nodeObject(broken.node));
      this.poolMoved(broken.node.pool, T);
      this.nodesMoved(T);
      yield;
      return;
    }
    const { place } = broken;
    const node = pools.newNode(place.rj, place.job, this.after(this.lastObservationAt + nrng.int(30 * SECOND, 2 * MINUTE)), 'False');
    place.host = node.name;
    this.emitObject('ADDED', node.createdAt, nodeObject(node));
    this.nodeBooting(node);
    yield;
    const T = this.wholeSecondAfter(this.lastObservationAt + nrng.int(10 * SECOND, MINUTE));
    node.ready = 'True';
    node.readySince = T;
    this.emitObject('MODIFIED', T + nrng.int(0, 1500), nodeObject(node));
    this.nodeReady(node, true);
    // Nothing is mapped to it until a pod is bound there: the node layer does not move yet.
    this.nodesMoved(T);
    yield;
  }

  /** A surge upgrade of the spare node: its replacement is Ready before it is cordoned, drained and deleted. */
  private *surgeUpgrade(t: number): Generator<void, void, undefined> {
    const nrng = this.nrng!;
    const pools = this.pools!;
    const old = this.spare!;
    const place = pools.places.find((pl) => pools.poolOf(pl.rj, pl.job) === old.pool)!;
    const node = pools.newNode(place.rj, place.job, this.after(t), 'False');
    this.emitObject('ADDED', node.createdAt, nodeObject(node));
    this.nodeBooting(node);
    yield;
    node.ready = 'True';
    node.readySince = this.wholeSecondAfter(this.lastObservationAt + nrng.int(10 * SECOND, MINUTE));
    this.emitObject('MODIFIED', node.readySince + nrng.int(0, 1500), nodeObject(node));
    this.nodeReady(node, false);
    yield;
    old.unschedulable = true;
    this.emitObject('MODIFIED', this.after(this.lastObservationAt + nrng.int(SECOND, 10 * SECOND)), nodeObject(old));
    this.poolMoved(old.pool, this.lastObservationAt);
    yield;
    pools.nodes.delete(old.name);
    this.emitObject('DELETED', this.after(this.lastObservationAt + nrng.int(30 * SECOND, 90 * SECOND)), nodeObject(old));
    this.poolTruths.get(old.pool)!.lastLeftPlanned = true;
    this.poolMoved(old.pool, this.lastObservationAt);
    this.spare = node;
    yield;
  }

  /** The JobSet has ended: its idle nodes are cordoned, then deleted (a scale-down). */
  private *scaleDown(): Generator<void, void, undefined> {
    const pools = this.pools;
    if (pools === null) return;
    const nrng = this.nrng!;
    const nodes = [...pools.nodes.values()];
    let at = this.lastObservationAt + nrng.int(10 * SECOND, MINUTE);
    for (const node of nodes) {
      node.unschedulable = true;
      this.emitObject('MODIFIED', this.after(at), nodeObject(node));
      // A broken node cordoned has left already.
      if (node.ready !== 'True') this.leftAsPlanned(node);
      if (node.ready !== 'True') this.poolTruths.get(node.pool)!.lastLeftPlanned = true;
      this.poolMoved(node.pool, this.lastObservationAt);
      yield;
    }
    at = this.lastObservationAt + nrng.int(5 * SECOND, 30 * SECOND);
    for (const node of nodes) {
      pools.nodes.delete(node.name);
      this.emitObject('DELETED', this.after(at), nodeObject(node));
      if (node.ready === 'True') this.leftAsPlanned(node);
      this.poolTruths.get(node.pool)!.lastLeftPlanned = true;
      this.poolMoved(node.pool, this.lastObservationAt);
      yield;
    }
    this.spare = null;
  }

  // ---- its node pools' truth (option `nodes`; README "Node pools") ----

  /** A node made Ready at first admission: its pool's first node opens the pool's timeline. `hosts`: a TPU slice's. */
  private nodeJoined(node: SimNode, hosts: number | null): void {
    let truth = this.poolTruths.get(node.pool);
    if (truth === undefined) {
      truth = new PoolTruth(node, hosts);
      this.poolTruths.set(node.pool, truth);
      this.poolTimelines.push(truth.timeline);
    }
    this.poolMoved(node.pool, node.readySince);
  }

  /** A new node, not Ready yet: it counts once Ready. */
  private nodeBooting(node: SimNode): void {
    this.poolTruths.get(node.pool)!.booting.add(node.name);
    this.poolMoved(node.pool, node.readySince);
  }

  /** A new node is Ready: it joins its pool, replacing a node lost without warning when it is one. */
  private nodeReady(node: SimNode, replacement: boolean): void {
    const truth = this.poolTruths.get(node.pool)!;
    truth.booting.delete(node.name);
    if (replacement && truth.lost > 0) truth.lost--;
    else if (replacement && truth.planned > 0) truth.planned--;
    this.poolMoved(node.pool, node.readySince);
  }

  /** A counted node of a pool left after its cordon. */
  private leftAsPlanned(node: SimNode): void {
    const truth = this.poolTruths.get(node.pool)!;
    if (truth.everUp && !truth.booting.has(node.name)) truth.planned++;
  }

  /** A pod of this JobSet was bound to `host`: it ran on that node's pool. */
  private ranOn(host: string): void {
    const pool = this.pools!.nodes.get(host)?.pool;
    if (pool !== undefined) this.poolTruths.get(pool)?.ran(`${this.manifest.namespace}/${this.manifest.name}`);
  }

  /** Something changed in `pool` as of `at`, seen now (the last observation): its truth follows. */
  private poolMoved(pool: string, at: number, cause: Cause | null = null): void {
    const truth = this.poolTruths.get(pool);
    if (truth !== undefined) truth.update(this.poolState(truth), at, this.lastObservationAt, cause);
  }

  /**
   * The pool's state as the simulator knows it: ended once every node it has left, the last after a
   * cordon; before its first up, up once its nodes (a slice: all its hosts) are Ready; then up
   * while every counted node (neither booting nor cordoned and gone) is Ready and none is lost (a
   * slice: all its hosts there).
   */
  private poolState(truth: PoolTruth): State {
    const nodes = [...this.pools!.nodes.values()].filter((n) => n.pool === truth.timeline.name);
    const gone = (n: SimNode): boolean => n.unschedulable && n.ready !== 'True';
    if ((truth.lost === 0 || truth.lastLeftPlanned) && nodes.every(gone)) return 'completed';
    if (!truth.everUp) {
      const fresh = nodes.filter((n) => !n.unschedulable);
      if (fresh.length < (truth.hosts ?? 1) || fresh.some((n) => n.ready !== 'True')) return 'provisioning';
      truth.everUp = true;
      truth.lost = 0;
      truth.planned = 0;
      truth.booting.clear();
      return 'up';
    }
    const counted = nodes.filter((n) => !truth.booting.has(n.name) && !gone(n));
    const whole = truth.hosts === null ? truth.lost === 0 : counted.length >= truth.hosts - truth.planned;
    return whole && counted.every((n) => n.ready === 'True') ? 'up' : 'down';
  }

  // ---- helpers ----

  private slotGap(): number {
    return this.rng.lognormal(this.p.slotGapMedian, this.p.slotGapSigma, 5 * SECOND, 2 * DAY);
  }

  /** Watch latency of an observation whose change carries its own timestamp. */
  private latency(): number {
    return this.rng.int(0, 1500);
  }

  /** `t` as an integer, and after this JobSet's previous observation (its observations never share a time). */
  private after(t: number): number {
    return Math.max(Math.round(t), this.lastObservationAt + 1);
  }

  /** The first whole second at or after `t`, ≥ 1 s after the previous transition and after the previous observation. */
  private wholeSecondAfter(t: number): number {
    const floor = Math.max(t, this.lastTransitionAt + SECOND, this.lastObservationAt + 1);
    return Math.ceil(floor / SECOND) * SECOND;
  }

  /** `n` sorted offsets in [0, span], the last exactly at `span`. */
  private spreadOver(n: number, span: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < n - 1; i++) out.push(this.rng.float() * span);
    out.sort((a, b) => a - b);
    out.push(span);
    return out;
  }

  /** One entry per Job (its replicated job's index), shuffled. */
  private jobOrder(): number[] {
    const order: number[] = [];
    const replicas = this.manifest.replicas;
    for (let rj = 0; rj < replicas.length; rj++) for (let j = 0; j < replicas[rj]!; j++) order.push(rj);
    return this.rng.shuffle(order);
  }

  /** A replicated job index, weighted by `counts` (which must not be all zero). */
  private pickWeighted(counts: readonly number[]): number {
    let total = 0;
    for (const c of counts) total += c;
    let x = this.rng.float() * total;
    for (let i = 0; i < counts.length; i++) {
      x -= counts[i]!;
      if (x < 0) return i;
    }
    for (let i = counts.length - 1; i >= 0; i--) if (counts[i]! > 0) return i;
    return 0;
  }

  /** `n` ready Jobs fail (up to all of them). */
  private dropJobs(n: number): void {
    for (let i = 0; i < n; i++) {
      if (this.ready.every((r) => r === 0)) return;
      const rj = this.pickWeighted(this.ready);
      this.ready[rj]!--;
      this.active[rj]!--;
      this.failed[rj]!++;
    }
  }

  /** The controller restarts the JobSet: all Jobs recreated, none ready yet. */
  private resetForRestart(counts: boolean): void {
    this.restarts++;
    if (counts) this.countTowardsMax++;
    this.setAll(this.ready, null);
    this.setAll(this.failed, null);
    this.setAll(this.succeeded, null);
    this.setAll(this.active, this.manifest.replicas);
  }

  private setCondition(c: Condition): void {
    this.conditions = withCondition(this.conditions, c);
    this.conditionsJson = JSON.stringify(this.conditions);
  }

  private setAll(target: number[], values: readonly number[] | null): void {
    for (let i = 0; i < target.length; i++) target[i] = values === null ? 0 : values[i]!;
  }

  private record(at: number, state: State, suspension?: Suspension): void {
    if (at < this.lastTransitionAt) throw new Error(`simulator bug: transition at ${at} before ${this.lastTransitionAt}`);
    const transition = suspension === undefined ? { at, state } : { at, state, suspension };
    this.timeline.transitions.push(transition);
    this.lastTransitionAt = at;
    if (this.nodeTruth !== null) {
      if (isInterruption(state)) {
        this.lastInterruptionAt = at;
        if (this.pendingCause !== null) Object.assign(transition, { causes: [this.pendingCause] });
        this.pendingCause = null;
      }
      this.nodesChanged(this.nodeTruth.jobset(state, at, this.lastObservationAt, this.nodesUp()));
    }
    if (state === 'completed' || state === 'failed' || state === 'deleted') this.ended = true;
  }

  /**
   * Makes the next observation of this JobSet the one at `t` (the generator then yields, and the
   * fleet takes it with `observation()`); throws PERIOD_END at or after the period's end.
   */
  private emit(type: ObservationType, t: number): void {
    if (t >= this.end) throw PERIOD_END;
    if (t < this.lastObservationAt) throw new Error(`simulator bug: observation at ${t} before ${this.lastObservationAt}`);
    this.lastObservationAt = t;
    this.nextType = type;
    this.aux = null;
  }

  /** The object now. Spec, labels and conditions are shared, frozen values; metadata and status are fresh. */
  private snapshot(): JobSetObject {
    const m = this.manifest;
    const replicatedJobsStatus: ReplicatedJobStatus[] = [];
    for (let i = 0; i < m.replicas.length; i++) {
      replicatedJobsStatus.push({
        name: m.replicatedJobNames[i]!,
        ready: this.ready[i]!,
        succeeded: this.succeeded[i]!,
        failed: this.failed[i]!,
        active: this.active[i]!,
        suspended: this.suspendedJobs[i]!,
      });
    }
    const status: JobSetStatus = {
      conditions: this.conditions,
      restarts: this.restarts,
      restartsCountTowardsMax: this.countTowardsMax,
      replicatedJobsStatus,
    };
    if (this.terminalState !== undefined) status.terminalState = this.terminalState;
    // resourceVersion is stamped by the fleet merge, in global order, as etcd would.
    const metadata: JobSetMetadata = {
      name: m.name,
      namespace: m.namespace,
      uid: this.uid,
      resourceVersion: '',
      generation: this.generation,
      creationTimestamp: this.creationTimestamp,
      labels: m.labels,
    };
    if (this.annotations !== undefined) metadata.annotations = this.annotations;
    if (this.deletionTimestamp !== undefined) {
      metadata.deletionTimestamp = this.deletionTimestamp;
      metadata.deletionGracePeriodSeconds = 0;
    }
    return {
      apiVersion: 'jobset.x-k8s.io/v1alpha2',
      kind: 'JobSet',
      metadata,
      spec: this.suspended ? m.specSuspended : m.specRunning,
      status,
    };
  }
}
