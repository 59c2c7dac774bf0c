// A small script language for a query type's semantics, in the grain of Prometheus' promqltest:
// timelines drawn as text, queries, and the frames they are expected to answer, worked out by hand.
// backend/src/frames/query-types/testdata/<type>/script.txt holds one per query type; README.md
// ("Development") describes the form, and scripts.test.ts runs them.
//
//   timelines horizon=12h
//                     |0         1 |       a ruler (any line starting with spaces and `|`): ignored
//     alpha/a team=ml |PUUUUDDUUUUU|       namespace/name, attributes, one character per hour
//
//   query per-ns from=0h to=12h {"queryType": "summary", "groupBy": "namespace"}
//   expect frames 1
//   expect summary upSeconds = 9h 16h      a frame (by name, in "" if it has spaces), a field, its values
//   expect error 400 queries[0].period: …  the query's error, as the API answers it
//
// A drawing's characters: `.` or a space before the JobSet exists (or after it ended), and from the
// hour of its column on: P provisioning, U up, D down, S suspended, ? unknown, and the terminal
// C completed, F failed, X deleted (nothing may follow them). Attributes: uid= (default
// namespace/name; two UIDs of one name need their own), cluster=, accelerator=, topology=, the
// counts accelerators= and pods= (its job size), and any other key=value is a label. Values in an
// expectation: a number, a fraction a/b (compared to 12 significant digits), `null`, a duration in
// seconds (`9h`, `30m`, `1d`), a time as epoch ms (`@5h`: hour 5 of the script), a string in double
// quotes (`"1"`: a string that reads as a number), or else a string.

import type { OpenTimeline, State, Timeline } from '../../backend/src/timeline/types.ts';

/** Hour 0 of every script. */
export const SCRIPT_T0 = Date.parse('2026-01-01T00:00:00Z');
const HOUR = 3_600_000;
const at = (hours: number): number => SCRIPT_T0 + hours * HOUR;

const STATE_OF: Record<string, State> = { P: 'provisioning', U: 'up', D: 'down', S: 'suspended', '?': 'unknown', C: 'completed', F: 'failed', X: 'deleted' };
const TERMINAL = new Set(['C', 'F', 'X']);

export type Expectation =
  | { kind: 'frames'; count: number; line: number }
  | { kind: 'field'; frame: string; field: string; values: unknown[]; line: number }
  | { kind: 'error'; status: number; message: string; line: number };

export interface ScriptQuery {
  /** Names its golden: testdata/<type>/<name>.json. */
  name: string;
  from: number;
  to: number;
  query: Record<string, unknown>;
  timelines: Timeline[];
  horizon: number;
  expectations: Expectation[];
  line: number;
}

const UNIT_S: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `5h` → 5 (hours of the script), for from= and to= and the horizon. */
function hours(text: string, line: number): number {
  const m = /^(\d+(?:\.\d+)?)h$/.exec(text);
  if (m === null) throw new Error(`line ${line}: "${text}" is not a time in hours such as 12h`);
  return Number(m[1]);
}

/** One value of an expectation (see the header). */
export function value(token: string): unknown {
  if (token === 'null') return null;
  const quoted = /^"(.*)"$/.exec(token);
  if (quoted !== null) return quoted[1];
  if (/^-?\d+(\.\d+)?(e-?\d+)?$/.test(token)) return Number(token);
  const fraction = /^(-?\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)$/.exec(token);
  if (fraction !== null) return { fraction: Number(fraction[1]) / Number(fraction[2]) };
  const duration = /^(\d+(?:\.\d+)?)([smhd])$/.exec(token);
  if (duration !== null) return Number(duration[1]) * UNIT_S[duration[2]!]!;
  const time = /^@(\d+(?:\.\d+)?)h$/.exec(token);
  if (time !== null) return at(Number(time[1]));
  return token;
}

/** A whole number of the drawing's attributes. */
function count(text: string, line: number): number {
  if (!/^\d+$/.test(text)) throw new Error(`line ${line}: "${text}" is not a whole number`);
  return Number(text);
}

function drawing(spec: string, attributes: string[], text: string, line: number): OpenTimeline {
  const [namespace, name] = spec.split('/');
  if (!namespace || !name) throw new Error(`line ${line}: "${spec}" is not namespace/name`);
  const tl: OpenTimeline = { uid: spec, namespace, name, labels: {}, accelerator: null, topology: null, createdAt: 0, transitions: [] };
  for (const attribute of attributes) {
    const [key = '', v = ''] = attribute.split(/=(.*)/s);
    if (key === 'uid') tl.uid = v;
    else if (key === 'cluster') tl.cluster = v;
    else if (key === 'accelerator') tl.accelerator = v;
    else if (key === 'topology') tl.topology = v;
    else if (key === 'accelerators' || key === 'pods') tl[key] = count(v, line);
    else tl.labels[key] = v;
  }
  let previous = '';
  let ended = false;
  [...text].forEach((c, hour) => {
    if (c === '.' || c === ' ') {
      if (previous !== '') ended = true;
      return;
    }
    const state = STATE_OF[c];
    if (state === undefined) throw new Error(`line ${line}: "${c}" is not a state (P U D S ? C F X, or . before and after)`);
    if (ended || TERMINAL.has(previous)) throw new Error(`line ${line}: nothing may follow the end of a JobSet`);
    if (c !== previous) tl.transitions.push({ at: at(hour), state });
    previous = c;
  });
  if (tl.transitions.length === 0) throw new Error(`line ${line}: the drawing has no state`);
  if (ended && !TERMINAL.has(previous)) throw new Error(`line ${line}: a JobSet ends only by C, F or X`);
  tl.createdAt = tl.transitions[0]!.at;
  return tl;
}

/** The queries of a script, each with the timelines drawn before it and its expectations. */
export function parseScript(text: string): ScriptQuery[] {
  const queries: ScriptQuery[] = [];
  let timelines: Timeline[] = [];
  let horizon = 0;
  let drawing_ = false;
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) return;
    if (/^\s+\|/.test(raw)) return; // a ruler
    if (drawing_ && /^\s/.test(raw)) {
      const m = /^\s+(\S+)((?:\s+[^\s|]+=[^\s|]*)*)\s+\|([^|]*)\|\s*$/.exec(raw);
      if (m === null) throw new Error(`line ${line}: a timeline is "namespace/name key=value … |drawing|"`);
      timelines.push(drawing(m[1]!, m[2]!.trim().split(/\s+/).filter((a) => a !== ''), m[3]!, line));
      return;
    }
    drawing_ = false;
    const [word = '', ...rest] = raw.trim().split(/\s+/);
    if (word === 'timelines') {
      const h = /^horizon=(\S+)$/.exec(rest.join(' '));
      if (h === null) throw new Error(`line ${line}: timelines horizon=<hours>h`);
      horizon = at(hours(h[1]!, line));
      timelines = [];
      drawing_ = true;
    } else if (word === 'query') {
      const m = /^query\s+(\S+)\s+from=(\S+)\s+to=(\S+)\s+(\{.*\})\s*$/.exec(raw.trim());
      if (m === null) throw new Error(`line ${line}: query <name> from=<h>h to=<h>h {json}`);
      if (queries.some((q) => q.name === m[1])) throw new Error(`line ${line}: a query named ${m[1]} came before`);
      queries.push({ name: m[1]!, from: at(hours(m[2]!, line)), to: at(hours(m[3]!, line)), query: JSON.parse(m[4]!) as Record<string, unknown>, timelines, horizon, expectations: [], line });
    } else if (word === 'expect') {
      const q = queries.at(-1);
      if (q === undefined) throw new Error(`line ${line}: an expectation follows a query`);
      const [what = '', ...args] = rest;
      if (what === 'frames') q.expectations.push({ kind: 'frames', count: Number(args[0]), line });
      else if (what === 'error') q.expectations.push({ kind: 'error', status: Number(args[0]), message: args.slice(1).join(' '), line });
      else {
        // A frame's name in double quotes when it holds spaces: expect "interruptions by cause" cause = …
        const m = /^expect\s+("[^"]*"|\S+)\s+(\S+)\s+=\s*(.*)$/.exec(raw.trim());
        if (m === null) throw new Error(`line ${line}: expect <frame> <field> = <values>`);
        const values = m[3]!.trim() === '' ? [] : m[3]!.trim().split(/\s+/).map(value);
        q.expectations.push({ kind: 'field', frame: m[1]!.replace(/^"|"$/g, ''), field: m[2]!, values, line });
      }
    } else throw new Error(`line ${line}: "${word}" is not timelines, query or expect`);
  });
  return queries;
}
