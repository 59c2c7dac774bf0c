// One resource (JobSets, Pods or Nodes) listed and watched, made to never stop silently, holding
// only what it needs of each object.
//
// The list+watch is its own (client-node's ListWatch informer keeps the latest version of every
// object in its cache: for a big fleet, most of the service's memory). Per collection path it lists
// (a page at a time), then watches from the list's resourceVersion (watch-stream.ts), asking
// for bookmarks, moving its resourceVersion on with every event and bookmark; it reopens a watch
// that the server closed or that timed out from there (after a delay that grows while reopened
// watches deliver nothing, as ListWatch does), and relists after a 410 Gone. On top of that, this class:
//
// - restarts the list+watch after any other error, after an exponential backoff with jitter, as a new
//   *generation*: it lists everything again. Callbacks of an older generation are ignored, so a
//   stopped watch cannot deliver anything late;
// - keeps what it delivered (uid → resourceVersion and a kept form of the object: `ResourceDef.keep`,
//   e.g. a Pod's or Node's identity, labels and node, while JobSets are kept whole), and turns every
//   list into the difference against it: ADDED for new objects, MODIFIED for changed ones (another
//   resourceVersion), DELETED (with the kept form of the object) for those that vanished, nothing
//   for the unchanged;
// - notices relists after a 410 Gone, which are gaps: events between the close and the relist were lost;
// - runs a watchdog: a watch that shows no sign of life (no event, no bookmark, no successful
//   connect or list) for `silenceMs` is declared broken and restarted. Watches ask for bookmarks,
//   and a watch that receives nothing for `watchTimeoutMs` is reopened, so a healthy watch shows
//   life at least that often, even on a quiet resource;
// - tells its owner when it can no longer vouch for what happened (`broken(at)`, with the time of
//   the last sign of life or of the failure) and when it has listed and delivered everything again
//   (`synced()`), and counts every restart by cause.

import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject, ObservationType } from '../../observation/types.ts';
import { backoffDelay, type BackoffOptions } from './backoff.ts';
import { classifyError, type RestartCause } from './errors.ts';
import { listPages } from './list.ts';
import { openWatch } from './watch-stream.ts';

export type ResourceName = 'jobsets' | 'pods' | 'nodes' | 'workloads';

export interface ResourceDef {
  resource: ResourceName;
  apiVersion: string;
  kind: string;
  /** Collection paths to list and watch: one per namespace, or one for the whole cluster. */
  paths: string[];
  labelSelector?: string;
  /**
   * What is held of an object once delivered (default: the whole object, without managedFields):
   * what a DELETED observation of it carries when a relist finds it gone, and what `objects()` gives.
   */
  keep?: (object: KubeObject) => KubeObject;
}

export interface WatchTimings {
  backoff: BackoffOptions;
  /** A watch with no sign of life for this long is declared broken and restarted. */
  silenceMs: number;
  /** A watch that has received nothing for this long is reopened (its inactivity timeout). */
  watchTimeoutMs: number;
  /** A list that has not answered in this long fails. */
  listTimeoutMs: number;
  /** Ceiling on the delay before reopening a watch that the server closed. */
  reconnectDelayMaxMs: number;
  /** A generation that stayed synced this long resets the backoff. */
  stableMs: number;
}

export interface RestartInfo {
  resource: ResourceName;
  cause: RestartCause;
  error: unknown;
  /** How many restarts in a row, 1 for the first after a healthy period. 0 for a relist after 410. */
  attempt: number;
  delayMs: number;
  /** Since when the watch cannot vouch for what happened. */
  brokenSince: number | null;
}

export interface ResourceEvents {
  observe(type: ObservationType, object: KubeObject): void;
  /** The watch can no longer vouch for what happened after `at`. */
  broken(at: number): void;
  /** Every object has been listed and the differences delivered (first sync, or resync after a break). */
  synced(): void;
  restarted(info: RestartInfo): void;
}

export interface ResourceStatus {
  resource: ResourceName;
  synced: boolean;
  everSynced: boolean;
  brokenSince: number | null;
  /** The cause and message of the last failure, while broken. */
  lastError: { cause: RestartCause; message: string } | null;
  restarts: Partial<Record<RestartCause, number>>;
  /** Last sign of life of the stalest path: an event, a bookmark, a connect or a list. */
  lastEventAt: number | null;
  objects: number;
  /** Watches reopened after the server closed them or they timed out (not restarts: nothing was lost). */
  reconnects: number;
}

interface PathState {
  lists: number;
  connects: number;
  synced: boolean;
  lastAlive: number;
  disconnectedAt: number | null;
}

class StaleGeneration extends Error {
  constructor() {
    super('superseded by a newer generation of watches');
    this.name = 'StaleGeneration';
  }
}

interface WatchHooks {
  /** False once the generation this watch belongs to is over. */
  live(): boolean;
  now(): number;
  connected(): void;
  data(): void;
  /** A watch that had connected ended; it delivered everything that happened until `coveredUntil` (null: now). */
  closed(coveredUntil: number | null): void;
}

/** A watch (watch-stream.ts), asking for bookmarks and reporting every sign of life and every end. */
class TrackedWatch {
  readonly #config: KubeConfig;
  readonly #timeoutMs: number;
  readonly #hooks: WatchHooks;

  constructor(config: KubeConfig, timeoutMs: number, hooks: WatchHooks) {
    this.#config = config;
    this.#timeoutMs = timeoutMs;
    this.#hooks = hooks;
  }

  async watch(path: string, queryParams: Record<string, string>, callback: (phase: string, apiObj: unknown) => void, done: (err: unknown) => void): Promise<AbortController> {
    const hooks = this.#hooks;
    let finished = false;
    let connected = false;
    let gone = false;
    /** When it last delivered something that was not a refusal (an event, a bookmark). */
    let lastValid: number | null = null;
    const finish = (err: unknown): void => {
      if (finished) return;
      finished = true;
      // Refused with 410 Gone: it covered nothing after its last good event (a watch reopened from
      // a compacted resourceVersion is refused at once, and covered nothing at all).
      if (connected && !gone) hooks.closed(null);
      else if (gone && lastValid !== null) hooks.closed(lastValid);
      done(err);
    };
    if (!hooks.live()) {
      // A watch reopened after its reconnect delay while the generation was stopped meanwhile.
      const dead = new AbortController();
      queueMicrotask(() => finish(new StaleGeneration()));
      return dead;
    }
    // Events may arrive before openWatch has returned its controller.
    const box: { controller?: AbortController; abort?: boolean } = {};
    const controller = await openWatch(
      this.#config,
      path,
      { ...queryParams, allowWatchBookmarks: 'true' },
      this.#timeoutMs,
      (phase, object) => {
        if (finished) return;
        hooks.data();
        const status = object as { code?: unknown; message?: unknown; reason?: unknown } | undefined;
        if (phase === 'ERROR' && status?.code === 410) gone = true;
        else if (phase !== 'ERROR') lastValid = hooks.now();
        if (phase === 'ERROR' && status?.code !== 410) {
          // A Status in the stream (e.g. 500, 403): an error, not a reason to reconnect in silence.
          const error = Object.assign(new Error(`watch ${path}: ${String(status?.message ?? 'error')}`), {
            statusCode: typeof status?.code === 'number' ? status.code : undefined,
            reason: status?.reason,
          });
          if (box.controller !== undefined) box.controller.abort();
          else box.abort = true;
          finish(error);
          return;
        }
        callback(phase, object);
      },
      finish,
    );
    box.controller = controller;
    if (box.abort) controller.abort();
    if (!finished) {
      connected = true;
      hooks.connected();
    }
    return controller;
  }
}

/** managedFields are big and say nothing Upness uses; they are dropped as objects arrive. */
function normalize(object: KubeObject): KubeObject {
  if (object.metadata !== undefined && 'managedFields' in object.metadata) delete (object.metadata as Record<string, unknown>).managedFields;
  return object;
}

const wholeObject = (object: KubeObject): KubeObject => object;

/** What is held of a delivered object: where it was listed or watched, its version, and its kept form. */
interface Known {
  path: string;
  resourceVersion: unknown;
  object: KubeObject;
}

/** The watch's delay before reopening after the server closed it, as client-node's ListWatch grows it. */
const RECONNECT_DELAY_FIRST_MS = 1000;
/** Objects per page of a list. */
const LIST_PAGE_SIZE = 100;
const RECONNECT_DELAY_MAX_MS = 30_000;

function statusCode(error: unknown): unknown {
  if (error === null || typeof error !== 'object') return undefined;
  const e = error as { statusCode?: unknown; code?: unknown };
  return e.statusCode ?? e.code;
}

export class ResourceWatch {
  readonly def: ResourceDef;
  readonly #config: KubeConfig;
  readonly #timings: WatchTimings;
  readonly #events: ResourceEvents;
  readonly #clock: () => number;
  readonly #random: () => number;

  /** What has been delivered: uid → the path it came from, its resourceVersion and its kept form. */
  readonly #known = new Map<string, Known>();
  readonly #keep: (object: KubeObject) => KubeObject;
  readonly #restarts: Partial<Record<RestartCause, number>> = {};
  #generation = 0;
  /** Aborts the generation's lists, watches and reconnect delays. */
  #abort = new AbortController();
  #paths = new Map<string, PathState>();
  #generationStart = 0;
  /** A generation of list+watches is running (not waiting out a backoff, not stopped). */
  #running = false;
  #stopped = true;
  #synced = false;
  #everSynced = false;
  #syncedAt: number | null = null;
  #brokenSince: number | null = null;
  #lastError: ResourceStatus['lastError'] = null;
  #attempt = 0;
  #reconnects = 0;
  #retry: NodeJS.Timeout | null = null;
  #watchdog: NodeJS.Timeout | null = null;

  constructor(def: ResourceDef, config: KubeConfig, timings: WatchTimings, events: ResourceEvents, clock: () => number, random: () => number = Math.random) {
    this.def = def;
    this.#config = config;
    this.#timings = timings;
    this.#events = events;
    this.#clock = clock;
    this.#random = random;
    this.#keep = def.keep ?? wholeObject;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#watchdog = setInterval(() => this.#checkSilence(), Math.max(100, Math.min(1000, this.#timings.silenceMs / 4)));
    this.#watchdog.unref();
    this.#run();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#retry !== null) clearTimeout(this.#retry);
    if (this.#watchdog !== null) clearInterval(this.#watchdog);
    this.#retry = this.#watchdog = null;
    await this.#stopGeneration();
  }

  status(): ResourceStatus {
    let stalest: number | null = null;
    for (const p of this.#paths.values()) if (p.lastAlive > 0) stalest = stalest === null ? p.lastAlive : Math.min(stalest, p.lastAlive);
    return {
      resource: this.def.resource,
      synced: this.#synced,
      everSynced: this.#everSynced,
      brokenSince: this.#brokenSince,
      lastError: this.#brokenSince === null ? null : this.#lastError,
      restarts: { ...this.#restarts },
      lastEventAt: stalest,
      objects: this.#known.size,
      reconnects: this.#reconnects,
    };
  }

  /** The uids of the objects delivered and not deleted since. */
  uids(): IterableIterator<string> {
    return this.#known.keys();
  }

  /** The objects delivered and not deleted since, in their kept form (`ResourceDef.keep`). */
  *objects(): IterableIterator<KubeObject> {
    for (const known of this.#known.values()) yield known.object;
  }

  // ---- generations ---------------------------------------------------------------------------

  #run(): void {
    this.#retry = null;
    if (this.#stopped) return;
    const generation = ++this.#generation;
    this.#abort = new AbortController();
    this.#running = true;
    this.#synced = false;
    this.#generationStart = this.#clock();
    // The last sign of life carries over: it is what /metrics reports while the watch is down.
    const previous = this.#paths;
    this.#paths = new Map(this.def.paths.map((p) => [p, { lists: 0, connects: 0, synced: false, lastAlive: previous.get(p)?.lastAlive ?? 0, disconnectedAt: null }]));
    for (const path of this.def.paths) this.#follow(generation, path).catch((error: unknown) => this.#failed(generation, error));
  }

  /**
   * One path's list+watch for the life of a generation: lists (again after a 410 Gone), then
   * watches from the list's resourceVersion, reopening the watch where the last one ended. Returns
   * when the generation is over; throws what should restart it.
   */
  async #follow(generation: number, path: string): Promise<void> {
    const state = this.#paths.get(path)!;
    const signal = this.#abort.signal;
    const live = () => generation === this.#generation && !this.#stopped;
    const alive = () => {
      if (live()) state.lastAlive = this.#clock();
    };
    const watch = new TrackedWatch(this.#config, this.#timings.watchTimeoutMs, {
      live,
      now: this.#clock,
      connected: () => {
        if (!live()) return;
        if (++state.connects > 1) this.#reconnects++;
        alive();
      },
      data: alive,
      closed: (coveredUntil) => {
        if (live()) state.disconnectedAt = Math.min(coveredUntil ?? Infinity, this.#clock());
      },
    });
    // The watch open now: aborted with the generation.
    let open: AbortController | null = null;
    signal.addEventListener('abort', () => open?.abort(), { once: true });
    let resourceVersion = '';
    let reconnectDelayMs = 0;
    let reopened = false;
    while (live()) {
      if (resourceVersion === '') resourceVersion = await this.#list(generation, path);
      if (reopened && reconnectDelayMs > 0) await sleep(Math.min(reconnectDelayMs, this.#timings.reconnectDelayMaxMs), undefined, { signal });
      if (!live()) return;
      // Grows while reopened watches deliver nothing (any event or bookmark resets it), as ListWatch's.
      if (reopened) reconnectDelayMs = Math.min(reconnectDelayMs > 0 ? reconnectDelayMs * 2 : RECONNECT_DELAY_FIRST_MS, RECONNECT_DELAY_MAX_MS);
      reopened = true;
      const ended = await new Promise<unknown>((resolve) => {
        const query = { resourceVersion, ...(this.def.labelSelector !== undefined ? { labelSelector: this.def.labelSelector } : {}) };
        watch
          .watch(path, query, (phase, object) => {
            if (!live()) return;
            const event = object as KubeObject | { code?: unknown } | undefined;
            if (phase === 'ERROR') {
              // 410 Gone in the stream: the watch ends, and the next step is a relist.
              if ((event as { code?: unknown } | undefined)?.code === 410) resourceVersion = '';
              return;
            }
            reconnectDelayMs = 0;
            const metadata = (event as KubeObject | undefined)?.metadata;
            if (phase === 'ADDED' || phase === 'MODIFIED' || phase === 'DELETED') this.#object(path, phase, event as KubeObject);
            if (typeof metadata?.resourceVersion === 'string' && metadata.resourceVersion !== '') resourceVersion = metadata.resourceVersion;
          }, resolve)
          .then((controller) => {
            open = controller;
            if (signal.aborted) controller.abort();
          }, resolve);
      });
      open = null;
      if (!live()) return;
      if (ended === null || ended === undefined) continue; // closed by the server: reopened
      if (statusCode(ended) === 410) resourceVersion = '';
      else if ((ended as { name?: unknown }).name === 'TimeoutError') reconnectDelayMs = 0; // the timeout already waited
      else throw ended;
    }
  }

  async #stopGeneration(): Promise<void> {
    this.#generation++;
    this.#running = false;
    this.#abort.abort();
  }

  // ---- lists ---------------------------------------------------------------------------------

  /** Lists `path`, delivering the difference against what was delivered; resolves with the list's resourceVersion. */
  async #list(generation: number, path: string): Promise<string> {
    if (generation !== this.#generation) throw new StaleGeneration();
    const state = this.#paths.get(path)!;
    state.lists++;
    if (state.lists > 1) {
      // A second list in a generation follows a 410 Gone: the resourceVersion was compacted away
      // while the watch was closed, so what happened since the close is lost.
      state.synced = false;
      this.#synced = false;
      this.#count('gone');
      this.#lastError = { cause: 'gone', message: '410 Gone: the resourceVersion is too old; relisting' };
      this.#markBroken(state.disconnectedAt ?? this.#clock());
      this.#events.restarted({ resource: this.def.resource, cause: 'gone', error: new Error('410 Gone'), attempt: 0, delayMs: 0, brokenSince: this.#brokenSince });
    }
    const signal = AbortSignal.any([this.#abort.signal, AbortSignal.timeout(this.#timings.listTimeoutMs)]);
    // Delivered a page at a time, so that no more than a page of whole objects is held here; what
    // vanished is known once every page is in.
    const listed = new Set<string>();
    const resourceVersion = await listPages(
      this.#config,
      path,
      {
        apiVersion: this.def.apiVersion,
        kind: this.def.kind,
        ...(this.def.labelSelector !== undefined ? { labelSelector: this.def.labelSelector } : {}),
        // A page's answer is read whole before it is parsed: 100 realistic Nodes are ~2.5 MB of it.
        pageSize: LIST_PAGE_SIZE,
        signal,
      },
      (items) => {
        if (generation !== this.#generation || this.#stopped) throw new StaleGeneration();
        state.lastAlive = this.#clock();
        for (const item of items) {
          const object = normalize(item);
          if (typeof object.metadata?.uid !== 'string') continue;
          listed.add(object.metadata.uid);
          this.#deliver(path, object);
        }
      },
    );
    if (generation !== this.#generation || this.#stopped) throw new StaleGeneration();
    state.lastAlive = this.#clock();
    for (const [uid, known] of this.#known) {
      if (known.path === path && !listed.has(uid)) {
        this.#known.delete(uid);
        this.#events.observe('DELETED', known.object);
      }
    }
    state.synced = true;
    if ([...this.#paths.values()].every((p) => p.synced)) this.#allSynced();
    return resourceVersion;
  }

  #allSynced(): void {
    this.#synced = true;
    this.#everSynced = true;
    this.#syncedAt = this.#clock();
    this.#brokenSince = null;
    this.#events.synced();
  }

  // ---- events --------------------------------------------------------------------------------

  #object(path: string, type: ObservationType, raw: KubeObject): void {
    const object = normalize(raw);
    if (typeof object.metadata?.uid !== 'string') return;
    if (type === 'DELETED') {
      if (!this.#known.delete(object.metadata.uid)) return;
      this.#events.observe('DELETED', object);
      return;
    }
    this.#deliver(path, object);
  }

  #deliver(path: string, object: KubeObject): void {
    const known = this.#known.get(object.metadata.uid);
    const resourceVersion = object.metadata.resourceVersion;
    if (known !== undefined && known.resourceVersion === resourceVersion && resourceVersion !== undefined) return;
    this.#known.set(object.metadata.uid, { path, resourceVersion, object: this.#keep(object) });
    this.#events.observe(known === undefined ? 'ADDED' : 'MODIFIED', object);
  }

  // ---- failures ------------------------------------------------------------------------------

  #count(cause: RestartCause): void {
    this.#restarts[cause] = (this.#restarts[cause] ?? 0) + 1;
  }

  #markBroken(at: number): void {
    if (this.#brokenSince !== null) return;
    this.#brokenSince = at;
    this.#synced = false;
    this.#events.broken(at);
  }

  #failed(generation: number, error: unknown): void {
    if (generation !== this.#generation || this.#stopped || error instanceof StaleGeneration) return;
    this.#restart(classifyError(error), error, this.#clock());
  }

  #checkSilence(): void {
    if (!this.#running || this.#stopped) return;
    const now = this.#clock();
    for (const [path, state] of this.#paths) {
      const since = Math.max(state.lastAlive, this.#generationStart);
      if (now - since <= this.#timings.silenceMs) continue;
      const error = new Error(`${path}: no event, bookmark or answer for ${Math.round((now - since) / 1000)} s`);
      // Nothing is vouched for after the last sign of life.
      this.#restart('watchdog', error, state.lastAlive > 0 ? state.lastAlive : now);
      return;
    }
  }

  #restart(cause: RestartCause, error: unknown, brokenAt: number): void {
    this.#count(cause);
    this.#lastError = { cause, message: error instanceof Error ? error.message : String(error) };
    this.#markBroken(brokenAt);
    const stable = this.#syncedAt !== null && this.#clock() - this.#syncedAt >= this.#timings.stableMs;
    this.#attempt = stable ? 1 : this.#attempt + 1;
    this.#syncedAt = null;
    const delayMs = backoffDelay(this.#attempt, this.#timings.backoff, this.#random);
    void this.#stopGeneration();
    this.#events.restarted({ resource: this.def.resource, cause, error, attempt: this.#attempt, delayMs, brokenSince: this.#brokenSince });
    if (this.#retry !== null) clearTimeout(this.#retry);
    this.#retry = setTimeout(() => this.#run(), delayMs);
  }
}
