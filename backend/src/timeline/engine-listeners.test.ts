// What the engine tells its listeners when a JobSet's identity changes without a transition: its
// labels (relabeled), its goodput inputs (reweighed), and what groupings read besides labels, its
// accelerator type, topology and pod count (regrouped); nothing when an observation repeats them.

import { simulateFleet } from '../sources/simulator/index.ts';
import { TimelineEngine, type TimelineListener } from './engine.ts';
import { transitionsOf, type Timeline } from './types.ts';

type Spec = { replicatedJobs: { replicas: number; template: { spec: { template: { spec: { nodeSelector: Record<string, string> } } } } }[] };
type KubeObject = { kind?: string; metadata: { uid: string; labels: Record<string, string> }; spec: Spec } & Record<string, unknown>;

describe("the engine's listeners", () => {
  it('are told regrouped when an open JobSet changes accelerator type, topology or pod count, and not when nothing changed', () => {
    const fleet = simulateFleet({ jobsets: 6, days: 1, seed: 3 });
    const engine = new TimelineEngine({});
    const last = new Map<string, KubeObject>();
    for (const o of fleet.observations()) {
      engine.observe(o);
      const object = o.object as unknown as KubeObject;
      if (object.kind === 'JobSet') last.set(object.metadata.uid, object);
    }
    const told: string[] = [];
    const listener: TimelineListener = {
      grew: () => told.push('grew'),
      forgot: () => told.push('forgot'),
      relabeled: () => told.push('relabeled'),
      reweighed: () => told.push('reweighed'),
      regrouped: () => told.push('regrouped'),
    };
    engine.subscribe(listener, true);
    const open = engine.timelines().find((tl: Timeline) => transitionsOf(tl).at(-1)!.state === 'up')!;
    const at = engine.horizon!;
    const observe = (change: (o: KubeObject) => void): string[] => {
      const object = structuredClone(last.get(open.uid)!);
      change(object);
      last.set(open.uid, object);
      told.length = 0;
      engine.observe({ receivedAt: at, type: 'MODIFIED', object: object as never });
      return [...told];
    };
    const selectors = (o: KubeObject): Record<string, string>[] => o.spec.replicatedJobs.map((rj) => rj.template.spec.template.spec.nodeSelector);
    // The same object again: nothing changed.
    expect(observe(() => {})).toEqual([]);
    // Another accelerator type (Kueue's admission sets a suspended JobSet's node selectors).
    expect(observe((o) => selectors(o).forEach((s) => Object.keys(s).forEach((k) => k.endsWith('accelerator') && (s[k] = 'other-accelerator'))))).toEqual(['regrouped']);
    expect(open.accelerator).toBe('other-accelerator');
    // A topology where there was none or another.
    expect(observe((o) => selectors(o).forEach((s) => (s['cloud.google.com/gke-tpu-topology'] = '4x4x8')))).toEqual(['regrouped']);
    expect(open.topology).toBe('4x4x8');
    // More replicas: more pods (and, with accelerators, more of them: reweighed too).
    const pods = open.pods;
    const told2 = observe((o) => o.spec.replicatedJobs.forEach((rj) => (rj.replicas += 1)));
    expect(open.pods).toBeGreaterThan(pods!);
    expect(told2).toContain('regrouped');
    // Labels alone: relabeled, not regrouped.
    expect(observe((o) => (o.metadata.labels['ml.example.com/extra'] = 'yes'))).toEqual(['relabeled']);
  });
});
