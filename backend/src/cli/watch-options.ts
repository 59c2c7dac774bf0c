// The options `upness serve` and `upness record` share for watching a cluster.

import type { Option } from 'commander';
import { Option as CommanderOption } from 'commander';
import { DEFAULT_BACKOFF } from '../sources/cluster/backoff.ts';
import { parseTimerDuration, UsageError } from './options.ts';

/** Timings of the watch, parsed (kept free of @kubernetes/client-node, which loads only when needed). */
export interface WatchSettings {
  kubeconfig?: string;
  context?: string;
  namespaces: string[];
  timings: {
    backoff: typeof DEFAULT_BACKOFF;
    silenceMs: number;
    watchTimeoutMs: number;
    listTimeoutMs: number;
    reconnectDelayMaxMs: number;
    stableMs: number;
  };
  readyBrokenMs: number;
  /** Watch Kueue's Workloads for why a JobSet was evicted (--watch-workloads). */
  workloads: boolean;
}

export interface WatchOptionValues {
  kubeconfig?: string;
  context?: string;
  namespace?: string[];
  watchTimeout: string;
  watchSilence: string;
  watchBackoffInitial: string;
  watchBackoffMax: string;
  listTimeout: string;
  readyBrokenAfter: string;
  watchWorkloads?: boolean;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** The commander options, to add to a command. */
export function watchOptions(): Option[] {
  return [
    new CommanderOption('--kubeconfig <file>', 'watch the cluster of this kubeconfig (default: $KUBECONFIG, the pod\'s service account, ~/.kube/config)'),
    new CommanderOption('--context <name>', 'the kubeconfig context to use'),
    new CommanderOption('--namespace <ns>', 'watch JobSets and Pods in this namespace only (repeatable; default: all)').argParser(collect),
    new CommanderOption('--watch-timeout <duration>', 'reopen a watch that has received nothing for this long').default('30s'),
    new CommanderOption('--watch-silence <duration>', 'watchdog: restart a watch with no sign of life for this long').default('75s'),
    new CommanderOption('--watch-backoff-initial <duration>', 'first delay before restarting a failed watch (doubles, with jitter)').default('500ms'),
    new CommanderOption('--watch-backoff-max <duration>', 'longest delay between restarts of a failed watch').default('30s'),
    new CommanderOption('--list-timeout <duration>', 'a list that has not answered in this long fails').default('60s'),
    new CommanderOption('--ready-broken-after <duration>', '/readyz is false while a watch has been broken longer than this').default('30s'),
    new CommanderOption('--watch-workloads', "also watch Kueue's Workloads (kueue.x-k8s.io/v1beta2; needs RBAC to list and watch them): their eviction reasons become the reasons of their JobSets' suspensions"),
  ];
}

function duration(value: string, option: string): number {
  return parseTimerDuration(value, option, '30s or 500ms');
}

export function parseWatchOptions(values: WatchOptionValues): WatchSettings {
  const watchTimeoutMs = duration(values.watchTimeout, '--watch-timeout');
  const silenceMs = duration(values.watchSilence, '--watch-silence');
  if (silenceMs <= watchTimeoutMs) {
    throw new UsageError(`--watch-silence (${values.watchSilence}) must be longer than --watch-timeout (${values.watchTimeout}): a quiet, healthy watch shows life only that often`);
  }
  const initialMs = duration(values.watchBackoffInitial, '--watch-backoff-initial');
  const maxMs = duration(values.watchBackoffMax, '--watch-backoff-max');
  if (maxMs < initialMs) throw new UsageError('--watch-backoff-max must not be shorter than --watch-backoff-initial');
  const namespaces = [...new Set(values.namespace ?? [])];
  for (const ns of namespaces) {
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(ns)) throw new UsageError(`--namespace "${ns}" is not a namespace name`);
  }
  return {
    ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
    ...(values.context !== undefined ? { context: values.context } : {}),
    namespaces,
    timings: {
      backoff: { ...DEFAULT_BACKOFF, initialMs, maxMs },
      silenceMs,
      watchTimeoutMs,
      listTimeoutMs: duration(values.listTimeout, '--list-timeout'),
      reconnectDelayMaxMs: Math.min(1000, initialMs),
      stableMs: Math.max(60_000, 2 * maxMs),
    },
    readyBrokenMs: duration(values.readyBrokenAfter, '--ready-broken-after'),
    workloads: values.watchWorkloads === true,
  };
}

/** Resource usage sampling (`upness serve` only): how often, or null when off. */
export interface UsageSettings {
  intervalMs: number;
}

export interface UsageOptionValues {
  watchUsage?: boolean;
  usageInterval: string;
}

/** The options of the usage sampler, for `upness serve`. */
export function usageOptions(): Option[] {
  return [
    new CommanderOption(
      '--watch-usage',
      "also sample every JobSet pod's CPU, memory, network and storage from its node's kubelet (GET /api/v1/nodes/{node}/proxy/stats/summary; needs RBAC get on nodes/proxy)",
    ),
    new CommanderOption('--usage-interval <duration>', 'with --watch-usage: how often to sample every node that runs a JobSet pod (0: off)').default('30s'),
  ];
}

/** Off without --watch-usage, or with an interval of 0; an interval under a second is refused (kubelets refresh their stats every 10-15 s). */
export function parseUsageOptions(values: UsageOptionValues): UsageSettings | null {
  if (values.watchUsage !== true) return null;
  if (/^0+(ms|s|m|h)?$/.test(values.usageInterval.trim())) return null;
  const intervalMs = parseTimerDuration(values.usageInterval, '--usage-interval', '30s or 1m');
  if (intervalMs < 1000) throw new UsageError(`--usage-interval must be at least 1s (or 0: off), not "${values.usageInterval}"`);
  return { intervalMs };
}
