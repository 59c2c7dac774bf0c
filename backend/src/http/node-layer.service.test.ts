/* eslint-disable @typescript-eslint/no-explicit-any -- the bodies are the JSON answers of the API under test */
// The node layer of one JobSet name over real HTTP (the JobSet page's node-layer panel and
// GET /api/v1/jobsets/{ns}/{name}?layer=nodes): found from the JobSet layer's sorted list, in the
// order of namespaces, with hand-computed answers. No Pods: each node layer is provisioning until
// its JobSet ends (nothing ever ran on a node).
//
//   team-b/train (b1)  jobset layer: 0 ─prov─ 5 ─up─ 20 ─down─ 21 ─up─ 30 failed    node layer: 0 ─prov─ 30 failed
//   team-a/train (a1)  jobset layer: 1 ─prov─ 6 ─up─ 60 ─ ...                      node layer: 1 ─prov─ 60 ─ ...
//   team-a/eval  (e1)  jobset layer: 2 ─prov─ 7 ─up─ 60 ─ ...                      node layer: 2 ─prov─ 60 ─ ...

import { min, Scenario } from '../../../test/support/scenario.ts';
import { startService, type TestService } from '../../../test/support/service.ts';

const observations = [
  ...new Scenario({ uid: 'b1', namespace: 'team-b', name: 'train' }, min(0)).created().up(min(5)).down(min(20), { restarts: 1 }).up(min(21)).at(min(30), { failedAt: min(30) }).observations,
  ...new Scenario({ uid: 'a1', namespace: 'team-a', name: 'train' }, min(1)).created().up(min(6)).at(min(60)).observations,
  ...new Scenario({ uid: 'e1', namespace: 'team-a', name: 'eval' }, min(2)).created().up(min(7)).at(min(60)).observations,
].sort((a, b) => a.receivedAt - b.receivedAt);

let service: TestService;
beforeAll(async () => {
  service = await startService(observations, { nodes: true, now: min(60) });
});
afterAll(() => service.close());

describe('the node layer of one name', () => {
  it('GET /api/v1/jobsets/{ns}/{name}?layer=nodes: that namespace\'s JobSet alone', async () => {
    const res = await service.get(`/api/v1/jobsets/team-b/train?layer=nodes&from=${min(0)}&to=${min(60)}`);
    expect(res.status).toBe(200);
    const [tl, ...rest] = (res.body as any).timelines;
    expect(rest).toEqual([]);
    expect(tl).toMatchObject({ uid: 'b1', namespace: 'team-b', name: 'train', state: 'failed' });
    const at = (m: number): string => new Date(min(m)).toISOString();
    expect(tl.intervals.map((i: any) => [i.state, i.from, i.to])).toEqual([
      ['provisioning', at(0), at(30)],
      ['failed', at(30), at(30)],
    ]);
    expect(tl.figures.provisioningSeconds).toBe(30 * 60);
    expect(tl.figures.upSeconds).toBe(0);
    expect((await service.get('/api/v1/jobsets/team-c/train?layer=nodes')).status).toBe(404);
  });

  it('a query of one name on the node layer: a row per namespace that bears it, in their order', async () => {
    const res = await service.post('/api/v1/query', {
      from: String(min(0)),
      to: String(min(60)),
      queries: [{ refId: 'A', layer: 'nodes', name: 'train', queryType: 'summary', figures: ['provisioningSeconds', 'upSeconds'] }],
    });
    expect(res.status).toBe(200);
    const frame = (res.body as any).results.A.frames[0];
    const c = Object.fromEntries(frame.schema.fields.map((f: any, i: number) => [f.name, frame.data.values[i]]));
    expect(c.namespace).toEqual(['team-a', 'team-b']);
    expect(c.uid).toEqual(['a1', 'b1']);
    // a1: provisioning from 1 to 60 (59 m); b1: from 0 to 30.
    expect(c.provisioningSeconds).toEqual([59 * 60, 30 * 60]);
    expect(c.upSeconds).toEqual([0, 0]);
  });
});
