// Format 5's machine element (./dense.ts): every field and transition back exactly, strings and
// label sets written once per snapshot, and a malformed element refused.

import { simulateFleet } from '../sources/simulator/index.ts';
import { isClosed, isMachine, keptTimeline, machineAsRead, machineOf, settledMachine, type MachineState } from '../timeline/machine.ts';
import { codeAt, isArenaRecord, timeAt, type Columns, type PackedTransitions } from '../timeline/columns.ts';
import { isPackedTimeline, sealClosed, timelineColumns, transitionsOf, type Cause, type State, type Timeline, type Transition } from '../timeline/types.ts';
import { DenseReader, DenseWriter, type DenseMachine } from './dense.ts';
import { internSuspension } from '../timeline/intern.ts';

/** What columns read (times, codes, the start, the kept extras and memory), wherever they are held. */
function columnsRead(c: Columns): unknown {
  const times: number[] = [];
  const codes: number[] = [];
  for (let i = 0; i < c.length; i++) {
    times.push(timeAt(c, i));
    codes.push(codeAt(c, i));
  }
  // An arena record's extent: its times and the side table's numbers behind them (failure-policy restarts as RestartCodes).
  const extent = c.codes === null ? null : c.end - c.base;
  return { length: c.length, times, codes, startIndex: c.startIndex, extras: c.extras, life: c.life, memory: c.memory, deletedAfter: c.deletedAfter, extent };
}

const machine = (timeline: Timeline, more: Partial<MachineState> = {}): MachineState => ({ timeline, everUp: true, restarts: 2, resourceVersion: '41', deletedAt: null, ...more });

/**
 * What the reader gives (a closed run settled: its timeline alone) as a machine, its transitions as
 * objects (a closed timeline is read packed: an arena record, its number another in each read).
 */
const plain = (kept: MachineState | Timeline): MachineState => machineAsRead(machineOf(kept));

/** A machine as the engine keeps it once restored (TimelineEngine.restore): a closed run's resource version dropped. */
const asRestored = (m: MachineState): MachineState => (isClosed(m) ? { ...m, resourceVersion: null } : m);

/** Through JSON, as a snapshot's line. */
const roundTrip = (machines: MachineState[]): MachineState[] => {
  const writer = new DenseWriter();
  const lines = machines.map((m) => JSON.stringify(writer.encode(m)));
  const reader = new DenseReader();
  return lines.map((line) => plain(reader.decode(JSON.parse(line))));
};

/** A small deterministic generator (mulberry32) from `seed`: numbers in [0, 1), and a value picked from a list. */
function generator(seed: number): { random: () => number; pick: <T>(values: readonly T[]) => T } {
  const random = (): number => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 2 ** 32;
  };
  return { random, pick: (values) => values[Math.floor(random() * values.length)]! };
}

/** Machines as one writer writes them, one element a line. */
const written = (machines: MachineState[]): Buffer[] => {
  const writer = new DenseWriter();
  return machines.map((m) => Buffer.from(JSON.stringify(writer.encode(m))));
};

/** What a run was read as: settled or not, its machine, and a closed one's side table (the numbers behind its times, its objects). */
const readAs = (kept: MachineState | Timeline): unknown => {
  const c = isPackedTimeline(keptTimeline(kept)) ? timelineColumns(keptTimeline(kept)) : null;
  return { settled: !isMachine(kept), machine: plain(kept), side: c === null ? null : [c.end - c.base - c.length, c.extras] };
};

describe("a snapshot's dense machine (format 5)", () => {
  it('gives back every field and transition, whatever a transition carries', () => {
    const t0 = Date.UTC(2026, 0, 1);
    const timeline: Timeline = {
      uid: 'u-1',
      namespace: 'ml',
      name: 'train',
      labels: { team: 'a', queue: 'q' },
      accelerator: 'tpu-v5p-slice',
      topology: '2x2x2',
      createdAt: t0,
      accelerators: 8,
      checkpointIntervalMs: 600_000,
      pods: 2,
      transitions: [
        { at: t0, state: 'suspended', suspension: { reason: 'Preempted', message: null } },
        { at: t0 + 5, state: 'provisioning' },
        { at: t0 + 5, state: 'up' },
        { at: t0 + 90, state: 'down', causes: [{ kind: 'NodeNotReady', at: t0 + 80, node: 'n1', reason: 'KubeletNotReady' }] },
        { at: t0 + 200, state: 'unknown' },
        // Proven after a gap; and a time that its difference would not give back (not an integer).
        { at: t0 + 300.5, state: 'up', unobserved: { interruptions: 1, recoveries: 0 } },
        { at: t0 + 400, state: 'failed', unobserved: { interruptions: 0, recoveries: 0 }, causes: [{ kind: 'JobSetFailed', at: t0 + 400 }] },
      ],
    };
    const other: Timeline = { ...timeline, uid: 'u-2', accelerator: null, topology: null, accelerators: 0, checkpointIntervalMs: null, pods: 0, transitions: [{ at: t0 + 1, state: 'deleted' }] };
    const machines = [machine(timeline, { deletedAt: t0 + 500 }), machine(other, { everUp: false, restarts: 0, resourceVersion: null })];
    expect(roundTrip(machines)).toEqual(machines.map(asRestored));
    expect(roundTrip([machine({ ...timeline, transitions: [{ at: t0, state: 'completed' }] })])[0]!.timeline.transitions).toEqual([{ at: t0, state: 'completed' }]);
  });

  it('reads a closed timeline into the packed form the engine makes of it, an open one as an array', () => {
    const truth = simulateFleet({ jobsets: 6, days: 4, seed: 3 }).truth();
    const writer = new DenseWriter();
    const reader = new DenseReader();
    let closed = 0;
    let extras = 0;
    for (const tl of truth) {
      const read = keptTimeline(reader.decode(JSON.parse(JSON.stringify(writer.encode(machine(tl))))));
      // What the engine makes of the same transitions when it seals the timeline (timeline/types.ts sealClosed),
      // their suspensions' reasons shared as the engine shares them (timeline/intern.ts: a side table numbers those).
      const sealed = { ...tl, transitions: transitionsOf(tl).map((t) => (t.suspension === undefined ? t : { ...t, suspension: internSuspension(t.suspension) })) };
      sealClosed(sealed);
      // And settles the machine (its memory into the record), as the engine's restore does.
      settledMachine(asRestored(machine(sealed)));
      expect(isPackedTimeline(read)).toBe(isPackedTimeline(sealed));
      if (!isPackedTimeline(read)) {
        expect(read.transitions).toEqual(sealed.transitions);
        continue;
      }
      closed++;
      if (transitionsOf(read).some((t) => t.causes !== undefined || t.suspension !== undefined || t.unobserved !== undefined)) extras++;
      // Both arena records (timeline/arena.ts): alike in all they read, at their own places.
      expect(isArenaRecord(read.transitions as PackedTransitions)).toBe(true);
      expect(columnsRead(timelineColumns(read))).toEqual(columnsRead(timelineColumns(sealed)));
      expect(transitionsOf(read)).toEqual(transitionsOf(tl));
    }
    // The fleet has closed runs, with and without extras (causes, why suspended), and open ones.
    expect(closed).toBeGreaterThan(0);
    expect(extras).toBeGreaterThan(0);
    expect(closed).toBeLessThan(truth.length);
  });

  it('reads a closed run settled as the engine settles the machine it restores: its timeline alone, its memory in its record', () => {
    const truth = simulateFleet({ jobsets: 8, days: 4, seed: 5 }).truth();
    const t0 = Date.UTC(2026, 0, 1);
    // Memories that fit a record and some that do not (a restart count or a deletion too far off, or not whole).
    const memories: Partial<MachineState>[] = [
      {},
      { everUp: false, restarts: 0, resourceVersion: null },
      { restarts: 7, deletedAt: t0 + 4 * 86_400_000 },
      { restarts: 2 ** 29 },
      { deletedAt: t0 + 2 ** 40 },
      { deletedAt: t0 + 0.5 },
    ];
    const writer = new DenseWriter();
    const reader = new DenseReader();
    let settled = 0;
    let kept = 0;
    for (const [k, tl] of truth.entries()) {
      const m = machine(tl, memories[k % memories.length]);
      const read = reader.decode(JSON.parse(JSON.stringify(writer.encode(m))));
      // The engine's restore of the machine as read before (timeline/engine.ts): sealed, a closed run's version dropped, settled.
      const naive = { ...m, timeline: { ...tl, transitions: [...transitionsOf(tl)] } };
      sealClosed(naive.timeline);
      const restored = settledMachine(asRestored(naive));
      expect(isMachine(read)).toBe(isMachine(restored));
      expect(plain(read)).toEqual(plain(restored));
      if (!isMachine(read)) settled++;
      else if (isClosed(read)) kept++;
    }
    // Both ways were taken: closed runs settled, and closed runs whose memory does not fit kept as machines.
    expect(settled).toBeGreaterThan(0);
    expect(kept).toBeGreaterThan(0);
  });

  it('writes each string and label set once: later machines refer to it, and share it when read', () => {
    const truth = simulateFleet({ jobsets: 4, days: 3, seed: 2 }).truth();
    const machines = truth.map((tl) => machine(tl));
    const writer = new DenseWriter();
    const dense = machines.map((m) => writer.encode(m));
    const full = dense.flatMap((d) => [d[1], d[2], d[4], d[5]]).filter((ref) => typeof ref === 'string');
    expect(full.length).toBe(new Set(truth.flatMap((tl) => [tl.namespace, tl.name, tl.accelerator, tl.topology]).filter((s) => s !== null)).size);
    expect(full.length).toBeLessThan(2 * truth.length);
    expect(dense.filter((d) => typeof d[3] === 'object').length).toBe(new Set(truth.map((tl) => JSON.stringify(tl.labels))).size);
    expect(truth.length).toBeGreaterThan(new Set(truth.map((tl) => JSON.stringify(tl.labels))).size);
    const read = roundTrip(machines);
    expect(read).toEqual(machines.map(asRestored));
    const first = new Map<string, object>();
    for (const m of read) {
      const key = JSON.stringify(m.timeline.labels);
      expect(m.timeline.labels).toBe(first.get(key) ?? m.timeline.labels);
      first.set(key, m.timeline.labels);
    }
  });

  it('reads an element from its bytes as JSON.parse and decode read it, whatever it holds, a malformed one too', () => {
    // Machines with every kind of value an element can hold.
    const { random, pick } = generator(7);
    const strings = ['ml', 'ml-platform', 'ns-ü', 'quote"d', 'back\\slash', 'tab\there', 'emoji 😀', '', 'train-0001'];
    const numbers = (): number => pick([0, 1, 7, 640, -3, 0.5, 2 ** 53 + 2, 1e21, 123456789012345, 1234567890123456]);
    const STATES: State[] = ['provisioning', 'up', 'down', 'suspended', 'unknown', 'completed', 'failed', 'deleted'];
    const t0 = Date.UTC(2026, 0, 1);
    const hex = (n: number): string => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(random() * 16)]).join('');
    const uidOf = (k: number): string => {
      const canonical = `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}`;
      const r = random();
      return r < 0.6 ? canonical : r < 0.7 ? canonical.toUpperCase() : r < 0.75 ? `${canonical.slice(0, 35)}é` : r < 0.8 ? canonical.slice(0, 35) : r < 0.98 ? `u-${k}-${Math.floor(random() * 1e6)}` : `u-${pick(strings)}-${k}`;
    };
    const machines: MachineState[] = [];
    for (let k = 0; k < 1500; k++) {
      const createdAt = random() < 0.9 ? t0 + Math.floor(random() * 1e9) : pick([t0 + 0.25, 2 ** 53 + 8, -5]);
      const transitions: Transition[] = [];
      let at = createdAt;
      for (let i = 0, n = Math.floor(random() * 9); i < n; i++) {
        at = random() < 0.9 ? at + Math.floor(random() * 1e7) : at + pick([0.5, -1000, 2 ** 54]);
        const t: Transition = { at, state: pick(STATES) };
        if (random() < 0.15) t.causes = [{ kind: pick(['NodeNotReady', 'PodFailed']), at, ...(random() < 0.5 ? { node: pick(strings) } : {}), ...(random() < 0.3 ? { message: pick(strings) } : {}) }];
        // Failure-policy restarts (most of a closed fleet's extras): as the engine writes them, and ones a RestartCode cannot hold
        // (a count or an offset out of its range, not whole, keys in another order or one more), one cause or two.
        else if (random() < 0.3) {
          const restart = (): Cause => {
            const offset = random() < 0.8 ? Math.floor(random() * 2 ** 19) - 2 ** 18 : pick([2 ** 18, -(2 ** 18) - 1, 0.5, 2 ** 40]);
            const restarts = random() < 0.8 ? Math.floor(random() * 1024) : pick([1024, -1, 1.5, 2 ** 31]);
            const cause: Cause = { kind: 'JobSetRestart', at: at + offset, restarts, reason: 'FailurePolicyRestart' };
            const shape = random();
            if (shape < 0.05) return { kind: 'JobSetRestart', at: cause.at, reason: 'FailurePolicyRestart', restarts };
            if (shape < 0.1) return { ...cause, node: pick(strings) };
            if (shape < 0.15) return { ...cause, reason: 'Other' };
            return cause;
          };
          t.causes = random() < 0.9 ? [restart()] : [restart(), restart()];
        }
        if (random() < 0.1) t.suspension = { reason: pick([null, ...strings]), message: pick([null, ...strings]) };
        if (random() < 0.1) t.unobserved = { interruptions: Math.floor(random() * 3), recoveries: Math.floor(random() * 3) };
        transitions.push(t);
      }
      const timeline: Timeline = {
        // Canonical UIDs (read from their bytes into words, no string made), uppercase ones and others (read as strings): each read back byte for byte.
        uid: uidOf(k),
        namespace: pick(strings),
        name: pick(strings),
        labels: pick<Record<string, string>>([{}, { team: 'a' }, { team: pick(strings), queue: 'q' }]),
        accelerator: pick([null, ...strings]),
        topology: pick([null, '2x2', 'ü']),
        createdAt,
        accelerators: random() < 0.8 ? Math.floor(random() * 64) : numbers(),
        checkpointIntervalMs: random() < 0.8 ? pick([null, 600_000]) : numbers(),
        pods: random() < 0.9 ? Math.floor(random() * 16) : numbers(),
        transitions,
      };
      machines.push(machine(timeline, { everUp: random() < 0.5, restarts: random() < 0.9 ? Math.floor(random() * 5) : numbers(), resourceVersion: pick([null, '41', 'rv"1']), deletedAt: pick([null, t0 + 99, t0 + 0.5]) }));
    }
    const writer = new DenseWriter();
    const lines = machines.map((m) => Buffer.from(JSON.stringify(writer.encode(m))));
    expect(new Set(machines.map((m) => (/^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/.test(m.timeline.uid) ? 'canonical' : 'other'))).size).toBe(2);
    /** Each line through JSON.parse and decode, or (`bytes`) through read first: each outcome, or the error's message. */
    const outcomes = (lines: Buffer[], bytes: boolean): { read: number; all: unknown[] } => {
      const reader = new DenseReader();
      let read = 0;
      const all = lines.map((line) => {
        try {
          const m = bytes ? reader.read(line, 0, line.length) : null;
          if (m !== null) read++;
          // Settled or not, as the engine settles a run it restores; a closed one's side table held alike (its numbers behind the times, its objects).
          return readAs(m ?? reader.decode(JSON.parse(line.toString('utf8'))));
        } catch (error) {
          return `${(error as Error).name}: ${(error as Error).message}`;
        }
      });
      return { read, all };
    };
    const fromBytes = outcomes(lines, true);
    expect(fromBytes.all).toEqual(outcomes(lines, false).all);
    expect(fromBytes.all.filter((o) => typeof o === 'string')).toEqual([]);
    // Both ways were taken: most elements read from their bytes, the others (escapes, fractions, ...) as JSON.
    expect(fromBytes.read).toBeGreaterThan(lines.length / 4);
    expect(fromBytes.read).toBeLessThan(lines.length);
    // One byte of an element changed (after the elements before it, which its tables need): the same outcome, a value or an error.
    for (let k = 0; k < 400; k++) {
      const at = 1 + Math.floor(random() * 199);
      const line = Buffer.from(lines[at]!);
      line[Math.floor(random() * line.length)] = pick([...'[]{},":-.e0129ntfx\\'].map((c) => c.charCodeAt(0)));
      const changed = [...lines.slice(0, at), line];
      expect(outcomes(changed, true).all.at(-1)).toEqual(outcomes(changed, false).all.at(-1));
    }
  });

  it("reads a suspension's bytes read before as they read then, and other bytes as their own: near ones, many, open runs' resource versions", () => {
    // Closed runs whose only extras are suspensions (the side table read from bytes), their reasons
    // and messages near one another: one a prefix of another, null beside "null", non-ASCII, more
    // distinct ones than the reader keeps; and open runs beside, whose resource versions are kept.
    const texts = [null, 'null', 'a', 'ab', 'a}]', 'Preempted', 'Preempted ', 'ü', 'üb', ...Array.from({ length: 20 }, (_, k) => `reason-${k}`)];
    const t0 = Date.UTC(2026, 0, 1);
    const machines: MachineState[] = [];
    for (let k = 0; k < 600; k++) {
      const reason = texts[(k * 7) % texts.length]!;
      const message = texts[(k * 11 + (k >> 4)) % texts.length]!;
      const closed = k % 5 !== 0;
      const transitions: Transition[] = [
        { at: t0 + k, state: 'suspended', suspension: { reason, message } },
        { at: t0 + k + 10, state: 'up' },
        { at: t0 + k + 20, state: 'suspended', suspension: { reason: message, message: reason } },
      ];
      if (closed) transitions.push({ at: t0 + k + 30, state: 'completed' });
      const timeline: Timeline = { uid: `u-${k}`, namespace: 'ml', name: `run-${k >> 3}`, labels: {}, accelerator: null, topology: null, createdAt: t0 + k, accelerators: 8, checkpointIntervalMs: null, pods: 2, transitions };
      machines.push(machine(timeline, { resourceVersion: `${1000 + k}` }));
    }
    const lines = written(machines);
    const bytes = new DenseReader();
    const json = new DenseReader();
    let read = 0;
    for (const [k, line] of lines.entries()) {
      const m = bytes.read(line, 0, line.length);
      if (m !== null) read++;
      const fromBytes = readAs(m ?? bytes.decode(JSON.parse(line.toString('utf8'))));
      expect(fromBytes).toEqual(readAs(json.decode(JSON.parse(line.toString('utf8')))));
      // As written, less what the engine drops of a closed run (its resource version).
      expect((fromBytes as { machine: MachineState }).machine).toEqual(asRestored(machineAsRead(machines[k]!)));
    }
    // All but the first from their bytes (its label set is written in full: parsed as JSON).
    expect(read).toBe(lines.length - 1);
  });

  it("reads a closed run's lone failure causes from their bytes as JSON.parse and decode read them, and other causes as JSON", () => {
    // Causes of a kind, time, reason and message alone (the engine's JobSetFailed) among restarts and
    // suspensions, and near ones read as JSON: a restart without its count, null, escapes, a time
    // with a fraction, a key more or less or in another order.
    const t0 = Date.UTC(2026, 0, 1);
    const causes: Cause[] = [
      { kind: 'JobSetFailed', at: t0 + 5, reason: 'FailedJobs', message: 'jobset failed due to one or more job failures' },
      { kind: 'JobSetFailed', at: t0 - 7, reason: 'ü', message: '' },
      { kind: 'JobSetRestart', at: t0 + 1, reason: 'FailurePolicyRestart', message: 'm' },
      { kind: 'JobSetFailed', at: t0 + 5, reason: null, message: null } as unknown as Cause,
      { kind: 'JobSetFailed', at: t0 + 5, reason: 'quote"d', message: 'm' },
      { kind: 'JobSetFailed', at: t0 + 0.5, reason: 'r', message: 'm' },
      { kind: 'JobSetFailed', at: t0, reason: 'r' },
      { kind: 'JobSetFailed', at: t0, reason: 'r', message: 'm', node: 'n' },
      { kind: 'JobSetFailed', at: t0, message: 'm', reason: 'r' },
    ];
    const machines: MachineState[] = causes.flatMap((cause, k) =>
      [0, 1].map((restarted) => {
        const transitions: Transition[] = [{ at: t0, state: 'provisioning' }];
        if (restarted === 1) transitions.push({ at: t0 + 10, state: 'down', causes: [{ kind: 'JobSetRestart', at: t0 + 9, restarts: 1, reason: 'FailurePolicyRestart' }] });
        transitions.push({ at: t0 + 20, state: 'suspended', suspension: { reason: 'Preempted', message: null } });
        transitions.push({ at: t0 + 30, state: 'failed', causes: [cause] });
        const timeline: Timeline = { uid: `u-${k}-${restarted}`, namespace: 'ml', name: 'run', labels: {}, accelerator: null, topology: null, createdAt: t0, accelerators: 8, checkpointIntervalMs: null, pods: 2, transitions };
        return machine(timeline, { resourceVersion: null });
      }),
    );
    const lines = written(machines);
    const bytes = new DenseReader();
    const json = new DenseReader();
    for (const [k, line] of lines.entries()) {
      const fromBytes = readAs(bytes.read(line, 0, line.length) ?? bytes.decode(JSON.parse(line.toString('utf8'))));
      expect(fromBytes).toEqual(readAs(json.decode(JSON.parse(line.toString('utf8')))));
      expect((fromBytes as { machine: MachineState }).machine).toEqual(machineAsRead(machines[k]!));
    }
  });

  it("reads a closed run's lists of causes from their bytes as JSON.parse and decode read them (several restarts between two observations), and near ones as JSON", () => {
    const { random, pick } = generator(21);
    const t0 = Date.UTC(2026, 0, 1);
    // Strings the scan reads (no escapes: a string with one is read as JSON, as a near cause below).
    const strings = ['FailedJobs', 'ü', '', 'jobset failed due to one or more job failures'];
    /** A cause as the engine writes it (a restart, a JobSetFailed), or (`near`) one the fast paths leave to JSON. */
    const causeAt = (at: number, near: boolean): Cause => {
      const offset = random() < 0.9 ? Math.floor(random() * 2 ** 19) - 2 ** 18 : pick([2 ** 18, -(2 ** 18) - 1, 2 ** 30]);
      const restart: Cause = { kind: 'JobSetRestart', at: at + offset, restarts: random() < 0.9 ? Math.floor(random() * 1024) : pick([1024, 2 ** 31]), reason: 'FailurePolicyRestart' };
      const failed = { kind: 'JobSetFailed', at: at + offset, reason: pick([null, ...strings]), message: pick([null, ...strings]) } as unknown as Cause;
      if (!near) return random() < 0.6 ? restart : failed;
      return pick<Cause>([
        { ...restart, at: at + 0.5 },
        { ...restart, node: 'n' },
        { kind: 'JobSetRestart', at, reason: 'FailurePolicyRestart', restarts: 1 },
        { ...restart, reason: 'Other' },
        { kind: 'JobSetFailed', at, reason: 'r' },
        { ...failed, reason: 'quote"d' },
        { kind: 'PodFailed', at, node: 'n' },
      ]);
    };
    const machines: MachineState[] = [];
    const engineMade: boolean[] = [];
    for (let k = 0; k < 600; k++) {
      const transitions: Transition[] = [{ at: t0, state: 'provisioning' }];
      let at = t0;
      let made = true;
      for (let j = 0, m = 1 + Math.floor(random() * 4); j < m; j++) {
        at += 1 + Math.floor(random() * 1e6);
        const count = 1 + Math.floor(random() * 4);
        const causes = Array.from({ length: count }, () => {
          const near = random() < 0.04;
          if (near) made = false;
          return causeAt(at, near);
        });
        const t: Transition = { at, state: pick<State>(['down', 'up', 'provisioning']), causes };
        if (random() < 0.05) {
          t.suspension = { reason: 'Preempted', message: null };
          made = false;
        }
        transitions.push(t);
        if (random() < 0.3) transitions.push({ at: (at += 5), state: 'suspended', suspension: { reason: pick(strings), message: null } });
      }
      transitions.push({ at: at + 7, state: pick<State>(['failed', 'completed', 'deleted']), ...(random() < 0.5 ? { causes: [causeAt(at + 7, false)] } : {}) });
      const timeline: Timeline = { uid: `u-${k}`, namespace: 'ml', name: 'run', labels: {}, accelerator: null, topology: null, createdAt: t0, accelerators: 8, checkpointIntervalMs: null, pods: 2, transitions };
      machines.push(machine(timeline, { resourceVersion: null }));
      engineMade.push(made);
    }
    const lines = written(machines);
    const bytes = new DenseReader();
    const json = new DenseReader();
    const parse = jest.spyOn(JSON, 'parse');
    let several = 0;
    try {
      for (const [k, line] of lines.entries()) {
        parse.mockClear();
        const read = bytes.read(line, 0, line.length);
        // Every run whose causes are all the engine's is read from its bytes, several causes a transition or one
        // (but the first, which writes its strings in full: the store parses such an element whole).
        if (engineMade[k]) expect({ k, read: read !== null, parsed: parse.mock.calls.length }).toEqual({ k, read: k > 0, parsed: 0 });
        if (read !== null && transitionsOf(machines[k]!.timeline).some((t) => (t.causes?.length ?? 0) > 1)) several++;
        const fromBytes = readAs(read ?? bytes.decode(JSON.parse(line.toString('utf8'))));
        expect(fromBytes).toEqual(readAs(json.decode(JSON.parse(line.toString('utf8')))));
        expect((fromBytes as { machine: MachineState }).machine).toEqual(machineAsRead(machines[k]!));
      }
    } finally {
      parse.mockRestore();
    }
    expect(several).toBeGreaterThan(200);
    expect(engineMade.filter((made) => !made).length).toBeGreaterThan(20);
  });

  it('refuses a malformed element: a SyntaxError that says what is wrong', () => {
    const t0 = Date.UTC(2026, 0, 1);
    const tl: Timeline = { uid: 'u', namespace: 'ns', name: 'n', labels: {}, accelerator: null, topology: null, createdAt: t0, accelerators: 0, checkpointIntervalMs: null, pods: 0, transitions: [{ at: t0, state: 'up', causes: [{ kind: 'PodFailed', at: t0 }] }] };
    const good = (): DenseMachine => new DenseWriter().encode(machine(tl));
    const decode = (d: unknown): unknown => new DenseReader().decode(JSON.parse(JSON.stringify(d)));
    expect(plain(decode(good()) as MachineState)).toEqual(machine(tl));
    const closed = (): DenseMachine => new DenseWriter().encode(machine({ ...tl, transitions: [{ at: t0, state: 'up', causes: [{ kind: 'PodFailed', at: t0 }] }, { at: t0 + 1, state: 'failed' }] }));
    const cases: [string, (d: DenseMachine) => unknown, RegExp][] = [
      ['not an array', () => ({ uid: 'u' }), /not an array/],
      ['too short', (d) => d.slice(0, 15), /not an array/],
      ['a string never written', (d) => ((d[1] = 3), d), /refers to string 3, of 0/],
      ['a label set never written', (d) => ((d[3] = 0), d), /refers to label set 0/],
      ['fewer times than states', (d) => ((d[14] = 'uu'), d), /as many times as states/],
      ['an unknown state', (d) => ((d[14] = 'z'), d), /unknown state or time at 0/],
      ['more of a transition that is not there', (d) => (d[16]![0]![0] = 4, d), /more of transition 4, of 1/],
    ];
    for (const [, change, message] of cases) {
      expect(() => decode(change(good()))).toThrow(SyntaxError);
      expect(() => decode(change(good()))).toThrow(message);
    }
    // A closed one's side table is kept in index order, a transition once.
    expect(() => decode(closed())).not.toThrow();
    for (const twice of [(d: DenseMachine) => (d[16]!.push([0, null, null, { reason: 'r', message: null }]), d), (d: DenseMachine) => (d[16]!.unshift([1, [1, 0], null, null]), d)]) {
      expect(() => decode(twice(closed()))).toThrow(/more of transition [01] out of order/);
    }
  });
});
