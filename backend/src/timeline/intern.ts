// Label sets shared by many timelines are kept once. A fleet's JobSets carry a handful of distinct
// label sets (app, team, queue), yet every observation parses its own copy: a timeline keeping the
// copy it was last seen with would hold one per JobSet. Sets no timeline holds any longer are
// dropped (weak references), so retention still frees them.

type Labels = Readonly<Record<string, string>>;

const sets = new Map<string, WeakRef<Labels>>();
const registry = new FinalizationRegistry<string>((key) => {
  if (sets.get(key)?.deref() === undefined) sets.delete(key);
});

const EMPTY: Labels = Object.freeze({});

/** The shared, frozen copy of a label set equal to `labels`. */
export function internLabels(labels: Labels): Labels {
  const keys = Object.keys(labels);
  if (keys.length === 0) return EMPTY;
  const key = JSON.stringify(labels);
  const found = sets.get(key)?.deref();
  if (found !== undefined) return found;
  const copy = Object.freeze({ ...labels });
  sets.set(key, new WeakRef(copy));
  registry.register(copy, key);
  return copy;
}

/** Same keys and values (in any order). */
export function sameLabels(a: Labels, b: Labels): boolean {
  if (a === b) return true;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) if (a[k] !== b[k]) return false;
  return true;
}

const namespaces = new Map<string, string>();

/** One copy of each namespace name (a fleet has few). */
export function internNamespace(namespace: string): string {
  let kept = namespaces.get(namespace);
  if (kept === undefined) namespaces.set(namespace, (kept = namespace));
  return kept;
}

// Values that many runs repeat: a JobSet's name across its runs, the accelerator and topology, the
// reasons and messages of suspensions and causes. Each observation brings its own copy (~40 bytes
// a string). The table is bounded and dropped whole when full: interning only saves memory, every
// reader compares values, so a value kept twice is merely a copy.
const values = new Map<string, string>();
const VALUES_KEPT = 1 << 16;

/** One copy of a value many timelines repeat (see above); null stays null. */
export function internValue<T extends string | null | undefined>(value: T): T {
  if (typeof value !== 'string') return value;
  const kept = values.get(value);
  if (kept !== undefined) return kept as T;
  if (values.size >= VALUES_KEPT) values.clear();
  values.set(value, value);
  return value;
}

type Suspension = Readonly<{ reason: string | null; message: string | null }>;

/** The kept suspensions by reason, then by message (no key made per lookup: a snapshot's restore looks one up per suspended run). */
const suspensions = new Map<string | null, Map<string | null, Suspension>>();
let suspensionsKept = 0;

/**
 * The shared, frozen copy of a suspension's reason and message (a fleet's suspensions say a handful
 * of things: Kueue's preemptions, the controller's generic one). Bounded as the values above.
 */
export function internSuspension(s: Suspension): { reason: string | null; message: string | null } {
  // Absent and null are one key, as they were when the key was JSON text.
  const reason = s.reason ?? null;
  const message = s.message ?? null;
  let byMessage = suspensions.get(reason);
  const kept = byMessage?.get(message);
  if (kept !== undefined) return kept as { reason: string | null; message: string | null };
  if (suspensionsKept >= VALUES_KEPT) {
    suspensions.clear();
    suspensionsKept = 0;
    byMessage = undefined;
  }
  if (byMessage === undefined) suspensions.set(reason, (byMessage = new Map()));
  const copy = Object.freeze({ reason: internValue(s.reason), message: internValue(s.message) });
  byMessage.set(message, copy);
  suspensionsKept++;
  return copy as { reason: string | null; message: string | null };
}
