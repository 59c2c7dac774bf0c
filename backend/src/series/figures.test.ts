// The window rules: durations clipped to [from, to]; events counted when from < t ≤ to; the periods
// behind MTTR and MTBI counted whole. Timelines are written directly (minutes after T0).

import { min } from '../../../test/support/scenario.ts';
import type { State, Timeline } from '../timeline/types.ts';
import { figures, stateAt } from './figures.ts';

function timeline(...steps: [number, State][]): Timeline {
  return {
    uid: 'u',
    namespace: 'ns',
    name: 'js',
    labels: {},
    accelerator: null,
    topology: null,
    createdAt: min(steps[0]![0]),
    transitions: steps.map(([m, state]) => ({ at: min(m), state })),
  };
}

const s = (minutes: number): number => minutes * 60;

//   0 ─prov─ 10 ─up─ 70 ─down─ 75 ─up─ 195 ─down─ 210 ─up─ 240 completed
const megamon = timeline([0, 'provisioning'], [10, 'up'], [70, 'down'], [75, 'up'], [195, 'down'], [210, 'up'], [240, 'completed']);

describe('windows', () => {
  //   window:              [60 ─────────────── 200]
  //   0 ─prov─ 10 ─up─ 70 ─down─ 75 ─up─ 195 ─down─ 210 ─up─ 240
  it('clips durations to the window and counts the events inside it', () => {
    const f = figures(megamon, min(300), min(60), min(200));
    expect(f.upSeconds).toBe(s(10 + 120));
    expect(f.interruptionDowntimeSeconds).toBe(s(5 + 5));
    expect(f.provisioningSeconds).toBe(0);
    expect(f.interruptions).toBe(2);
    expect(f.recoveries).toBe(1);
  });

  //   window:                   [72 ──── 80]
  //   the down period 70─75 ends in a recovery inside the window and counts whole (5 min), and the
  //   up period 10─70 ended before the window, so MTBI is undefined there.
  it('counts the periods behind MTTR and MTBI whole', () => {
    const f = figures(megamon, min(300), min(72), min(80));
    expect(f.mttrSeconds).toBe(s(5));
    expect(f.interruptionDowntimeSeconds).toBe(s(3));
    expect(f.mtbiSeconds).toBeNull();
    const g = figures(megamon, min(300), min(100), min(196));
    expect(g.mtbiSeconds).toBe(s(120));
    expect(g.mttrSeconds).toBeNull();
  });

  it('an event exactly at `from` belongs to the window before; one exactly at `to` to this one', () => {
    expect(figures(megamon, min(300), min(70), min(100)).interruptions).toBe(0);
    expect(figures(megamon, min(300), min(40), min(70)).interruptions).toBe(1);
    expect(figures(megamon, min(300), min(75), min(75)).recoveries).toBe(0);
  });

  it('up periods ending in completion, suspension or the window edge are not in MTBI', () => {
    const t = timeline([0, 'provisioning'], [10, 'up'], [40, 'suspended'], [50, 'provisioning'], [55, 'up'], [90, 'completed']);
    const f = figures(t, min(100), min(0), min(100));
    expect(f.mtbiSeconds).toBeNull();
    expect(f.interruptions).toBe(0);
    const open = timeline([0, 'provisioning'], [10, 'up']);
    expect(figures(open, min(100), min(0), min(100)).mtbiSeconds).toBeNull();
  });

  it('the uptime ratio is undefined when the window holds neither up nor down time', () => {
    const t = timeline([0, 'suspended'], [30, 'provisioning']);
    const f = figures(t, min(60), min(0), min(30));
    expect(f.uptimeRatio).toBeNull();
    expect(f.queuedSeconds).toBe(s(30));
  });

  it('nothing accrues before creation, after the end, or beyond the horizon of an open timeline', () => {
    const t = timeline([10, 'provisioning'], [20, 'up']);
    const f = figures(t, min(50), min(0), min(100));
    expect(f.provisioningSeconds).toBe(s(10));
    expect(f.upSeconds).toBe(s(30));
    const before = figures(t, min(50), min(0), min(5));
    expect(before.upSeconds + before.downSeconds + before.unknownSeconds).toBe(0);
  });

  it('time to first up is known once the first up has happened by `to`', () => {
    expect(figures(megamon, min(300), min(0), min(5)).timeToFirstUpSeconds).toBeNull();
    expect(figures(megamon, min(300), min(100), min(200)).timeToFirstUpSeconds).toBe(s(10));
    const unseen = timeline([0, 'unknown'], [20, 'up']);
    expect(figures(unseen, min(30), min(0), min(30)).timeToFirstUpSeconds).toBeNull();
  });

  it('reports the state at a time', () => {
    expect(stateAt(megamon, min(-1))).toBeNull();
    expect(stateAt(megamon, min(0))).toBe('provisioning');
    expect(stateAt(megamon, min(70))).toBe('down');
    expect(stateAt(megamon, min(74.9))).toBe('down');
    expect(stateAt(megamon, min(1000))).toBe('completed');
  });
});
