// Selections kept from one request to the next answer as fresh ones do: over a simulated fleet fed
// in chunks (runs added, growing, closing), a JobSet relabeled, one's accelerator changed, and the horizon moving past a range's
// start with nothing observed (a live source's horizon is the wall clock), every answer with kept
// selections is the answer without them, byte for byte; and they are kept (asked again, found).

import { simulateFleet } from '../sources/simulator/index.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { transitionsOf, type Timeline } from '../timeline/types.ts';
import { runQueries } from './run-request.ts';
import { KeptSelections, type SelectedBy } from '../series/kept-selections.ts';

const HOUR = 3_600_000;

type KubeObject = { kind?: string; metadata: { uid: string; labels: Record<string, string> } } & Record<string, unknown>;

/** Queries whose answers show which JobSets their selection holds: per-JobSet tables and names, filtered every way a selection can be. */
const QUERIES = [
  { queryType: 'summary', groupBy: 'none', format: 'table' },
  { queryType: 'summary', groupBy: 'none', format: 'table', namespaces: ['team-a', 'research'] },
  { queryType: 'summary', groupBy: 'none', format: 'table', labelSelector: 'ml.example.com/team=research' },
  { queryType: 'summary', groupBy: 'none', format: 'table', name: 'gemma2-*' },
  { queryType: 'summary', groupBy: 'none', format: 'table', states: ['up'] },
  { queryType: 'summary', groupBy: 'namespace', aggregate: 'sum' },
  { queryType: 'slo', groupBy: 'none', sloAnswer: 'errorBudget', window: 'range', period: '1d', format: 'table' },
  // The SLO dashboard's two name tables: one selection's sums sorted two ways.
  { queryType: 'slo', groupBy: 'none', sloAnswer: 'errorBudget', window: 'range', period: '1d', sort: { by: 'remainingFraction', direction: 'asc' }, limit: 5 },
  { queryType: 'slo', groupBy: 'none', sloAnswer: 'errorBudget', window: 'range', period: '1d', format: 'table', sort: { by: 'burnRate', direction: 'desc' }, limit: 7 },
  // Each of these differs from the one before in one thing the sums read (a kept sum must not be taken for it).
  { queryType: 'slo', groupBy: 'none', sloAnswer: 'errorBudget', window: 'range', period: '1d', objective: 0.99, format: 'table', sort: { by: 'remainingFraction', direction: 'asc' }, limit: 7 },
  { queryType: 'slo', groupBy: 'none', sloAnswer: 'errorBudget', window: 'range', period: '1d', format: 'table', sort: { by: 'burnRate', direction: 'desc' }, limit: 4 },
  { queryType: 'slo', groupBy: 'none', sloAnswer: 'errorBudget', window: 'range', period: '1d', indicator: 'schedulingGoodput', format: 'table', sort: { by: 'remainingFraction', direction: 'asc' }, limit: 7 },
  { queryType: 'slo', groupBy: 'none', sloAnswer: 'errorBudget', window: 'range', period: '1d', format: 'table', sort: { by: 'remainingFraction', direction: 'asc' }, limit: 4 },
  { queryType: 'slo', groupBy: 'none', sloAnswer: 'errorBudget', window: 'range', period: '1d', burnWindow: '6h', format: 'table', sort: { by: 'burnRate', direction: 'desc' }, limit: 7 },
  // Distributions and a few rows of many, by namespace and by size: one selection's swept runs and groups, kept with it.
  { queryType: 'fleet', metric: 'mtbiSeconds', groupBy: 'namespace' },
  { queryType: 'fleet', metric: 'timeToFirstUpSeconds', groupBy: 'size' },
  { queryType: 'fleet', metric: 'uptimeRatio', groupBy: 'namespace' },
  // Groups by what a JobSet's spec says (its accelerator type: Kueue sets a suspended one's node selectors on admission).
  { queryType: 'fleet', metric: 'uptimeRatio', groupBy: 'accelerator' },
  { queryType: 'summary', sort: { by: 'uptimeRatio', direction: 'asc' }, limit: 2 },
  { queryType: 'summary', sort: { by: 'timeToFirstUpSeconds', direction: 'desc' }, limit: 3 },
  { queryType: 'series', metric: 'uptimeRatio', groupBy: 'size', aggregate: 'pooled', window: 'range' },
  { queryType: 'series', metric: 'interruptions', groupBy: 'namespace', aggregate: 'sum', window: 'range' },
].map((q, i) => ({ refId: `q${i}`, ...q }));

describe('selections kept from one request to the next', () => {
  it('answer as fresh selections do while the fleet grows, a JobSet is relabeled and the horizon moves; and are found again', () => {
    const fleet = simulateFleet({ jobsets: 30, days: 2, seed: 7 });
    const engine = new TimelineEngine({});
    // Room for every selection the asks make (the default bound would drop some between asks).
    const kept = new KeptSelections(1000);
    engine.subscribe(kept, true);
    const observations = [...fleet.observations()];
    const last = new Map<string, KubeObject>();
    const chunks = 5;
    let relabeled = false;
    let regrouped = false;
    let closed = false;
    for (let c = 1; c <= chunks; c++) {
      for (const o of observations.slice(Math.floor(((c - 1) * observations.length) / chunks), Math.floor((c * observations.length) / chunks))) {
        engine.observe(o);
        const object = o.object as unknown as KubeObject;
        if (object.kind === 'JobSet') last.set(object.metadata.uid, object);
      }
      const horizon = engine.horizon!;
      const askAll = (): void => {
        // Ranges: the history so far, the hours before the horizon, and hours after it, asked first at
        // the horizon (before the range: open runs have not lived there) and then as a live source
        // asks later (its horizon past the range's start: they have), with nothing observed between.
        const asks: [number, number, number][] = [
          [fleet.start, horizon, horizon],
          [horizon - 6 * HOUR, horizon - HOUR, horizon],
          [horizon + HOUR, horizon + 2 * HOUR, horizon],
          [horizon + HOUR, horizon + 2 * HOUR, horizon + 3 * HOUR],
          // A range across the horizon: one selection for both (each horizon after its start), but open runs accrue up to the horizon.
          [horizon - HOUR, horizon + HOUR, horizon],
          [horizon - HOUR, horizon + HOUR, horizon + 2 * HOUR],
          [fleet.start, horizon, horizon],
        ];
        const fresh = (body: { from: string; to: string }, h: number, queries: readonly object[]): string =>
          // The reference: each query a request of its own, without kept selections (nothing shared between queries).
          JSON.stringify(Object.assign(Object.create(null), ...queries.map((q) => runQueries({ ...body, queries: [q] }, { timelines: engine.timelines(), horizon: h }, h).results)));
        const withKept = (body: { from: string; to: string }, h: number, queries: readonly object[]): string =>
          JSON.stringify(runQueries({ ...body, queries }, { timelines: engine.timelines(), horizon: h, kept }, h).results);
        // Each query a request of its own, as a dashboard's panels ask, over every range in turn (one
        // panel's refreshes), then all of them in one request (a panel of many queries).
        for (const q of QUERIES) {
          for (const [from, to, h] of asks) {
            const body = { from: String(from), to: String(to) };
            const expected = fresh(body, h, [q]);
            for (let again = 0; again < 2; again++) expect(withKept(body, h, [q])).toBe(expected);
          }
        }
        for (const [from, to, h] of asks) {
          const body = { from: String(from), to: String(to) };
          expect(withKept(body, h, QUERIES)).toBe(fresh(body, h, QUERIES));
        }
      };
      askAll();
      // Changes that leave the list as it is (no run added or dropped), asked about again.
      const openUp = (team: string): Timeline =>
        engine.timelines().find((tl: Timeline) => tl.labels['ml.example.com/team'] === team && transitionsOf(tl).at(-1)!.state === 'up')!;
      if (c === 2) {
        // An open JobSet's pods are to run on another accelerator (its spec's node selector edited): nothing grows, its group changes.
        const object = structuredClone(last.get(openUp('research').uid)!) as KubeObject & { spec: { replicatedJobs: { template: { spec: { template: { spec: { nodeSelector: Record<string, string> } } } } }[] } };
        for (const rj of object.spec.replicatedJobs) {
          const selector = rj.template.spec.template.spec.nodeSelector;
          for (const key of Object.keys(selector)) if (key.endsWith('accelerator')) selector[key] = 'accelerator-moved';
        }
        const list = engine.timelines();
        engine.observe({ receivedAt: horizon, type: 'MODIFIED', object: object as never });
        expect(engine.timelines()).toBe(list);
        expect(engine.timelines().some((tl: Timeline) => tl.accelerator === 'accelerator-moved')).toBe(true);
        regrouped = true;
        askAll();
      }
      if (c === 3) {
        // An open JobSet of the research team moves to another team: a label selection changes.
        const object = structuredClone(last.get(openUp('research').uid)!);
        object.metadata.labels['ml.example.com/team'] = 'team-moved';
        engine.observe({ receivedAt: horizon, type: 'MODIFIED', object: object as never });
        relabeled = true;
        askAll();
      }
      if (c === 4) {
        // An open JobSet that is up is deleted at the horizon: it grew (closed), and is no longer up at the range's end.
        const list = engine.timelines();
        engine.observe({ receivedAt: horizon, type: 'DELETED', object: last.get(openUp('team-a').uid)! as never });
        expect(engine.timelines()).toBe(list);
        closed = true;
        askAll();
      }
    }
    expect(relabeled && regrouped && closed).toBe(true);
    expect(kept.counts.hits).toBeGreaterThan(0);
    expect(kept.counts.made).toBeGreaterThan(0);
  });

  it('keep at most the runs of `lists` lists, the least recently used dropped first, and none of a list before', () => {
    const list = Array.from({ length: 10 }, (_, i) => ({ uid: `u${i}` }) as unknown as Timeline);
    const kept = new KeptSelections(1);
    const by = (name: string): SelectedBy => ({ layer: 'jobset', clusters: [], namespaces: [], name, labelSelector: '', states: [], selectFrom: 0, to: 1 });
    let made = 0;
    const ask = (name: string, length: number, of = list): readonly Timeline[] =>
      kept.get(of, by(name), 1, () => {
        made++;
        return of.slice(0, length);
      });
    const a = ask('a', 4);
    const b = ask('b', 5);
    expect(ask('a', 4)).toBe(a);
    expect(made).toBe(2);
    // 4 + 5 + 3 runs are over one list's 10: the least recently used (b) goes.
    ask('c', 3);
    expect(kept.counts).toMatchObject({ kept: 2, held: 7 });
    expect(ask('b', 5)).not.toBe(b);
    // Alone over the bound, the one asked last is kept.
    kept.clear();
    const whole = ask('d', 10);
    expect(ask('e', 10)).not.toBe(whole);
    expect(kept.counts).toMatchObject({ kept: 1, held: 10 });
    // Another list (a run added or dropped): nothing of the one before.
    const next = list.slice(1);
    made = 0;
    ask('e', 9, next);
    expect(made).toBe(1);
    expect(kept.counts).toMatchObject({ kept: 1, held: 9 });
  });

  it.each(['grew', 'forgot', 'relabeled', 'reweighed', 'regrouped'] as const)('drop every kept selection when the engine says a timeline %s', (change) => {
    const list = [{ uid: 'u' }] as unknown as Timeline[];
    const kept = new KeptSelections();
    const by: SelectedBy = { layer: 'jobset', clusters: [], namespaces: [], name: '', labelSelector: '', states: [], selectFrom: 0, to: 1 };
    kept.get(list, by, 1, () => list.slice());
    expect(kept.counts.kept).toBe(1);
    kept[change]();
    expect(kept.counts).toMatchObject({ kept: 0, held: 0 });
  });
});
