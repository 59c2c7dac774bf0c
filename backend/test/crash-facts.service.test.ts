// kill -9 right after the node layer attached a cause to a transition already written: after a
// restart the service answers the same JobSet layer (causes included) and the same node layer as it
// did before it died. The trace is ../src/store/fixtures/cluster.jsonl (its README draws it); the
// simulator of crash.service.test.ts has no Pods or Nodes, so it has no node layer to compare.
//
//   minute     0      3        10 10.5          20 21       30   32          45 45.25
//   nodes      prov---up-------down-------------up-----------------------------down
//   jobset     prov---up-----------down------------up--------down-up----------down
//                              ^ n2 NotReady                 ^ restart       ^ n1 NotReady, received
//                                                                              15 s after the down was written

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ready, startServe, type ServeProcess } from '../../test/support/serve.ts';

const TRACE = join(import.meta.dirname, '..', 'src', 'store', 'fixtures', 'cluster.jsonl');
const WINDOW = 'from=2026-01-01T00:00:00Z&to=2026-01-01T01:00:00Z';

interface Answer {
  status: number;
  intervals: string[];
  body: unknown;
}

/** The timeline of ml/train in a layer, its intervals drawn as minute:state(causes). */
async function train(service: ServeProcess, layer: 'jobset' | 'nodes'): Promise<Answer> {
  const res = await fetch(`${service.url}/api/v1/jobsets/ml/train?${WINDOW}&layer=${layer}`);
  const body = (await res.json()) as { timelines?: { intervals: { state: string; from: string; causes?: { kind: string; at: string }[] }[] }[] };
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  const minute = (iso: string): number => (Date.parse(iso) - t0) / 60_000;
  const intervals = (body.timelines?.[0]?.intervals ?? []).map(
    (i) => `${minute(i.from)}:${i.state}${i.causes ? `(${i.causes.map((c) => `${c.kind}@${minute(c.at)}`).join(',')})` : ''}`,
  );
  return { status: res.status, intervals, body };
}

async function stop(service: ServeProcess, signal: NodeJS.Signals): Promise<void> {
  const exited = new Promise((r) => service.child.once('exit', r));
  service.child.kill(signal);
  await exited;
}

describe('kill -9 after a cause was attached to a written transition', () => {
  it('answers the same causes and node layer after the restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'upness-crash-facts-'));
    const data = join(dir, 'data');
    const first = await startServe(['--trace', TRACE, '--data-dir', data]);
    await ready(first);
    // Every answer is made durable before it is served (the store's group commit).
    const before = { jobset: await train(first, 'jobset'), nodes: await train(first, 'nodes') };
    await stop(first, 'SIGKILL');

    // The truth, by hand: what the trace says.
    expect(before.jobset.intervals).toEqual(['0:provisioning', '3:up', '10.5:down(NodeNotReady@10)', '21:up', '30:down(JobSetRestart@30)', '32:up', '45:down(NodeNotReady@45)']);
    expect(before.nodes.intervals).toEqual(['0:provisioning', '2:up', '10:down(NodeNotReady@10)', '20:up', '45:down(NodeNotReady@45)']);

    // Restarted on the same data dir with nothing more to replay: everything comes from the store.
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    const second = await startServe(['--trace', empty, '--data-dir', data]);
    try {
      await ready(second);
      const after = { jobset: await train(second, 'jobset'), nodes: await train(second, 'nodes') };
      expect(after.jobset.intervals).toEqual(before.jobset.intervals);
      expect(after.nodes.status).toBe(200);
      expect(after.nodes.intervals).toEqual(before.nodes.intervals);
      // Figures, horizon and all: the same answers.
      expect(after.jobset.body).toEqual(before.jobset.body);
      expect(after.nodes.body).toEqual(before.nodes.body);
    } finally {
      await stop(second, 'SIGTERM');
    }
  }, 60_000);
});
