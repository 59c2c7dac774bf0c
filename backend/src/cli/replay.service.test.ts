import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { upness } from '../../../test/support/cli.ts';
import { min, Scenario } from '../../../test/support/scenario.ts';
import { formatTraceLine } from '../sources/trace/parse.ts';
import { humanDuration } from './table.ts';

const dir = mkdtempSync(join(tmpdir(), 'upness-cli-'));
function traceFile(name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

//   ml/train: 0 ─prov─ 10 ─up─ 60 ─down─ 65 ─up─ 120
//   ml/eval (created at 30, suspended until 50): 30 ─queued─ 50 ─prov─ 55 ─up─ 120
const train = new Scenario({ uid: 'u-train', name: 'train', namespace: 'ml' }, min(0)).created().up(min(10)).down(min(60), { restarts: 1 }).up(min(65));
const evaluation = new Scenario({ uid: 'u-eval', name: 'eval', namespace: 'ml' }, min(30), { suspend: true, suspended: { status: 'True', at: min(30) } })
  .created()
  .at(min(50), { suspend: false, suspended: { status: 'False', at: min(50) } })
  .up(min(55))
  .at(min(120));
const other = { receivedAt: min(70), type: 'ADDED' as const, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { uid: 'cm', name: 'cm' } } };
const lines = [...train.observations, ...evaluation.observations, other].sort((a, b) => a.receivedAt - b.receivedAt).map(formatTraceLine);
const good = traceFile('good.jsonl', lines);

describe('upness --version', () => {
  it('prints the version of backend/package.json and exits 0', () => {
    const run = upness(['--version']);
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect([run.status, run.stdout.trim(), run.stderr]).toEqual([0, version, '']);
  });
});

describe('upness replay', () => {
  it('prints one JSON document with every figure of every JobSet', () => {
    const run = upness(['replay', good]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const { jobsets } = JSON.parse(run.stdout);
    expect(jobsets).toEqual([
      {
        namespace: 'ml', name: 'eval', uid: 'u-eval', state: 'up',
        upSeconds: 65 * 60, downSeconds: 5 * 60, provisioningSeconds: 5 * 60, interruptionDowntimeSeconds: 0,
        suspendedSeconds: 20 * 60, queuedSeconds: 20 * 60, unknownSeconds: 0, interruptions: 0, recoveries: 0,
        mttrSeconds: null, mtbiSeconds: null, uptimeRatio: 65 / 70, timeToFirstUpSeconds: 5 * 60,
        // Goodput: wall 90 min = queued 20 + provisioning 5 + up 65.
        wallSeconds: 90 * 60, schedulingGoodput: 65 / 90, suspendedNotQueuedSeconds: 0, queuedFraction: 20 / 90,
        provisioningFraction: 5 / 90, interruptionDowntimeFraction: 0, suspendedNotQueuedFraction: 0, unknownFraction: 0,
        acceleratorSecondsUp: 0, acceleratorSecondsLost: 0, estimatedEffectiveTrainingRatio: null,
        restartsPerDay: 0,
      },
      {
        namespace: 'ml', name: 'train', uid: 'u-train', state: 'up',
        upSeconds: 105 * 60, downSeconds: 15 * 60, provisioningSeconds: 10 * 60, interruptionDowntimeSeconds: 5 * 60,
        suspendedSeconds: 0, queuedSeconds: 0, unknownSeconds: 0, interruptions: 1, recoveries: 1,
        mttrSeconds: 5 * 60, mtbiSeconds: 50 * 60, uptimeRatio: 105 / 120, timeToFirstUpSeconds: 10 * 60,
        // Goodput: wall 120 min = provisioning 10 + up 105 + interruption downtime 5.
        wallSeconds: 120 * 60, schedulingGoodput: 105 / 120, suspendedNotQueuedSeconds: 0, queuedFraction: 0,
        provisioningFraction: 10 / 120, interruptionDowntimeFraction: 5 / 120, suspendedNotQueuedFraction: 0, unknownFraction: 0,
        acceleratorSecondsUp: 0, acceleratorSecondsLost: 0, estimatedEffectiveTrainingRatio: null,
        // 1 interruption in 120 min of up + down time: 1 / (120 / 1440) = 12 a day.
        restartsPerDay: 12,
      },
    ]);
  });

  it('honours --from, --to and --namespace, and gives the state at --to', () => {
    const run = upness(['replay', good, '--from', '2026-01-01T00:40:00Z', '--to', '2026-01-01T01:02:00Z', '--namespace', 'ml']);
    const { jobsets } = JSON.parse(run.stdout);
    const t = jobsets.find((j: { name: string }) => j.name === 'train');
    expect(t).toMatchObject({ state: 'down', upSeconds: 20 * 60, interruptionDowntimeSeconds: 2 * 60, interruptions: 1, recoveries: 0 });
    expect(JSON.parse(upness(['replay', good, '--namespace', 'nope']).stdout)).toEqual({ jobsets: [] });
  });

  it('reads standard input with -', () => {
    const run = upness(['replay', '-'], lines.join('\n'));
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout).jobsets).toHaveLength(2);
  });

  it('prints a table for people', () => {
    const run = upness(['replay', good, '--format', 'table']);
    expect(run.status).toBe(0);
    const [header, first] = run.stdout.split('\n');
    expect(header).toMatch(/^NAMESPACE\s+NAME\s+UID\s+STATE\s+UPTIME/);
    expect(first).toMatch(/^ml\s+eval\s+u-eval\s+up\s+92\.86%\s+1h 5m/);
  });

  it.each([
    ['not JSON', [lines[0]!, '{"time": oops}'], /^upness: line 2: not valid JSON/],
    ['a missing field', [lines[0]!, '{"type":"ADDED","object":{"metadata":{"uid":"u","name":"n"}}}'], /^upness: line 2: missing field "time"/],
    ['an unknown type', [lines[0]!, lines[1]!.replace('"MODIFIED"', '"PATCHED"')], /^upness: line 2: unknown type "PATCHED"/],
    ['a line back in time', [lines[2]!, lines[0]!], /^upness: line 2: goes back in time/],
  ])('stops on %s with a non-zero exit, naming the line, printing no figures', (_, bad, message) => {
    const run = upness(['replay', traceFile('bad.jsonl', bad)]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });

  it.each([
    [['--from', 'yesterday'], /--from must be an ISO-8601 time/],
    [['--from', '2026-01-02T00:00:00Z', '--to', '2026-01-01T00:00:00Z'], /--to must not be before --from/],
    [['--format', 'xml'], /argument 'xml' is invalid/],
  ])('refuses bad options %j with exit 2 before reading the trace', (args, message) => {
    const run = upness(['replay', good, ...args]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(message);
  });

  it('says plainly when the trace file does not exist', () => {
    const run = upness(['replay', join(dir, 'missing.jsonl')]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/cannot read ".*missing.jsonl" \(no such file\)/);
  });
});

describe('durations for people', () => {
  it.each([
    [null, '–'],
    [0, '0s'],
    [65, '1m 5s'],
    [3725, '1h 2m'],
    [93784, '1d 2h'],
  ])('%p → %p', (seconds, text) => expect(humanDuration(seconds)).toBe(text));
});
