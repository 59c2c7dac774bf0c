// A replica as its own process, for the failover test (backend/src/leader/failover.postgres.test.ts), which
// kills it (SIGKILL) or freezes it (SIGSTOP) in the middle of its work. It is a real Replica: Lease on
// the test apiserver, PostgreSQL store, follower. While it leads it "watches" a recorded stream of
// observations (a simulated fleet, the same in every replica) in real time, resuming where the
// store's observed mark says the previous leader stopped, as `upness serve --trace` does after a
// restart. It logs JSON lines (pino) on stdout; SIGTERM stops it gracefully.
//
// Settings come from the environment: UPNESS_PG_URL, UPNESS_KUBECONFIG (the test apiserver's),
// UPNESS_LEASE, UPNESS_LEASE_NAMESPACE (default `default`), UPNESS_IDENTITY, UPNESS_FLEET (JSON: jobsets, days, seed), UPNESS_PER_TICK,
// UPNESS_TIMINGS (JSON: leaseDurationMs, renewDeadlineMs, retryPeriodMs).

import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { EngineView } from '../../../backend/src/runtime/served-view.ts';
import { simulateFleet } from '../../../backend/src/sources/simulator/index.ts';
import { TimelineEngine } from '../../../backend/src/timeline/engine.ts';
import type { Observation } from '../../../backend/src/observation/types.ts';
import { kubeLeaseApi } from '../../../backend/src/leader/lease-api.ts';
import { Replica } from '../../../backend/src/leader/replica.ts';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const kubeconfig = new KubeConfig();
kubeconfig.loadFromFile(env('UPNESS_KUBECONFIG'));

const logger = pino({ level: 'info', base: { replica: env('UPNESS_IDENTITY') } });
const fleet = JSON.parse(env('UPNESS_FLEET')) as { jobsets: number; days: number; seed: number };
const observations: Observation[] = [...simulateFleet(fleet).observations()];
const perTick = Number(process.env.UPNESS_PER_TICK ?? '25');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The first observation at or after `t` (those at `t` itself are fed again: that changes nothing). */
function resumeAt(t: number): number {
  let lo = 0;
  let hi = observations.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (observations[mid]!.receivedAt < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const replica = new Replica({
  url: env('UPNESS_PG_URL'),
  cluster: 'default',
  identity: env('UPNESS_IDENTITY'),
  lease: kubeLeaseApi(kubeconfig, process.env.UPNESS_LEASE_NAMESPACE ?? 'default', env('UPNESS_LEASE'), 2000),
  timings: JSON.parse(env('UPNESS_TIMINGS')) as { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number },
  follower: { pollMs: 500 },
  logger,
  lead: async (store, recovery) => {
    const engine = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m) });
    engine.restore(recovery.machines, recovery.observedUntil);
    // A recorded stream misses nothing while nobody reads it: no gap.
    if (recovery.observedUntil !== null) engine.endGap(recovery.observedUntil);
    let i = recovery.observedUntil === null ? 0 : resumeAt(recovery.observedUntil);
    logger.info({ resumedAt: i, epoch: recovery.epoch }, 'resuming the stream');
    let feeding = true;
    const loop = (async () => {
      let first = true;
      while (feeding && i < observations.length && !store.fenced) {
        const end = Math.min(i + perTick, observations.length);
        for (; i < end; i++) engine.observe(observations[i]!);
        store.observed(engine.horizon);
        if (first) {
          await store.flushed();
          logger.info({ at: i }, 'first commit');
          first = false;
        }
        if (i % 500 < perTick) logger.info({ at: i }, 'fed');
        await sleep(20);
      }
      await store.flushed();
      if (i === observations.length && !store.fenced) logger.info({ at: i }, 'fed everything');
    })();
    const source = new EngineView('trace', engine, false);
    source.setReadiness({ ready: true });
    return {
      view: source,
      stop: async () => {
        feeding = false;
        await loop;
      },
    };
  },
});

replica.start();
process.once('SIGTERM', () => {
  void replica.stop().then(() => {
    logger.info('stopped');
    process.exit(0);
  });
});
