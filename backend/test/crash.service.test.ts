// kill -9 in the middle of a fast stream: everything the service had served before it died is there
// after a restart, and the timelines equal those of an uninterrupted run of the same fleet, except
// for the gap while it was down, which is unknown where the objects changed.

import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stateAt } from '../src/series/figures.ts';
import { simulateFleet } from '../src/sources/simulator/index.ts';
import { TimelineEngine } from '../src/timeline/engine.ts';
import { timelineFields, transitionsOf, type State, type Timeline } from '../src/timeline/types.ts';
import { ready, startServe } from '../../test/support/serve.ts';

interface Interval {
  state: State;
  from: string;
  to: string | null;
}
type Served = Map<string, Interval[]>;
/** When each timeline was read, as the service's own clock said (its window's end): the fleet
 * streams on while the test walks the API, so later timelines are read later. */
const readAt = new Map<string, number>();

/** Every transition the service serves, per UID, through its public API. */
async function served(url: string): Promise<Served> {
  const get = async (path: string): Promise<any> => (await fetch(url + path)).json(); // eslint-disable-line @typescript-eslint/no-explicit-any
  const out: Served = new Map();
  for (const ns of (await get('/api/v1/values/namespaces')).values as string[]) {
    for (const name of (await get(`/api/v1/values/jobsets?namespace=${ns}`)).values as string[]) {
      for (const tl of (await get(`/api/v1/jobsets/${ns}/${name}`)).timelines as { uid: string; to: string; intervals: Interval[] }[]) {
        out.set(tl.uid, tl.intervals);
        readAt.set(tl.uid, Date.parse(tl.to));
      }
    }
  }
  return out;
}

const logged = (logs: string, msg: string): Record<string, string> => {
  const line = logs.split('\n').find((l) => l.includes(`"msg":"${msg}`));
  if (line === undefined) throw new Error(`no "${msg}" in the logs:\n${logs}`);
  return JSON.parse(line);
};

/** kill -9, then its exit awaited, so that no test ends with the service still running. */
async function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

// The fleet's seed: UPNESS_CRASH_SEED=n runs another fleet (the kill lands at another moment of
// another history), to look for gap rules still missing.
const SEED = process.env.UPNESS_CRASH_SEED ?? '7';

describe('kill -9 while a simulated fleet streams in at 3600× real time', () => {
  it('keeps everything it served, and differs from an uninterrupted run only by unknown time in the gap', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'upness-crash-'));
    const settings = ['--jobsets', '12', '--history-days', '1', '--seed', SEED, '--profile', 'demo', '--speed', '3600'];
    const args = ['--data-dir', dir, '--snapshot-every', '400', ...settings];

    const first = await startServe(args);
    let acknowledged: Served;
    try {
      await ready(first);
      await new Promise((r) => setTimeout(r, 1500)); // 1.5 simulated hours of streaming, snapshots included
      acknowledged = await served(first.url);
    } finally {
      await killed(first.child);
    }
    expect(acknowledged.size).toBeGreaterThan(20);

    await new Promise((r) => setTimeout(r, 500)); // down for half a second: half a simulated hour
    const second = await startServe(args);
    try {
      await ready(second);
      const opened = logged(second.logs(), 'data dir opened');
      const resumed = logged(second.logs(), 'resumed the simulated cluster');
      const gapFrom = Date.parse(resumed.gapFrom!);
      const resumedAt = Date.parse(resumed.resumedAt!);
      expect(opened.observedUntil).toBe(resumed.gapFrom);
      expect(resumedAt).toBeGreaterThan(gapFrom);
      const after = await served(second.url);

      // 1. Nothing served before the kill is lost: each timeline then is a prefix of the timeline now.
      for (const [uid, intervals] of acknowledged) {
        const now = after.get(uid);
        expect(now).toBeDefined();
        intervals.forEach((iv, i) => {
          expect([now![i]!.state, now![i]!.from]).toEqual([iv.state, iv.from]);
        });
      }

      // 2. Against an uninterrupted run of the same fleet (same anchor), up to when we looked.
      const { anchor } = JSON.parse(readFileSync(join(dir, 'simulation.json'), 'utf8'));
      // The stream up to the last read (a transition's own time can be before the observation that
      // brought it, so the latest transition served is not where to stop).
      const horizon = Math.max(...[...after.keys()].map((uid) => readAt.get(uid)!));
      const peer = new TimelineEngine();
      // Each timeline's truth as of when it was read: the same stream, up to that moment (an object's
      // own timestamps can lie a little before the moment the watch received it).
      const asRead = new Map<string, Timeline>();
      const reads = [...readAt].sort((x, y) => x[1] - y[1]);
      let next = 0;
      const snapshotReadBefore = (t: number): void => {
        for (; next < reads.length && reads[next]![1] < t; next++) {
          const tl = peer.timeline(reads[next]![0]);
          if (tl !== undefined) asRead.set(tl.uid, { ...timelineFields(tl), transitions: [...transitionsOf(tl)] });
        }
      };
      for (const o of simulateFleet({ jobsets: 12, days: 1 + 3650, seed: Number(SEED), start: anchor.start, profile: 'demo', nodes: true }).observations()) {
        if (o.receivedAt > horizon) break;
        snapshotReadBefore(o.receivedAt);
        peer.observe(o);
      }
      snapshotReadBefore(Infinity);
      let unknownMs = 0;
      let compared = 0;
      for (const latest of peer.timelines()) {
        const truth = asRead.get(latest.uid) ?? latest;
        const intervals = after.get(truth.uid);
        // Created and gone within the gap: never seen, as a real watch would never have seen it.
        if (intervals === undefined) {
          expect(truth.createdAt).toBeGreaterThan(gapFrom);
          continue;
        }
        const rebuilt = { ...truth, transitions: intervals.map((iv) => ({ at: Date.parse(iv.from), state: iv.state })) };
        // Before the gap: the same, transition for transition.
        const before = (tl: typeof truth) => transitionsOf(tl).filter((t) => t.at < gapFrom).map((t) => `${t.at}:${t.state}`);
        expect(before(rebuilt)).toEqual(before(truth));
        // After the relist: the same state at every minute.
        const drawn = (tl: typeof truth) => transitionsOf(tl).map((t) => `${new Date(t.at).toISOString()} ${t.state}`).join(', ');
        // One thing cannot be known of a JobSet created during the gap and first seen not up: whether
        // it was up before anyone looked, i.e. whether it is provisioning or down (the engine guesses
        // down when it has restarted). Either is accepted for it; everything else must be the truth.
        // The same holds after a resume during the gap: whether it came up since cannot be known.
        const resumedInGap = transitionsOf(truth).some((tr, i) => tr.state === 'provisioning' && transitionsOf(truth)[i - 1]?.state === 'suspended' && tr.at > gapFrom && tr.at < resumedAt);
        const unseenLife = truth.createdAt > gapFrom || resumedInGap;
        const guess = (a: string | null, b: string | null): boolean => unseenLife && a !== b && ['provisioning', 'down'].includes(a ?? '') && ['provisioning', 'down'].includes(b ?? '');
        // Up to when this timeline was read (a JobSet read early may have changed by the horizon).
        for (let t = resumedAt; t <= readAt.get(truth.uid)!; t += 60_000) {
          // On a mismatch, say where: the timeline as served, as it truly was, and the gap.
          if (stateAt(rebuilt, t) !== stateAt(truth, t) && !guess(stateAt(rebuilt, t), stateAt(truth, t))) {
            throw new Error(`${truth.uid} at ${new Date(t).toISOString()} (gap ${new Date(gapFrom).toISOString()} → ${new Date(resumedAt).toISOString()}):\nserved: ${drawn(rebuilt)}\ntruth:  ${drawn(truth)}`);
          }
        }
        // In between: the truth, or unknown.
        for (let t = gapFrom; t < resumedAt; t += 10_000) {
          const s = stateAt(rebuilt, t);
          if (s === 'unknown') unknownMs += 10_000;
          else expect(s).toBe(stateAt(truth, t));
        }
        for (const iv of intervals.filter((iv) => iv.state === 'unknown')) {
          expect(Date.parse(iv.from)).toBeGreaterThanOrEqual(gapFrom);
          expect(Date.parse(iv.to!)).toBeLessThanOrEqual(resumedAt);
        }
        compared++;
      }
      expect(compared).toBeGreaterThan(20);
      expect(unknownMs).toBeGreaterThan(0);
    } finally {
      await killed(second.child);
    }
    // The simulated cluster streams Pods and Nodes too: a loaded machine needs more than the default.
  }, 120_000);
});
