// The `upness` command line. Each command lives in its own file; this one only wires options, and
// loads a command's file when it runs (what `serve` holds is then only what serving needs).

import './regexp-engine.ts';
// Before anything loads @kubernetes/client-node: its KubeConfig without the generated API.
import '../sources/cluster/lean-client.ts';
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { HEAP_GROWTH_PERCENT } from '../runtime/heap-after-load.ts';
import { checkNeededOptions, parseHeapGrowth, parseThreadCount, parseDataDuration, parseInteger, parsePort, parsePositiveInt, parsePositiveNumber, parsedOption, parsePoolSizes, UsageError } from './options.ts';
import { usageOptions, watchOptions } from './watch-options.ts';
import { TraceError } from '../sources/trace/check.ts';

/** The service's version: backend/package.json's (the image copies it too). */
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command('upness')
  .description('Exact up/down timelines and figures for Kubernetes JobSets')
  .version(version, '-V, --version', 'print the version and exit')
  .showHelpAfterError('(run with --help for usage)')
  // A usage error (unknown option, options that exclude each other, a missing argument) exits 2, as
  // the command's own UsageErrors do; help and --version exit 0. Subcommands inherit this.
  .exitOverride((error) => {
    process.exit(error.exitCode === 0 ? 0 : 2);
  });

const PARSE_THREADS = 'worker threads that parse the trace beside the main thread, which parses a share too (default: one fewer than the cores available; 0: the main thread alone, as a trace under 16 MiB always is)';
const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

program
  .command('replay')
  .description('Replay a trace (JSON Lines of {time, type, object}) and print every JobSet\'s figures')
  .argument('<trace>', 'trace file, or - for standard input')
  .option('--from <time>', 'window start, ISO-8601 (default: the earliest creation in the trace)')
  .option('--to <time>', "window end, ISO-8601 (default: the trace's last line)")
  .option('--namespace <ns>', 'only JobSets in this namespace (repeatable)', collect)
  .addOption(new Option('--format <format>', 'output format').choices(['json', 'table']).default('json'))
  .addOption(parsedOption('--parse-threads <n>', PARSE_THREADS, parseThreadCount))
  .action(async (trace: string, options) => {
    const { replayCommand } = await import('./replay.ts');
    process.stdout.write(await replayCommand(trace, options));
  });

program
  .command('simulate')
  .description('Write a realistic trace of a simulated JobSet fleet (deterministic for a seed)')
  .addOption(parsedOption('--jobsets <n>', 'JobSet names running side by side', parsePositiveInt).makeOptionMandatory())
  .addOption(parsedOption('--days <d>', 'length of the simulated period, in days (fractions allowed)', parsePositiveNumber).makeOptionMandatory())
  .addOption(parsedOption('--seed <s>', 'random seed', parseInteger, '1'))
  .option('--start <time>', 'start of the period, ISO-8601', '2026-01-01T00:00:00Z')
  .addOption(new Option('--profile <profile>', 'realistic rates, a busy demo, or weeks-long training runs').choices(['realistic', 'demo', 'long-running']).default('realistic'))
  .option('--nodes', "the cluster under the JobSets too: Nodes in pools and the JobSets' Pods (the node layer; about 8 times the lines)")
  .option('--workloads', "Kueue's Workloads of the Kueue JobSets too: admitted, and preempted with Kueue's reasons")
  .option('--out <file>', 'write to a file instead of standard output')
  .action(async (options) => (await import('./simulate.ts')).simulateCommand(options));

const serve = program
  .command('serve')
  .description('Run the service: the HTTP API, /metrics, /healthz and /readyz')
  .addOption(new Option('--host <host>', 'address to listen on').env('UPNESS_HOST').default('0.0.0.0'))
  .addOption(parsedOption('--port <port>', 'port to listen on', parsePort, '8080').env('UPNESS_PORT'))
  // A recorded trace, or a live cluster: not both.
  .addOption(new Option('--trace <file>', 'serve the timelines of a recorded trace instead of a live source').conflicts(['kubeconfig', 'context', 'store']))
  .addOption(parsedOption('--parse-threads <n>', `with --trace: ${PARSE_THREADS}`, parseThreadCount))
  .option('--token-file <file>', 'require this bearer token on /api/v1 and /metrics (or set $UPNESS_TOKEN)')
  .addOption(new Option('--data-dir <dir>', 'where timelines are kept: an append-only log and snapshots').env('UPNESS_DATA_DIR').default('upness-data'))
  .addOption(new Option('--memory', 'keep timelines in memory only (lost when the service stops)').conflicts(['dataDir', 'store']))
  .addOption(new Option('--store <url>', 'keep timelines in PostgreSQL (postgres://…) instead of --data-dir: shared by replicas and clusters').env('UPNESS_STORE'))
  .addOption(new Option('--cluster-name <name>', 'the name of the watched cluster on its timelines (several clusters, one store)').env('UPNESS_CLUSTER_NAME'))
  .option('--follow', 'with --store: never watch or write, only serve what the leaders write')
  .option('--serve-clusters <names>', "with --store: the clusters to serve while following (comma-separated, or 'all'; default: --cluster-name)")
  .addOption(new Option('--lease-name <name>', 'with --store: elect one leader among the replicas with this Lease').env('UPNESS_LEASE_NAME'))
  .option('--lease-namespace <ns>', "the Lease's namespace (default: the pod's own, else default)")
  .addOption(new Option('--replica-id <id>', 'this replica in the Lease (default: the host name, i.e. the pod name)').env('UPNESS_REPLICA_ID'))
  .option('--lease-duration <duration>', 'how long a Lease holds without renewal', '15s')
  .option('--renew-deadline <duration>', 'how long the leader keeps trying to renew before it steps down', '10s')
  .option('--retry-period <duration>', 'how often candidates try, and the leader renews', '2s')
  .addOption(parsedOption('--retention <duration>', 'drop timelines that ended longer ago than this', parseDataDuration, '90d'))
  .addOption(parsedOption('--snapshot-every <records>', 'write a snapshot (and drop the log before it) after this many records', parsePositiveInt, '100000'))
  .addOption(parsedOption('--jobsets <n>', 'simulated cluster: JobSet names running side by side', parsePositiveInt, '24'))
  .addOption(parsedOption('--history-days <d>', 'simulated cluster: days of history at start', parsePositiveNumber, '7'))
  .addOption(parsedOption('--seed <s>', 'simulated cluster: random seed', parseInteger, '1'))
  .addOption(new Option('--profile <profile>', 'simulated cluster: event rates').choices(['realistic', 'demo', 'long-running']).default('demo'))
  .addOption(parsedOption('--speed <factor>', 'simulated cluster: simulated seconds per second', parsePositiveNumber, '1'))
  .option('--node-pool-label <key>', "a Node label that names its pool where none of GKE's, Karpenter's, EKS's or AKS's does")
  .addOption(parsedOption('--node-pool-size <pairs>', 'expected nodes of these pools, as POOL=N pairs (comma-separated), where the cloud tells it', parsePoolSizes))
  .addOption(parsedOption('--terminal-grace <duration>', 'how long finished JobSets stay on /metrics', parseDataDuration, '10m'))
  .addOption(parsedOption('--shutdown-grace <duration>', 'how long stopping (SIGTERM) may take before the process exits anyway, with status 1 (default: 10s; 15s for a replica on a Lease)', parseDataDuration))
  .addOption(
    parsedOption(
      '--heap-growth <percent>',
      "once loaded, how far the JavaScript heap may grow past what lives before it is collected (0: V8's own policy, up to 4×; less: more CPU a query, less memory)",
      parseHeapGrowth,
      String(HEAP_GROWTH_PERCENT),
    ).env('UPNESS_HEAP_GROWTH'),
  )
  .addOption(new Option('--log-level <level>', 'log level').choices(['debug', 'info', 'warn', 'error']).env('UPNESS_LOG_LEVEL').default('info'))
  .action(async (options) => (await import('./serve.ts')).serveCommand(options));
// Options that mean something only beside another, given without it: a usage error, not ignored.
serve.hook('preAction', (command) => {
  const given = new Set(command.options.map((o) => o.attributeName()).filter((key) => !['default', undefined].includes(command.getOptionValueSource(key))));
  checkNeededOptions(given, (key) => command.options.find((o) => o.attributeName() === key)!.long!);
});
// A cluster to watch (--kubeconfig, --context, $KUBECONFIG or a pod's service account) makes the
// source `kubernetes`; without one it is the simulated cluster.
for (const option of watchOptions()) serve.addOption(option);
for (const option of usageOptions()) serve.addOption(option);

const record = program
  .command('record')
  .description('Watch a cluster and write what it delivers as a trace (JSON Lines of {time, type, object}), for replay')
  .option('--out <file>', 'write to this file instead of standard output')
  .addOption(new Option('--log-level <level>', 'log level (logs go to standard error)').choices(['debug', 'info', 'warn', 'error']).env('UPNESS_LOG_LEVEL').default('info'))
  .action(async (options) => (await import('./record.ts')).recordCommand(options));
for (const option of watchOptions()) record.addOption(option);

program
  .command('demo')
  .description('Simulate a small fleet for a week and print its figures (the quick start)')
  .addOption(parsedOption('--jobsets <n>', 'JobSet names running side by side', parsePositiveInt, '12'))
  .addOption(parsedOption('--days <d>', 'length of the simulated period, in days', parsePositiveNumber, '7'))
  .addOption(parsedOption('--seed <s>', 'random seed', parseInteger, '1'))
  .action(async (options) => {
    const { demoCommand } = await import('./demo.ts');
    process.stdout.write(await demoCommand(options));
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof TraceError || error instanceof UsageError) {
    process.stderr.write(`upness: ${error.message}\n`);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  } else if (typeof (error as NodeJS.ErrnoException).path === 'string') {
    const { path, code } = error as NodeJS.ErrnoException;
    process.stderr.write(`upness: cannot read "${path}" (${code === 'ENOENT' ? 'no such file' : code})\n`);
    process.exitCode = 1;
  } else {
    throw error;
  }
}
