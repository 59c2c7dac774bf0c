/* eslint-disable @typescript-eslint/no-explicit-any -- the bodies are the JSON answers of the API under test */
// Node pools (`layer: nodepools`) through every query type and /api/v1/jobsets, over real HTTP, on
// the Nodes drawn below, with hand-computed answers.

import { iso, min } from '../../../test/support/scenario.ts';
import { startService, type TestService } from '../../../test/support/service.ts';
import type { KubeObject, Observation } from '../observation/types.ts';

//   gpu   (nvidia-h100-80gb; g1, g2; train's pod on g1 at 10)
//     0 ─prov─ 5 ─up─ 60 ─down (g2 NotReady)─ 70 ─up─ 100 ─down (g1 deleted unannounced)─ 110 (g3 Ready) ─up─ 240
//   slice (tpu-v5p-slice 2x2x2: 8 chips ÷ 4 a host = 2 hosts; s1, s2)
//     0 ─up─ 220 completed (both tainted for removal at 200, deleted at 210 and 220)
function node(name: string, pool: string, ready: 'True' | 'False' | 'Unknown', since: number, extra: { taint?: boolean; created?: number } = {}): KubeObject {
  const tpu = pool === 'slice';
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      uid: `uid-${name}`,
      name,
      creationTimestamp: iso(min(extra.created ?? 0)),
      labels: {
        'cloud.google.com/gke-nodepool': pool,
        ...(tpu ? { 'cloud.google.com/gke-tpu-accelerator': 'tpu-v5p-slice', 'cloud.google.com/gke-tpu-topology': '2x2x2' } : { 'cloud.google.com/gke-accelerator': 'nvidia-h100-80gb' }),
      },
    },
    spec: extra.taint ? { taints: [{ key: 'ToBeDeletedByClusterAutoscaler', effect: 'NoSchedule' }] } : {},
    status: { capacity: tpu ? { 'google.com/tpu': '4' } : { 'nvidia.com/gpu': '8' }, conditions: [{ type: 'Ready', status: ready, lastTransitionTime: iso(min(since)) }] },
  };
}
const pod: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { uid: 'pod-1', name: 'train-w-0-0', namespace: 'team-a', labels: { 'jobset.sigs.k8s.io/jobset-name': 'train' } },
  spec: { nodeName: 'g1' },
  status: { phase: 'Running' },
};
const o = (m: number, type: Observation['type'], object: KubeObject): Observation => ({ receivedAt: min(m), type, object });
const observations: Observation[] = [
  o(0, 'ADDED', node('g1', 'gpu', 'False', 0)),
  o(0, 'ADDED', node('g2', 'gpu', 'False', 0)),
  o(0, 'ADDED', node('s1', 'slice', 'True', 0)),
  o(0, 'ADDED', node('s2', 'slice', 'True', 0)),
  o(2, 'MODIFIED', node('g1', 'gpu', 'True', 2)),
  o(5, 'MODIFIED', node('g2', 'gpu', 'True', 5)),
  o(10, 'ADDED', pod),
  o(60.1, 'MODIFIED', node('g2', 'gpu', 'Unknown', 60)),
  o(70.1, 'MODIFIED', node('g2', 'gpu', 'True', 70)),
  o(100, 'DELETED', node('g1', 'gpu', 'True', 2)),
  o(101, 'ADDED', node('g3', 'gpu', 'False', 101, { created: 101 })),
  o(110.1, 'MODIFIED', node('g3', 'gpu', 'True', 110, { created: 101 })),
  o(200, 'MODIFIED', node('s1', 'slice', 'True', 0, { taint: true })),
  o(200, 'MODIFIED', node('s2', 'slice', 'True', 0, { taint: true })),
  o(210, 'DELETED', node('s1', 'slice', 'True', 0, { taint: true })),
  o(220, 'DELETED', node('s2', 'slice', 'True', 0, { taint: true })),
  o(240, 'MODIFIED', node('g2', 'gpu', 'True', 70)),
];
const FROM = String(min(0));
const TO = String(min(240));

let service: TestService;
beforeAll(async () => {
  service = await startService(observations, { nodes: true });
});
afterAll(() => service.close());

async function query(q: Record<string, unknown>) {
  const res = await service.post('/api/v1/query', { from: FROM, to: TO, queries: [{ refId: 'A', layer: 'nodepools', ...q }] });
  expect(res.status).toBe(200);
  expect(res.body.results.A.status).toBe(200);
  return res.body.results.A.frames as any[];
}

function columns(frame: any): Record<string, unknown[]> {
  return Object.fromEntries(frame.schema.fields.map((f: any, i: number) => [f.name, frame.data.values[i]]));
}

describe('layer: nodepools', () => {
  it('summary: a row per pool with its hardware, the JobSets that ran on it, and its figures', async () => {
    const [frame] = await query({ queryType: 'summary', figures: ['upSeconds', 'provisioningSeconds', 'interruptionDowntimeSeconds', 'interruptions', 'mttrSeconds', 'mtbiSeconds'] });
    expect(columns(frame)).toEqual({
      namespace: ['', ''],
      name: ['gpu', 'slice'],
      uid: [`nodepool:gpu:${min(0)}`, `nodepool:slice:${min(0)}`],
      state: ['up', 'completed'],
      accelerator: ['nvidia-h100-80gb', 'tpu-v5p-slice'],
      topology: ['', '2x2x2'],
      ranJobSets: ['team-a/train', ''],
      upSeconds: [(55 + 30 + 130) * 60, 220 * 60],
      provisioningSeconds: [300, 0],
      interruptionDowntimeSeconds: [1200, 0],
      interruptions: [2, 0],
      mttrSeconds: [600, null],
      mtbiSeconds: [((55 + 30) / 2) * 60, null],
    });
  });

  it('summary grouped by pool, accelerator and topology', async () => {
    const [byPool] = await query({ queryType: 'summary', groupBy: 'pool', aggregate: 'pooled', figures: ['interruptions'] });
    expect(columns(byPool)).toEqual({ pool: ['gpu', 'slice'], jobsets: [1, 1], interruptions: [2, 0] });
    const [byTopology] = await query({ queryType: 'summary', groupBy: 'topology', aggregate: 'pooled', figures: ['upSeconds'] });
    expect(columns(byTopology)).toEqual({ topology: ['', '2x2x2'], jobsets: [1, 1], upSeconds: [215 * 60, 220 * 60] });
    const [all] = await query({ queryType: 'summary', groupBy: 'accelerator', aggregate: 'pooled', figures: ['uptimeRatio'] });
    expect(columns(all)).toEqual({ accelerator: ['nvidia-h100-80gb', 'tpu-v5p-slice'], jobsets: [1, 1], uptimeRatio: [215 / 240, 1] });
  });

  it('states: the pool timeline', async () => {
    const frames = await query({ queryType: 'states', name: 'gpu' });
    expect(frames).toHaveLength(1);
    expect(columns(frames[0])).toEqual({
      time: [min(0), min(5), min(60), min(70), min(100), min(110), min(240)],
      state: ['provisioning', 'up', 'down', 'up', 'down', 'up', null],
    });
  });

  it('events: the interruptions, each with the node that caused it', async () => {
    const [frame] = await query({ queryType: 'events' });
    const c = columns(frame);
    expect(c.time).toEqual([min(60), min(100)]);
    expect(c.timeEnd).toEqual([min(70), min(110)]);
    expect(c.kind).toEqual(['interruption', 'interruption']);
    expect(String(c.text![0])).toContain('g2');
    expect(String(c.text![1])).toContain('g1');
  });

  it('series and fleet: uptime by pool', async () => {
    const series = await query({ queryType: 'series', metric: 'upSeconds', window: 'range', groupBy: 'pool', aggregate: 'sum' });
    expect(series.map((f) => [f.schema.fields[1].labels, columns(f).upSeconds])).toEqual([
      [{ pool: 'gpu' }, [215 * 60]],
      [{ pool: 'slice' }, [220 * 60]],
    ]);
    const [fleet] = await query({ queryType: 'fleet', metric: 'interruptions', groupBy: 'all' });
    expect(columns(fleet)).toMatchObject({ jobsets: [2], min: [0], max: [2] });
  });

  it('/api/v1/jobsets?layer=nodepools lists the pools', async () => {
    const res = await service.get(`/api/v1/jobsets?layer=nodepools&from=${FROM}&to=${TO}`);
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).toContain('"gpu"');
    expect(JSON.stringify(res.body)).toContain('"slice"');
  });

  it('/api/v1/values/pools: the pools\' names (a dashboard\'s pool variable), within a range', async () => {
    expect((await service.get('/api/v1/values/pools')).body).toEqual({ values: ['gpu', 'slice'] });
    // The slice ended at 220 min: a range after it lists the gpu pool alone.
    expect((await service.get(`/api/v1/values/pools?from=${min(230)}&to=${TO}`)).body).toEqual({ values: ['gpu'] });
    // A pool's name is a name pattern of its layer: the variable's value narrows the pool queries.
    const [frame] = await query({ queryType: 'summary', name: 'slice', figures: ['upSeconds'] });
    expect(columns(frame).name).toEqual(['slice']);
  });

  it('/api/v1/nodepools/{name}: the pool\'s timelines, intervals and events with their node', async () => {
    const res = await service.get(`/api/v1/nodepools/gpu?from=${FROM}&to=${TO}`);
    expect(res.status).toBe(200);
    const [tl] = res.body.timelines;
    expect(tl.intervals.map((i: any) => [i.state, Date.parse(i.from), i.to === null ? null : Date.parse(i.to)])).toEqual([
      ['provisioning', min(0), min(5)],
      ['up', min(5), min(60)],
      ['down', min(60), min(70)],
      ['up', min(70), min(100)],
      ['down', min(100), min(110)],
      ['up', min(110), null], // still up
    ]);
    expect(tl.events.filter((e: any) => e.type === 'interruption').map((e: any) => e.causes.map((c: any) => c.node))).toEqual([['g2'], ['g1']]);
    expect((await service.get('/api/v1/nodepools/none')).status).toBe(404);
  });

  it('a source of JobSets alone answers with a notice, not an error', async () => {
    const plain = await startService([]);
    try {
      const res = await plain.post('/api/v1/query', { from: FROM, to: TO, queries: [{ refId: 'A', layer: 'nodepools' }] });
      expect(res.body.results.A.frames[0].schema.meta.notices[0].text).toMatch(/^No node pools here/);
      expect((await plain.get('/api/v1/jobsets?layer=nodepools')).status).toBe(404);
      expect((await plain.get('/api/v1/values/pools')).body).toEqual({ values: [] });
    } finally {
      await plain.close();
    }
  });
});
